// <attn-scale-demo>: attnscale's charts inside any page, from one ES module script.
//
//   <script type="module" src="…/attn-scale-demo.js"></script>
//   <attn-scale-demo panel="spread,sigma" dk="128" scale="none" controls="dk,scale" theme="auto"></attn-scale-demo>
//
// Attributes: every config field of the engine's schema in kebab-case (dk, seq-len, scale, precision,
// saturate, subtract-max, softmax, block-size, causal, mean, std, correlation, seed), read with
// the URL's rules (state.js: clamped or reset, with a notice shown inside the element); `panel`
// (one name or a comma list of the panel registry); `controls` (none by default, `all`, or a list
// of fields); `theme` (light | dark | auto); `page` (the full page that "Open in attnscale" links
// to, http(s) only; see fullPageUrl); `quiz`, `questions` and `question` (the drill's set, as in
// embed.html's URL). Attribute changes apply live; `el.config` is the config in
// use.
//
// Isolation both ways: everything renders in a Shadow DOM with its own constructed stylesheet;
// inherited properties are reset at the shadow's root and rem units are replaced by a fixed unit,
// so the host's `* { … }` or `html { font-size }` rules do not reach in, and nothing reaches out.
// Every instance on a page shares one engine client (worker-client.js: one foreground and one
// background Worker for the whole page).
//
// Failures a reader can see: the element's own children (e.g. <a href="…">Open the demo</a>) stay
// shown, through a <slot>, until the first chart is drawn, so the element degrades to them when
// its script cannot load at all (it is then an unknown element showing its children) or the
// engine cannot start. The charts' code (app.js and embed-options.js, which bring uPlot and the
// panels) is loaded after the element is defined: if it fails to load, the element says so
// instead of staying on "Starting the engine…".
import { getEngineClient } from '../compute/worker-client.js';
import { serialize, schemaDefaults, noticeText, PAGE_LIMITS } from '../state/state.js';
import { h } from '../ui/dom.js';
import { noticeBox } from '../ui/notice.js';
import { fullPageUrl as fullPageFor } from './full-page-url.js';
import panelsCss from '../styles/panels.css?inline';
import panelStylesCss from '../panels/index.css?inline';
import componentCss from '../styles/component.css?inline';
import dockCss from '../styles/dock.css?inline';
import touchCss from '../styles/touch.css?inline';

const TAG = 'attn-scale-demo';
// quiz, questions, question: the drill's set (panel "predict"), read as in embed.html's URL.
const DRILL_ATTRIBUTES = ['quiz', 'questions', 'question'];
const OPTION_ATTRIBUTES = new Set(['panel', 'controls', 'src', 'quiz', 'questions', 'question']);
const PAGE_ATTRIBUTE = 'page';

let charts = null;
/** The charts' code, loaded once: { createApp, attributeMap, parsePanels, … } (embed-options.js). */
const loadCharts = () =>
  (charts ??= Promise.all([import('../app/app.js'), import('./embed-options.js')]).then(([app, options]) => ({
    ...options,
    createApp: app.createApp,
  })));

// The module's URL is held in a variable so that the bundler leaves it alone.
const MODULE_URL = import.meta.url;

let sheet = null;
/**
 * One stylesheet object shared by every instance (adoptedStyleSheets: a constructed sheet, which a
 * strict CSP `style-src 'self'` allows, unlike a <style> element). `rem` is relative to the host
 * page's <html> font size, so it becomes a fixed unit here.
 */
function shadowSheet() {
  if (!sheet) {
    sheet = new CSSStyleSheet();
    sheet.replaceSync(
      [panelsCss, panelStylesCss, componentCss, dockCss, touchCss]
        .join('\n')
        .replace(/(\d*\.?\d+)rem\b/g, 'calc($1 * var(--as-rem))'),
    );
  }
  return sheet;
}

export class AttnScaleDemo extends HTMLElement {
  #root;
  #optionNotices;
  #appNotices;
  #body;
  #controls;
  #dock;
  #panels;
  #fullLink;
  #status;
  #app = null;
  #schema = null;
  #charts = null; // the loaded charts' code (loadCharts)
  #generation = 0;
  #observer = null;
  #colorScheme = null;
  #fallback;
  #query = '';

