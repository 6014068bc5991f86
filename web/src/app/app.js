// The app: wires one state (the config) to the compute Worker, the controls and any subset of
// the chart panels, inside whatever elements it is given. No page globals: the page, a web
// component (Shadow DOM) or an embed each call createApp with their own elements.
//
// Data flows one way: control / preset / URL → state (validated against the engine's schema)
// → Worker (run; sweep and variants only when their inputs changed) → panels.
// A panel may keep settings of its own in the URL (the training panel): its API's `urlState`
// { set(query) → notices, query() } is read with the page's fields and written back with them.
import { getEngineClient } from '../compute/worker-client.js';
import { parseQuery, applyChange, serialize, keyOf, sameConfig, noticeText, schemaDefaults, PAGE_LIMITS } from '../state/state.js';
import { PANELS } from '../panels/index.js';
import { thresholdsConfig } from '../panels/meta.js';
import { whenNear } from '../ui/when-near.js';
import { PRESETS } from '../state/presets.js';
import { h, uniquePrefix } from '../ui/dom.js';
import { engineNotes, showEngineNotes, showUnavailable, panelSummary, createAnnouncer } from './app-status.js';
import { SWEEP_SCALES } from '../charts/common.js';

const SWEEP_OMIT = ['dk', 'scale'];
const VARIANTS_OMIT = ['softmax', 'subtractMax'];

/** Powers of two within the schema's d_k range: the sweep's x values. */
function sweepDks(schema) {
  const f = schema.find((x) => x.name === 'dk');
  const lo = f?.min ?? 1, hi = f?.max ?? 4096;
  const out = [];
  for (let p = 1; p <= hi; p *= 2) if (p >= lo) out.push(p);
  return out;
}

/**
 * createApp({ root, panels: { name: element }, controls?, controlFields?, presets?, notices,
 *             query?, onConfigChange?, presetHref?, client?, limits? }) → Promise<app>
 */
