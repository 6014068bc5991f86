// The main page's "Embed" dialog: for the current state, one snippet per route (embed-routes.js:
// an <iframe>, the <attn-scale-demo> web component, a Hugo shortcode, a Jekyll include, the bare
// element for VitePress and MDX, a Markdown image), with copy buttons (clipboard API, or select +
// copy as a fallback), and the link to the offline single file. Loaded on the first click only.
import { h } from '../ui/dom.js';
import { PANELS } from '../panels/index.js';
import { embeddablePanels } from '../embed/embed-options.js';
import { embedSnippets } from '../embed/embed-snippets.js';
import { ROUTES, cdnBase } from '../embed/embed-routes.js';
import { version } from '../../../package.json';
import { PAGE_LIMITS } from '../state/state.js';
import { fmt } from '../ui/format.js';
import { scaleLabel } from '../state/choices.js';
import './embed-dialog.css';
import { copyText } from '../ui/clipboard.js';

const CONTROL_CHOICES = [
  { id: 'none', label: 'none', fields: null },
  { id: 'main', label: 'd_k and scaling', fields: ['dk', 'scale'] },
  { id: 'all', label: 'all settings', fields: 'all' },
];
const THEME_CHOICES = [
  ['auto', 'follow the reader’s system'],
  ['light', 'light'],
  ['dark', 'dark'],
];

let dialog = null;

/** The picture a chart downloads, for the Markdown route: its GIF where it has one, else its SVG. */
const pictureOf = (name) => (PANELS[name]?.meta?.gif ? 'gif' : 'svg');

/** A note's parts (embed-routes.js) as nodes: text, inline code, links that open in a new tab. */
const noteNodes = (parts) =>
  parts.map((p) =>
    typeof p === 'string'
      ? p
      : p.href
        ? h('a', { href: p.href, target: '_blank', rel: 'noopener', text: p.text })
        : h('code', { text: p.code }),
  );

/** One route's block: its textarea, copy button, note and, for a site engine, its config line. */
function snippetBlock(route, ctx, id, status) {
  const { kind } = route;
  const tid = id(route.id.replace(/\W+/g, '-'));
  const label = `Copy the ${kind} snippet`;
  const textarea = h('textarea', {
    id: tid,
    class: 'embed-code',
    readonly: true,
    rows: route.rows,
    spellcheck: 'false',
    'aria-describedby': `${tid}-note`,
  });
  const button = h('button', { type: 'button', class: 'btn embed-copy', text: label });
  button.addEventListener('click', async () => {
    const ok = await copyText(textarea.value, textarea);
    status.textContent = ok
      ? `The ${kind} snippet is on the clipboard.`
      : `Could not copy: the ${kind} snippet is selected, press Ctrl+C (⌘C on a Mac).`;
    button.textContent = ok ? 'Copied ✓' : 'Select and copy';
    button.classList.toggle('copied', ok);
    clearTimeout(button.resetTimer);
    button.resetTimer = setTimeout(() => {
      button.textContent = label;
      button.classList.remove('copied');
    }, 2500);
  });
  const config = route.config?.(ctx);
  const section = h(
    'section',
    { class: 'embed-snippet', 'data-snippet': route.id },
    h('h3', {}, h('label', { for: tid, text: route.title })),
    textarea,
    h('div', { class: 'embed-row' }, button),
    h('p', { class: 'embed-note', id: `${tid}-note` }, noteNodes(route.note(ctx))),
    config &&
      h(
        'pre',
        { class: 'embed-config', 'aria-label': `${config.file}, to load the charts from this host` },
        h('code', { text: `# ${config.file}\n${config.text}` }),
      ),
  );
  return { route, textarea, section };
}

