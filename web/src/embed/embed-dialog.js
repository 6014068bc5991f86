// The main page's "Embed" dialog: for the current state, the <iframe> snippet and the
// <attn-scale-demo> snippet, with copy buttons (clipboard API, or select + copy as a fallback),
// and the link to the offline single file. Loaded on the first click only.
import { h } from '../ui/dom.js';
import { PANELS } from '../panels/index.js';
import { embeddablePanels } from './embed-options.js';
import { embedSnippets } from './embed-snippets.js';
import { PAGE_LIMITS } from '../state/state.js';
import { fmt, scaleLabel } from '../ui/format.js';
import '../styles/embed-dialog.css';

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

async function copyText(text, textarea) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    /* no permission or no clipboard API: select and copy */
  }
  textarea.focus();
  textarea.select();
  try {
    return document.execCommand('copy');
  } catch {
    return false;
  }
}

function build(app, base) {
  let uid = 0;
  const id = (s) => `embed-${s}-${++uid}`;
  const status = h('p', { class: 'embed-status', role: 'status', 'aria-live': 'polite' });
  const summary = h('p', { class: 'embed-summary' });

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

  const snippetBlock = (kind, title, note, rows) => {
    const tid = id(kind);
    const textarea = h('textarea', {
      id: tid,
      class: 'embed-code',
      readonly: true,
      rows,
      spellcheck: 'false',
      'aria-describedby': `${tid}-note`,
    });
    const button = h('button', { type: 'button', class: 'btn embed-copy', text: `Copy the ${kind} snippet` });
    button.addEventListener('click', async () => {
      const ok = await copyText(textarea.value, textarea);
      status.textContent = ok
        ? `The ${kind} snippet is on the clipboard.`
        : `Could not copy: the ${kind} snippet is selected, press Ctrl+C (⌘C on a Mac).`;
      button.textContent = ok ? 'Copied ✓' : 'Select and copy';
      button.classList.toggle('copied', ok);
      clearTimeout(button.resetTimer);
      button.resetTimer = setTimeout(() => {
        button.textContent = `Copy the ${kind} snippet`;
        button.classList.remove('copied');
      }, 2500);
    });
    const section = h(
      'section',
      { class: 'embed-snippet', 'data-snippet': kind },
      h('h3', {}, h('label', { for: tid, text: title })),
      textarea,
      h('div', { class: 'embed-row' }, button),
      h('p', { class: 'embed-note', id: `${tid}-note`, text: note }),
    );
    return { textarea, section };
  };
  const iframe = snippetBlock(
    'iframe',
    'As an iframe (any site, any CMS)',
    'The script line sizes the frame to its content; a site that forbids inline scripts can drop it and keep the fixed height.',
    9,
  );
  const component = snippetBlock(
    'web component',
    'As a web component (pages where you can add a script)',
    'One module script and one element; several elements on a page share one engine. Change its attributes from your own code and it updates.',
    4,
  );

  const form = h(
    'form',
    { class: 'embed-options', method: 'dialog' },
    h(
      'fieldset',
      {},
      h('legend', { text: 'Charts' }),
      panelBoxes.map((b) => b.el),
    ),
    h(
      'fieldset',
      {},
      h('legend', { text: 'Controls in the embed' }),
      controlRadios.map((r) => r.el),
    ),
    h(
      'fieldset',
      {},
      h('legend', { text: 'Theme' }),
      themeRadios.map((r) => r.el),
    ),
  );

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
    iframe.section,
    component.section,
    status,
    offline,
  );
  close.addEventListener('click', () => el.close());
  el.addEventListener('click', (e) => {
    if (e.target === el) el.close();
  }); // click on the backdrop

  function refresh() {
    const cfg = app.config;
    let panels = panelBoxes.filter((b) => b.input.checked).map((b) => b.name);
    if (!panels.length) panels = ['spread'];
    const choice =
      CONTROL_CHOICES.find((c) => c.id === controlRadios.find((r) => r.input.checked)?.value) ??
      CONTROL_CHOICES[0];
    const controls = choice.fields === 'all' ? app.schema.map((f) => f.name) : choice.fields;
    const theme = themeRadios.find((r) => r.input.checked)?.value ?? 'auto';
    const titles = Object.fromEntries(panels.map((p) => [p, PANELS[p].meta?.title ?? p]));
    const panelQuery = app.panelQuery(panels);
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
    });
    iframe.textarea.value = s.iframe;
    component.textarea.value = s.component;
    summary.textContent =
      `Both snippets hold the current settings (d_k = ${cfg.dk}, T = ${cfg.seqLen}, scaling ${scaleLabel(cfg.scale)}, ` +
      `${cfg.precision}, seed ${fmt(cfg.seed)}, …) and name only those that differ from the defaults. ` +
      `${panelQuery ? 'The training settings go in the iframe only: the web component does not take them. ' : ''}` +
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