export async function createApp({
  root,
  panels: panelEls = {},
  controls: controlsEl = null,
  controlFields = null,
  presets: presetsEl = null,
  notices: noticeEl,
  query = '',
  onConfigChange = () => {},
  presetHref = (chart) => `#chart-${chart}`,
  client = getEngineClient(),
  limits = PAGE_LIMITS,
}) {
  root.dataset.state = 'loading';
  // The panels' and controls' code downloads while the engine boots.
  const wanted = Object.entries(panelEls).filter(([name, el]) => PANELS[name] && el);
  const modsLoading = Promise.all(wanted.map(([name]) => PANELS[name].load()));
  const controlsLoading = controlsEl ? import('../ui/controls.js') : null; // only where controls are shown
  for (const p of [modsLoading, controlsLoading]) p?.catch(() => {});
  let ready;
  try {
    ready = await client.ready;
  } catch (err) {
    root.dataset.state = 'failed';
    showNotices([`The compute engine could not start: ${err.message}`], 'error');
    showUnavailable(panelEls); // a message in place of each chart, never an empty frame
    throw err;
  }
  performance.mark('attnscale:engine-ready');
  if (Number.isFinite(ready.bootMs)) root.dataset.engineBootMs = ready.bootMs.toFixed(1);
  const { schema, info } = ready;
  // Scalar build or main-thread compute: said once, visibly; and one polite live summary.
  const engineNote = showEngineNotes(noticeEl, engineNotes(info, client.mode, client.workerRefusal));
  const announcer = createAnnouncer(noticeEl);
  const defaults = schemaDefaults(schema, limits);
  const dks = sweepDks(schema);
  let config;
  let lastSweepKey = null, lastVariantsKey = null, lastThresholdsKey = null;
  const panels = new Map();
  let firstDrawn = false;

  function showNotices(lines, kind = 'warning') {
    if (!noticeEl || !lines.length) return;
    const box = h('div', { class: `notice ${kind}`, role: kind === 'error' ? 'alert' : 'status' },
      h('p', { class: 'notice-title', text: kind === 'error' ? 'Something went wrong' : 'Some values were adjusted' }),
      h('ul', {}, lines.map((l) => h('li', { text: l }))),
      h('button', { type: 'button', class: 'btn small', text: 'Dismiss', onclick: () => box.remove() }));
    noticeEl.replaceChildren(box);
  }

  // --- panels ---
  const panelCtx = (name, el) => ({
    onDrawn() {
      if (el.dataset.drawn !== 'true') el.dataset.drawn = 'true';
      if (!firstDrawn) {
        firstDrawn = true;
        performance.mark('attnscale:first-chart');
        root.dispatchEvent(new CustomEvent('attnscale:first-chart', { bubbles: true, composed: true }));
      }
    },
    // For panels that compute on their own (training): the engine client, the training schema,
    // the page's current config, and a way to change it (as a control would).
    client,
    trainSchema: ready.trainSchema,
    get config() { return config ? { ...config } : null; },
    setConfig: (partial) => set(partial),
    onUrlStateChange: () => { if (config) publish(); },
  });
  // The first run and the background jobs are sent before the panels are mounted, so the Workers
  // compute while this thread builds the charts. What they answer reaches the panels mounted so
  // far at once, and each panel mounted later gets it replayed (`backlog`); what concerns the whole
  // app (its state, counters, notices) waits until every panel, the controls and the presets are
  // in place, and is then done in order.
  let mounted = false, firstResultIn = false;
  const early = [];
  const backlog = [];
  const whenMounted = (fn) => (mounted ? fn() : early.push(fn));
  const metas = wanted.map(([name]) => PANELS[name].meta);
  const wantsSweep = metas.some((m) => m.sweep);
  const variants = metas.map((m) => m.variants).find(Boolean) ?? null;
  // The thresholds table measures once it comes near the viewport (when-near.js), then follows
  // the setting like the other panels.
  const thresholdsEl = wanted.find(([name]) => PANELS[name].meta.thresholds)?.[1] ?? null;
  let thresholdsNear = false;
  const each = (method, ...args) => {
    if (!mounted) backlog.push([method, args]);
    for (const p of panels.values()) p.api[method]?.(...args);
  };
  const urlStates = () => [...panels.values()].map((p) => p.api.urlState).filter(Boolean);
  /** The whole state as a URL query: every config field, then the panels' non-default settings. */
  const fullQuery = () => [serialize(config, schema), ...urlStates().map((u) => u.query())].filter(Boolean).join('&');
  const publish = () => onConfigChange(config, fullQuery());

  /** What a run's result means for the whole app (once everything is mounted). */
  function showRun(result, cfg, updateMs) {
    announcer.announce(() => [...panels.values()].map((p) => panelSummary(p.el)).find(Boolean));
    // Timings of the last result, for the budgets script: engine time in the Worker and the
    // main thread's panel update time.
    root.dataset.workerMs = result.workerMs.toFixed(1);
    root.dataset.engineMs = (result.timeMs ?? NaN).toFixed(1);
    root.dataset.updateMs = updateMs.toFixed(1);
    const tm = result.timing;
    if (tm) root.dataset.timing = [tm.startedAt - tm.sentAt, tm.postedAt - tm.startedAt, tm.receivedAt - tm.postedAt, tm.sentAt].map((x) => x.toFixed(1)).join(',');
    root.dataset.state = 'ready';
    lastGood = cfg;
    root.dataset.resultQuery = serialize(cfg, schema);
    if (counters.runResults === 0) performance.mark('attnscale:first-result');
    counters.runResults += 1;
    publishCounters();
  }

  // --- compute ---
  const session = client.openSession({
    onRun: (result, cfg) => {
      const t0 = performance.now();
      each('update', result, cfg);
      const updateMs = performance.now() - t0;
      firstResultIn = true;
      whenMounted(() => showRun(result, cfg, updateMs));
      flushBackground(); // the Workers go on while this thread is busy
    },
    onSweepPoints(points, m) {
      each('sweepPoints', points);
      // When the sweep Worker started this job, after it was asked (the stale work before it).
      root.dataset.sweepTiming = `${m.sentAt.toFixed(1)},${m.startedAt.toFixed(1)}`;
    },
    onSweepDone: () => each('sweepDone'),
    onVariantPoint: (i, p) => each('variantPoint', i, p),
    onVariantsDone: () => each('variantsDone'),
    onThresholdsCells: (cells) => each('thresholdsCells', cells),
    onThresholdsDone: () => each('thresholdsDone'),
    onError: (m) => whenMounted(() => {
      if (m.memory) { outOfMemory(m); return; }
      if (m.kind !== 'run') {
        showNotices([`The ${m.kind} computation failed: ${m.message}`], 'error');
        if (m.kind === 'sweep') each('sweepFailed', `The sweep stopped: ${m.message}`);
        if (m.kind === 'thresholds') each('thresholdsFailed', `The thresholds search stopped: ${m.message}`);
        return;
      }
      // The engine is the final judge of a config. Reset the field it names (or everything).
      const field = schema.find((f) => new RegExp(`\\b${f.name}\\b`).test(m.message));
      const reset = field ? { [field.name]: defaults[field.name] } : defaults;
      showNotices([`The engine rejected the setting (${m.message}); ${field ? `${field.name} reset to ${defaults[field.name]}` : 'all settings reset to their defaults'}.`]);
      set(reset, { force: true });
    }),
  });

  // The engine could not get the memory a request needs: say which setting, keep the charts of the
  // last one that worked (a failed run: back to that setting; a failed sweep: its curves stay).
  let lastGood = null;
  const size = (c) => `T = ${c.seqLen}, d_k = ${c.dk}`;
  function outOfMemory(m) {
    const why = 'needs more memory than this browser gives the engine';
    if (m.kind === 'run') {
      const failed = m.cfg ?? config;
      const back = lastGood && !sameConfig(lastGood, failed, schema) ? lastGood : { ...config, seqLen: defaults.seqLen, dk: defaults.dk };
      showNotices([`The setting ${size(failed)} ${why}. The charts show ${size(back)}, the last setting that worked; `
        + 'a smaller T or d_k needs less.'], 'error');
      set(back, { force: true, base: back });
      return;
    }
    const what = m.kind === 'sweep' ? `The d_k sweep at T = ${config.seqLen} (up to d_k = ${dks[dks.length - 1]})`
      : m.kind === 'thresholds' ? 'The overflow thresholds search' : `The softmax variants at ${size(config)}`;
    showNotices([`${what} ${why}. The charts keep what was computed before.`], 'error');
    if (m.kind === 'sweep') each('sweepFailed', `${what} ${why}; the curves drawn are the last that could be computed.`);
    if (m.kind === 'thresholds') each('thresholdsFailed', `${what} ${why}.`);
  }

  // Observable counters (data-* on the root) so tests can check coalescing and sweep reuse.
  const counters = { runRequests: 0, runResults: 0, sweepRequests: 0, variantRequests: 0, thresholdsRequests: 0 };
  const publishCounters = () => {
    for (const [k, v] of Object.entries(counters)) root.dataset[k] = String(v);
  };

  // Background jobs (sweeps, variants) are sent once the foreground result for the same change
  // is on screen: they never compete with the answer to a slider move.
  let backgroundDue = false;
  function flushBackground() {
    if (!backgroundDue || session.busy) return;
    backgroundDue = false;
    if (wantsSweep) {
      const k = keyOf(config, schema, SWEEP_OMIT);
      if (k !== lastSweepKey) {
        lastSweepKey = k;
        const cfg = { ...config };
        for (const o of SWEEP_OMIT) delete cfg[o];
        each('sweepReset', dks.length * SWEEP_SCALES.length);
        session.sweep(cfg, dks, SWEEP_SCALES);
        counters.sweepRequests += 1;
      }
    }
    if (variants) {
      const k = keyOf(config, schema, VARIANTS_OMIT);
      if (k !== lastVariantsKey) {
        lastVariantsKey = k;
        each('variantsReset');
        session.variants(config, variants);
        counters.variantRequests += 1;
      }
    }
    if (thresholdsEl && thresholdsNear) {
      const cfg = thresholdsConfig(config);
      const k = JSON.stringify(cfg);
      if (k !== lastThresholdsKey) {
        lastThresholdsKey = k;
        each('thresholdsReset', cfg);
        session.thresholds(cfg, dks);
        counters.thresholdsRequests += 1;
      }
    }
    publishCounters();
  }

  function compute() {
    counters.runRequests += 1;
    session.run(config);
    backgroundDue = true;
    publishCounters();
  }
  if (thresholdsEl) {
    whenNear(thresholdsEl, () => {
      thresholdsNear = true;
      backgroundDue = true;
      if (config) flushBackground();
    });
  }
  // The URL's setting is sent at once (its notices are shown by setQuery below).
  config = parseQuery(query, schema, { limits }).config;
  compute();

  // Each panel's code was fetched in parallel; mounted in the order given. Until the first result
  // is in, this thread yields between panels, so that the first chart is drawn as soon as both its
  // panel and the result exist.
  const mods = await modsLoading;
  for (const [i, [name, el]] of wanted.entries()) {
    const api = mods[i].mount(el, panelCtx(name, el));
    panels.set(name, { mod: mods[i], el, api });
    for (const [method, args] of backlog) api[method]?.(...args);
    if (!firstResultIn) await new Promise((resolve) => setTimeout(resolve, 0));
  }

  // --- state ---
  let controls = null;
  let presetButtons = [];
  let presetNote = null;
  /** Applies a change; false when the config stayed the same. */
  function set(partial, { force = false, base = config } = {}) {
    const { config: next, notices } = applyChange(base, partial, schema, limits);
    if (notices.length) showNotices(notices.map(noticeText));
    if (!force && config && sameConfig(next, config, schema)) { controls?.update(config); return false; }
    config = next;
    compute(); // first: the Worker computes while this thread updates the controls and the URL
    controls?.update(config);
    markPreset();
    publish();
    return true;
  }

  /** A whole URL (the first load, back/forward): its notices replace the last URL's, or clear them. */
  function setQuery(q) {
    const { config: next, notices } = parseQuery(q, schema, { limits });
    const panelNotices = urlStates().flatMap((u) => u.set(q));
    const lines = [...notices, ...panelNotices].map(noticeText);
    if (lines.length) showNotices(lines);
    else if (noticeEl?.firstElementChild?.classList.contains('warning')) noticeEl.replaceChildren();
    // Unchanged (the first load: its config was sent before the panels were mounted): the preset
    // marks and the URL still follow it (the panels' settings may have changed).
    if (!set(next, { base: defaults, force: !config })) { markPreset(); publish(); }
  }

  // --- controls & presets ---
  const idPrefix = uniquePrefix();
  if (controlsEl) {
    const { mountControls } = await controlsLoading;
    controls = mountControls(controlsEl, { schema, limits, idPrefix, fields: controlFields, onChange: (p) => set(p) });
  }
  if (presetsEl) {
    const list = h('ol', { class: 'preset-list' });
    presetNote = h('p', { class: 'preset-note', 'aria-live': 'polite' });
    presetButtons = PRESETS.map((p, i) => {
      const b = h('button', {
        type: 'button', class: 'btn preset', 'aria-pressed': 'false', 'data-preset': p.id,
        onclick: () => {
          set(p.set, { base: defaults });
          presetNote.replaceChildren(h('strong', { text: `Step ${i + 1}: ` }), p.note, ' ',
            h('a', { href: presetHref(p.chart), text: 'See the chart' }));
        },
      }, h('span', { class: 'preset-num', text: String(i + 1) }), h('span', { text: p.title }));
      list.append(h('li', {}, b));
      return b;
    });
    presetsEl.append(list, presetNote);
  }
  let presetConfigs = null; // each preset's full config (they start from the defaults)
  function markPreset() {
    if (!presetButtons.length) return;
    presetConfigs ??= PRESETS.map((p) => applyChange(defaults, p.set, schema, limits).config);
    presetButtons.forEach((b, i) => {
      const pressed = String(sameConfig(presetConfigs[i], config, schema));
      if (b.getAttribute('aria-pressed') !== pressed) b.setAttribute('aria-pressed', pressed);
    });
  }

  mounted = true;
  backlog.length = 0;
  for (const fn of early.splice(0)) fn();
  setQuery(query);

  return {
    info,
    schema,
    get config() { return { ...config }; },
    set,
    setQuery,
    /** The named panels' own URL settings that differ from their defaults, as a query ('' if none). */
    panelQuery: (names) => names.map((n) => panels.get(n)?.api.urlState?.query()).filter(Boolean).join('&'),
    /** Repaint every chart (after a theme change). */
    redraw: () => each('redraw'),
    destroy() {
      session.close();
      each('destroy');
      controls?.destroy();
      announcer.destroy();
      engineNote?.remove();
    },
  };
}