  #fullPage() {
    return fullPageFor(this.getAttribute(PAGE_ATTRIBUTE), MODULE_URL, document.baseURI);
  }

  constructor() {
    super();
    // The room the snippet reserved (embed-snippets.js reserveStyle), its fallback link included,
    // read before the shadow root renders: the spacer below keeps exactly it.
    const reserved = this.#reservedExtra();
    const shadow = this.attachShadow({ mode: 'open' });
    shadow.adoptedStyleSheets = [shadowSheet()];
    this.#optionNotices = h('div', { class: 'as-option-notices' });
    this.#appNotices = h('div', { class: 'as-app-notices' });
    this.#controls = h('div', { class: 'as-controls', hidden: true });
    this.#panels = h('div', { class: 'as-panels' });
    this.#body = h('div', { class: 'as-body' }, this.#controls, this.#panels);
    this.#dock = h('div', { class: 'as-dock-slot' });
    this.#status = h('span', { class: 'as-status', text: 'Starting the engine…' });
    this.#fullLink = h('a', {
      href: fullPageFor(null, MODULE_URL),
      target: '_blank',
      rel: 'noopener',
      text: 'Open in attnscale ↗',
    });
    this.#fallback = h('div', { class: 'as-fallback' }, h('slot'));
    this.#root = h(
      'div',
      { class: 'as-root', part: 'root' },
      h('div', { class: 'as-reserve', 'aria-hidden': 'true' }),
      this.#fallback,
      h('div', { class: 'as-notices' }, this.#optionNotices, this.#appNotices),
      this.#body,
      this.#dock,
      h('p', { class: 'as-foot' }, this.#fullLink, ' ', this.#status),
    );
    if (reserved !== null) this.#root.style.setProperty('--as-reserve-extra', `${reserved}px`);
    shadow.append(this.#root);
    this.#root.addEventListener('attnscale:first-chart', () => {
      this.#fallback.hidden = true;
    });
  }

  /**
   * With a reserved height (--attnscale-height): what the element's content adds to it before the
   * upgrade (the fallback link, in the host's font), in px; else null. One layout read, only then.
   */
  #reservedExtra() {
    if (!this.isConnected) return null;
    const style = getComputedStyle(this);
    if (!style.getPropertyValue('--attnscale-height').trim()) return null;
    return Math.max(0, this.getBoundingClientRect().height - parseFloat(style.paddingBottom || '0'));
  }

  /** The panels' titles continue the host page's outline: one level below its last heading before the element. */
  #headingLevels() {
    let level = 2;
    for (const hd of document.querySelectorAll('h1, h2, h3, h4, h5, h6'))
      if (hd.compareDocumentPosition(this) & Node.DOCUMENT_POSITION_FOLLOWING)
        level = Number(hd.tagName[1]) + 1;
    level = Math.min(level, 5);
    for (const hd of this.shadowRoot.querySelectorAll('h3')) hd.setAttribute('aria-level', String(level));
    for (const hd of this.shadowRoot.querySelectorAll('h4')) hd.setAttribute('aria-level', String(level + 1));
  }

  /** The config in use (engine field names), or null before the engine is ready. */
  get config() {
    return this.#app ? this.#app.config : null;
  }

  connectedCallback() {
    this.#fullLink.href = this.#fullPage();
    this.#observer = new MutationObserver((records) => this.#attributesChanged(records));
    this.#observer.observe(this, { attributes: true });
    this.#colorScheme = matchMedia('(prefers-color-scheme: dark)');
    this.#colorScheme.addEventListener('change', this.#redraw);
    this.#mount(null);
  }

  disconnectedCallback() {
    this.#observer?.disconnect();
    this.#colorScheme?.removeEventListener('change', this.#redraw);
    this.#generation += 1;
    this.#app?.destroy();
    this.#app = null;
  }

  #redraw = () => this.#app?.redraw();

  /** Notices about panel / controls / theme (the app shows the config's own notices). */
  #optionNoticeLists = { panel: [], controls: [], theme: [] };
  #renderOptionNotices() {
    const lines = Object.values(this.#optionNoticeLists).flat().map(noticeText);
    this.#optionNotices.replaceChildren(...(lines.length ? [noticeBox(lines, 'warning')] : []));
  }

  /** Builds (or rebuilds) the app: panels and controls from the attributes, state from `query`. */
  async #mount(query) {
    const gen = ++this.#generation;
    this.#app?.destroy();
    this.#app = null;
    const loaded = await this.#engineAndCharts(gen);
    if (!loaded || gen !== this.#generation || !this.isConnected) return;
    const { schema, mod } = loaded;
    this.#charts = mod;
    this.#schema = schema;
    const { panels, fields } = this.#readOptions(mod, schema);
    const panelEls = this.#panelSlots(panels);
    // The panels take the fallback's place now, while they are still empty: nothing seen moves.
    this.#fallback.hidden = true;
    this.#showControls(fields);
    await this.#startApp(gen, mod, {
      panelEls,
      fields,
      query: query ?? this.#withDrill(mod.attributesToQuery((n) => this.getAttribute(n), schema)),
    });
  }

  /** `query` with the drill's attributes (quiz, questions, question) added as they are written. */
  #withDrill(query) {
    const q = new URLSearchParams(query);
    for (const n of DRILL_ATTRIBUTES) if (this.hasAttribute(n)) q.set(n, this.getAttribute(n));
    return q.toString();
  }

  /** The engine's schema and the charts' code, loaded side by side; null (and said) if either fails. */
  async #engineAndCharts(gen) {
    const client = getEngineClient();
    const code = loadCharts(); // loads while the engine starts
    code.catch(() => {});
    let ready;
    try {
      ready = await client.ready;
    } catch (err) {
      if (gen === this.#generation) this.#fail(`The compute engine could not start: ${err.message}`);
      return null;
    }
    try {
      return { schema: ready.schema, mod: await code };
    } catch (err) {
      if (gen === this.#generation)
        this.#fail(`The charts' code could not load: ${err?.name ?? 'Error'}: ${err?.message ?? err}`);
      return null;
    }
  }

  /** The `panel`, `controls` and `theme` attributes, read with their rules; their notices shown. */
  #readOptions({ parsePanels, parseControls, parseTheme }, schema) {
    const attr = (n) => this.getAttribute(n);
    const { panels, notices: panelNotices } = parsePanels(attr('panel'));
    const { fields, notices: controlNotices } = parseControls(attr('controls'), schema);
    const { notices: themeNotices } = parseTheme(attr('theme'));
    this.#optionNoticeLists = { panel: panelNotices, controls: controlNotices, theme: themeNotices };
    this.#renderOptionNotices();
    return { panels, fields };
  }

  /** One element per panel, in order: { name: element }. */
  #panelSlots(panels) {
    const panelEls = {};
    this.#panels.replaceChildren(
      ...panels.map((name) => {
        // The report panel reads the file named by `src` (same origin, or served with CORS).
        const src = name === 'report' ? this.getAttribute('src') : null;
        panelEls[name] = h('div', {
          'data-panel': name,
          'data-src': src,
          class: `as-panel as-panel-${name}`,
        });
        return panelEls[name];
      }),
    );
    this.#panels.dataset.count = String(panels.length);
    return panelEls;
  }

  #showControls(fields) {
    this.#controls.replaceChildren();
    this.#dock.replaceChildren();
    this.#controls.hidden = !fields;
    this.#body.classList.toggle('has-controls', !!fields);
  }

  async #startApp(gen, { createApp }, { panelEls, fields, query }) {
    try {
      const app = await createApp({
        root: this.#root,
        panels: panelEls,
        controls: fields ? this.#controls : null,
        controlFields: fields,
        dock: this.#dock,
        notices: this.#appNotices,
        query,
        presetHref: () => this.#fullPage(),
        onConfigChange: (config, q) => {
          this.#query = q;
          this.#fullLink.href = `${this.#fullPage()}?${q}`;
        },
      });
      if (gen !== this.#generation) {
        app.destroy();
        return;
      }
      this.#app = app;
      this.#headingLevels();
      const { info } = app;
      this.#status.textContent = `Computed live by the attnscale engine (${info.simd ? 'WebAssembly SIMD' : 'WebAssembly, scalar'}).`;
    } catch {
      // createApp has already put its notice in the element; the host page goes on.
      if (gen === this.#generation) this.#status.textContent = '';
    }
  }

  /** A message in place of the charts (the element's own children stay shown beside it). */
  #fail(message) {
    this.#root.dataset.state = 'failed';
    this.#status.textContent = '';
    this.#appNotices.replaceChildren(noticeBox([message], 'error'));
  }

  /** Attribute changes: config fields apply in place; panel/controls rebuild; theme repaints. */
  #attributesChanged(records) {
    const names = new Set(records.map((r) => r.attributeName));
    const schema = this.#schema;
    if (!schema || !this.#app) {
      // Still starting: start over, so that the attributes are read as a whole.
      if (
        names.has('panel') ||
        names.has('controls') ||
        (schema && [...names].some((n) => this.#charts.attributeMap(schema).has(n)))
      )
        this.#mount(null);
      return;
    }
    const partial = this.#changedConfig(names, schema);
    if ([...names].some((n) => OPTION_ATTRIBUTES.has(n))) {
      this.#rebuildWith(partial, schema);
      return;
    }
    if (names.has(PAGE_ATTRIBUTE)) this.#fullLink.href = `${this.#fullPage()}?${this.#query}`;
    if (names.has('theme')) {
      this.#optionNoticeLists.theme = this.#charts.parseTheme(this.getAttribute('theme')).notices;
      this.#renderOptionNotices();
      this.#app.redraw();
    }
    if (Object.keys(partial).length) this.#app.set(partial);
  }

  /** The config fields among the changed attributes: { field: value } (a removed one: its default). */
  #changedConfig(names, schema) {
    const { attributeMap, attributeValue } = this.#charts;
    const attrs = attributeMap(schema);
    const byName = new Map(schema.map((f) => [f.name, f]));
    const defaults = schemaDefaults(schema, PAGE_LIMITS);
    const partial = {};
    for (const n of names) {
      const field = attrs.get(n);
      if (!field) continue;
      const v = this.getAttribute(n);
      partial[field] = v === null ? String(defaults[field]) : attributeValue(byName.get(field), v);
    }
    return partial;
  }

  /**
   * New panels or controls: rebuild, keeping the state (the current config plus the changed
   * fields, which the rebuild reads with the URL's rules and notices).
   */
  #rebuildWith(partial, schema) {
    const q = new URLSearchParams(serialize(this.#app.config, schema));
    for (const [k, v] of Object.entries(partial)) q.set(k, v);
    this.#mount(this.#withDrill(q.toString()));
  }
}

if (!customElements.get(TAG)) customElements.define(TAG, AttnScaleDemo);