/** The options form: charts, controls, theme; read() gives the current choice. */
function optionsForm(id) {
  const panelBoxes = embeddablePanels().map((name) => {
    const cid = id(name);
    const input = h('input', { type: 'checkbox', id: cid, value: name, checked: name === 'spread' });
    return {
      name,
      input,
      el: h(
        'span',
        { class: 'embed-choice' },
        input,
        h('label', { for: cid, text: PANELS[name].meta?.title ?? name }),
      ),
    };
  });
  const radios = (group, choices) =>
    choices.map(([value, label], i) => {
      const rid = id(`${group}-${value}`);
      const input = h('input', { type: 'radio', id: rid, name: `embed-${group}`, value, checked: i === 0 });
      return {
        value,
        input,
        el: h('span', { class: 'embed-choice' }, input, h('label', { for: rid, text: label })),
      };
    });
  const controlRadios = radios(
    'controls',
    CONTROL_CHOICES.map((c) => [c.id, c.label]),
  );
  const themeRadios = radios('theme', THEME_CHOICES);
  // The drill: its whole set, or one question alone (with the page's seed).
  const questionId = id('question');
  const question = h(
    'select',
    { id: questionId },
    h('option', { value: '', text: 'every question, one at a time' }),
    PANELS.predict.meta.questions.map((q) => h('option', { value: q.id, text: q.title })),
  );
  const drill = h(
    'fieldset',
    { class: 'embed-drill' },
    h('legend', { text: 'Test yourself' }),
    h('label', { for: questionId, text: 'Questions ' }),
    question,
  );
  const fieldset = (legend, items) =>
    h(
      'fieldset',
      {},
      h('legend', { text: legend }),
      items.map((b) => b.el),
    );
  const form = h(
    'form',
    { class: 'embed-options', method: 'dialog' },
    fieldset('Charts', panelBoxes),
    fieldset('Controls in the embed', controlRadios),
    fieldset('Theme', themeRadios),
    drill,
  );
  const read = () => {
    const panels = panelBoxes.filter((b) => b.input.checked).map((b) => b.name);
    const choice =
      CONTROL_CHOICES.find((c) => c.id === controlRadios.find((r) => r.input.checked)?.value) ??
      CONTROL_CHOICES[0];
    drill.hidden = !panels.includes('predict');
    return {
      panels: panels.length ? panels : ['spread'],
      choice,
      theme: themeRadios.find((r) => r.input.checked)?.value ?? 'auto',
      question: question.value,
    };
  };
  return { form, read };
}

/** The drill's seed and questions on the page, with `question` alone if one is chosen: [name, value] pairs. */
function drillAttributes(app, question) {
  const q = new URLSearchParams(app.panelQuery(['predict']));
  if (question) {
    q.delete('questions');
    q.set('question', question);
  }
  return [...q.entries()];
}

function build(app, base) {
  let uid = 0;
  const id = (s) => `embed-${s}-${++uid}`;
  const status = h('p', { class: 'embed-status', role: 'status', 'aria-live': 'polite' });
  const summary = h('p', { class: 'embed-summary' });
  const { form, read } = optionsForm(id);
  const ctx = { base: base.href, cdn: cdnBase(version) };
  const blocks = ROUTES.map((route) => snippetBlock(route, ctx, id, status));

  const offline = h(
    'p',
    { class: 'embed-offline' },
    h('strong', { text: 'Offline: ' }),
    h('a', {
      href: new URL('attnscale-offline.html', base).href,
      download: 'attnscale-offline.html',
      text: 'download attnscale-offline.html',
    }),
    ', this whole page in one file that works without a network (open it from a USB stick or a static site).',
  );

  const titleId = id('title');
  const close = h('button', { type: 'button', class: 'btn', text: 'Close' });
  const el = h(
    'dialog',
    { class: 'embed-dialog', 'aria-labelledby': titleId },
    h('div', { class: 'embed-head' }, h('h2', { id: titleId, text: 'Embed this view' }), close),
    summary,
    form,
    blocks.map((b) => b.section),
    status,
    offline,
  );
  close.addEventListener('click', () => el.close());
  el.addEventListener('click', (e) => {
    if (e.target === el) el.close();
  }); // click on the backdrop

  function refresh() {
    const cfg = app.config;
    const { panels, choice, theme, question } = read();
    const controls = choice.fields === 'all' ? app.schema.map((f) => f.name) : choice.fields;
    const titles = Object.fromEntries(panels.map((p) => [p, PANELS[p].meta?.title ?? p]));
    const panelQuery = app.panelQuery(panels.filter((p) => p !== 'predict'));
    const attributes = panels.includes('predict') ? drillAttributes(app, question) : [];
    const s = embedSnippets({
      config: cfg,
      schema: app.schema,
      limits: PAGE_LIMITS,
      panels,
      controls,
      theme,
      base,
      titles,
      panelQuery,
      attributes,
      pictures: Object.fromEntries(panels.map((p) => [p, pictureOf(p)])),
    });
    for (const b of blocks) b.textarea.value = b.route.snippet(s);
    summary.textContent =
      `Every snippet holds the current settings (d_k = ${cfg.dk}, T = ${cfg.seqLen}, scaling ${scaleLabel(cfg.scale, app.schema)}, ` +
      `${cfg.precision}, seed ${fmt(cfg.seed)}, …) and names only those that differ from the defaults. ` +
      `${panelQuery ? 'The training settings go in the iframe only: the web component and the site snippets built on it do not take them. ' : ''}` +
      'The charts are computed live in the reader’s browser.';
    status.textContent = '';
  }
  form.addEventListener('change', refresh);
  return { el, refresh };
}

/** Opens the dialog for the app's current state (built on first use). */
export function openEmbedDialog(app, base = new URL('.', location.href)) {
  if (!dialog) {
    dialog = build(app, base);
    document.body.append(dialog.el);
  }
  dialog.refresh();
  dialog.el.showModal();
}
