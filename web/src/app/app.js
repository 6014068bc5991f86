// The app: wires one state (the config) to the compute Worker, the controls and any subset of
// the chart panels, inside whatever elements it is given. No page globals: the page, a web
// component (Shadow DOM) or an embed each call createApp with their own elements.
//
// Data flows one way: control / preset / URL → state (validated against the engine's schema)
// → Worker (run; sweep and variants only when their inputs changed) → panels.
// A panel may keep settings of its own in the URL (the training panel): its API's `urlState`
// { set(query) → notices, query() } is read with the page's fields and written back with them.
// The charts' library (uPlot and its wrapper) loads with the app, not with the first panel: if it
// cannot load in this browser, the app's code fails as a whole and the page (load-guard.js) or the
// component says that the charts could not load, instead of each panel failing on its own.
import '../charts/uplot-chart.js';
import { getEngineClient } from '../compute/worker-client.js';
import {
  parseQuery,
  applyChange,
  serialize,
  sameConfig,
  noticeText,
  schemaDefaults,
  PAGE_LIMITS,
} from '../state/state.js';
import { sweepDks } from '../state/choices.js';
import { PANELS } from '../panels/index.js';
import { whenNear } from '../ui/when-near.js';
import { uniquePrefix } from '../ui/dom.js';
import { noticeBox } from '../ui/notice.js';
import {
  engineNotes,
  showEngineNotes,
  showUnavailable,
  panelSummary,
  createAnnouncer,
} from './app-status.js';
import { createBackgroundJobs, panelJobs } from './background-jobs.js';
import { createErrorHandler } from './compute-errors.js';
import { mountPresetButtons } from './preset-buttons.js';
import { panelDelivery, mountPanels } from './panel-delivery.js';
import { panelContexts } from './panel-context.js';

/** A dismissable notice box in `noticeEl` (replacing the last one): warnings, or an error. */
function showNotices(noticeEl, lines, kind = 'warning') {
  if (!noticeEl || !lines.length) return;
  noticeEl.replaceChildren(noticeBox(lines, kind));
}

/** The engine's ready message (marked, its boot time on the root), or (it could not start) the page told so and the error thrown. */
async function engineReady(client, { root, noticeEl, panelEls }) {
  try {
    const ready = await client.ready;
    performance.mark('attnscale:engine-ready');
    if (Number.isFinite(ready.bootMs)) root.dataset.engineBootMs = ready.bootMs.toFixed(1);
    return ready;
  } catch (err) {
    root.dataset.state = 'failed';
    showNotices(noticeEl, [`The compute engine could not start: ${err.message}`], 'error');
    showUnavailable(panelEls); // a message in place of each chart, never an empty frame
    throw err;
  }
}

/** A message's trip in epoch ms: waiting for the Worker, in the Worker, back to the page; as text. */
const tripText = (tm, ...more) =>
  [tm.startedAt - tm.sentAt, tm.postedAt - tm.startedAt, tm.receivedAt - tm.postedAt, ...more]
    .map((x) => x.toFixed(1))
    .join(',');

/** Timings of the last result on the root, for the budgets script: engine time in the Worker and the main thread's panel update time. */
function publishTimings(root, result, updateMs) {
  root.dataset.workerMs = result.workerMs.toFixed(1);
  root.dataset.engineMs = (result.timeMs ?? NaN).toFixed(1);
  root.dataset.updateMs = updateMs.toFixed(1);
  if (result.timing) root.dataset.timing = tripText(result.timing, result.timing.sentAt);
}

/** Starts downloading the panels' code, and the controls' and the dock's where they are shown. */
function startLoading(panelEls, controlsEl, dockEl) {
  const wanted = Object.entries(panelEls).filter(([name, el]) => PANELS[name] && el);
  const mods = Promise.all(wanted.map(([name]) => PANELS[name].load()));
  const controls = controlsEl ? import('../ui/controls.js') : null; // only where controls are shown
  const dock = controlsEl && dockEl ? import('../ui/control-dock.js') : null;
  for (const p of [mods, controls, dock]) p?.catch(() => {});
  return { wanted, mods, controls, dock };
}

/**
 * Observable counters (data-* on the root) so tests can check coalescing and sweep reuse, and what
 * a run's result means for the whole app: → { counters, publishCounters(), showForward(result, cfg,
 * updateMs), showRun(cfg) }. `st.lastGood` becomes the config of each whole result shown.
 */
function runRecord(st, { root, schema, panels, jobs, announcer, onResult }) {
  const counters = { runRequests: 0, runResults: 0, sweepRequests: 0 };
  for (const { job } of jobs) counters[job.counter ?? `${job.kind}Requests`] = 0;
  const publishCounters = () => {
    for (const [k, v] of Object.entries(counters)) root.dataset[k] = String(v);
  };
  return {
    counters,
    publishCounters,
    /** A run's forward on screen (once everything is mounted): data-forward-query names its setting. */
    showForward(result, cfg, updateMs) {
      publishTimings(root, result, updateMs);
      root.dataset.forwardQuery = serialize(cfg, schema);
      if (counters.runResults === 0) performance.mark('attnscale:first-result');
    },
    /** What a run's whole result means for the whole app (once everything is mounted). */
    showRun(cfg) {
      onResult();
      announcer.announce(() => [...panels.values()].map((p) => panelSummary(p.el)).find(Boolean));
      root.dataset.state = 'ready';
      st.lastGood = cfg;
      root.dataset.resultQuery = serialize(cfg, schema);
      counters.runResults += 1;
      publishCounters();
    },
  };
}

/**
 * The app's setting, `st.config`, and how it changes: → { set(partial, { force, base }), setQuery(q),
 * publish({ computing }) }. `ui` holds the controls, the dock and the preset buttons once they are
 * mounted; `compute()` sends the config; `onConfigChange` is createApp's.
 */
function configChanges(st, ui, { schema, limits, defaults, noticeEl, panels, compute, onConfigChange }) {
  const notify = (lines, kind) => showNotices(noticeEl, lines, kind);
  const urlStates = () => [...panels.values()].map((p) => p.api.urlState).filter(Boolean);
  /** The whole state as a URL query: every config field, then the panels' non-default settings. */
  const fullQuery = () =>
    [serialize(st.config, schema), ...urlStates().map((u) => u.query())].filter(Boolean).join('&');
  // `computing`: a run of this config is on its way (onResult follows once it is shown).
  const publish = ({ computing = false } = {}) => onConfigChange(st.config, fullQuery(), { computing });
  const markPreset = () => ui.presetButtons?.mark(st.config);

  /** Applies a change; false when the config stayed the same. */
  function set(partial, { force = false, base = st.config } = {}) {
    const { config: next, notices } = applyChange(base, partial, schema, limits);
    if (notices.length) notify(notices.map(noticeText));
    if (!force && st.config && sameConfig(next, st.config, schema)) {
      ui.controls?.update(st.config);
      ui.dock?.update(st.config);
      return false;
    }
    st.config = next;
    compute(); // first: the Worker computes while this thread updates the controls and the URL
    ui.controls?.update(st.config);
    ui.dock?.update(st.config);
    markPreset();
    publish({ computing: true });
    return true;
  }

  /** A whole URL (the first load, back/forward): its notices replace the last URL's, or clear them. */
  function setQuery(q) {
    const { config: next, notices } = parseQuery(q, schema, { limits });
    const panelNotices = urlStates().flatMap((u) => u.set(q));
    const lines = [...notices, ...panelNotices].map(noticeText);
    if (lines.length) notify(lines);
    else if (noticeEl?.firstElementChild?.classList.contains('warning')) noticeEl.replaceChildren();
    // Unchanged (the first load: its config was sent before the panels were mounted): the preset
    // marks and the URL still follow it (the panels' settings may have changed).
    if (!set(next, { base: defaults, force: !st.config })) {
      markPreset();
      publish();
    }
  }
  return { set, setQuery, publish };
}

/**
 * The compute session's handlers: a run's forward goes to the panels at once, then (once everything
 * is mounted) to `record.showForward`; its whole result to the gradient panel, then `record.showRun`
 * (runRecord's); the background jobs' answers to the panels (a panel's own job's to it: jobMessage).
 */
function sessionHandlers(delivery, record, { root, jobs, flushBackground, onError }) {
  const { each, whenMounted } = delivery;
  const { counters, showForward, showRun } = record;
  return {
    // The forward's panels first; the gradient panel (updateGradients) when the backward is in.
    onRun: (result, cfg) => {
      const t0 = performance.now();
      each('update', result, cfg);
      const updateMs = performance.now() - t0;
      delivery.firstResultIn = true;
      whenMounted(() => showForward(result, cfg, updateMs));
      // After a change, the background jobs go out with the whole result: sooner, they would
      // compete with the gradient panel's trip for the cores. The page's first sweeps go at once
      // (the longest wait of a load), as do the jobs of a result without a backward to come.
      if (!result.backwardPending || counters.runResults === 0) flushBackground();
    },
    onRunGradients: (result, cfg) => {
      flushBackground(); // the Workers go on while this thread is busy
      each('updateGradients', result, cfg);
      // The backward's trip (from the forward's request), for the budgets script.
      if (result.gradientsTiming) root.dataset.gradientsTiming = tripText(result.gradientsTiming);
      whenMounted(() => showRun(cfg));
    },
    sweepPoints(m) {
      each('sweepPoints', m.points, { estimate: !!m.estimate });
      // When the sweep Worker started this job, after it was asked (the stale work before it).
      root.dataset.sweepTiming = `${m.sentAt.toFixed(1)},${m.startedAt.toFixed(1)}`;
    },
    sweepDone: () => each('sweepDone'),
    onJob(m) {
      const owner = jobs.find((j) => j.job.kind === m.job);
      if (owner) delivery.one(owner.panel, 'jobMessage', m);
    },
    onError: (m) => whenMounted(() => onError(m)),
  };
}

/**
 * The compute: the client's session, whose answers go to the panels (`delivery`) and to the app
 * (`record`, runRecord's), and the background jobs of the panels `wanted`: → { session, compute() }.
 * `compute()` sends the run of `st.config` and marks the background jobs due.
 */
function openCompute(client, st, { root, schema, dks, wanted, jobs, delivery, record, onError }) {
  const { counters, publishCounters } = record;
  const names = wanted.map(([name]) => name);
  const session = client.openSession(
    sessionHandlers(delivery, record, { root, jobs, flushBackground, onError }),
  );
  const background = createBackgroundJobs({ session, schema, dks, names, jobs, delivery, counters });
  function flushBackground() {
    if (background.flush(st.config)) publishCounters();
  }
  function compute() {
    counters.runRequests += 1;
    session.run(st.config);
    background.due();
    publishCounters();
  }
  // A job that starts near the viewport (the thresholds table's: when-near.js) measures from
  // then on, and follows the setting like the others.
  for (const [name, el] of wanted)
    if (PANELS[name].meta.job?.startsNear)
      whenNear(el, () => {
        background.near(name);
        if (st.config) flushBackground();
      });
  return { session, compute };
}

/**
 * Mounts into `ui` the controls, the dock and the preset buttons where `els` has an element for
 * them; `opts`: { schema, limits, defaults, controlFields, presetHref, set }.
 */
async function mountControlUi(
  ui,
  loading,
  els,
  { schema, limits, defaults, controlFields, presetHref, set },
) {
  const idPrefix = uniquePrefix();
  if (els.controls) {
    const { mountControls } = await loading.controls;
    ui.controls = mountControls(els.controls, {
      schema,
      limits,
      idPrefix,
      fields: controlFields,
      onChange: (p) => set(p),
    });
  }
  if (loading.dock) {
    const { mountDock } = await loading.dock;
    ui.dock = mountDock(els.dock, {
      schema,
      limits,
      idPrefix,
      fields: controlFields,
      settings: els.controls,
      onChange: (p) => set(p),
    });
    els.root.classList.toggle('has-dock', !!ui.dock);
  }
  if (els.presets)
    ui.presetButtons = mountPresetButtons(els.presets, { defaults, schema, limits, presetHref, set });
}

/**
 * createApp({ root, panels: { name: element }, controls?, controlFields?, dock?, presets?, notices,
 *             query?, onConfigChange?, onResult?, presetHref?, client?, limits? }) → Promise<app>
 * `onConfigChange(config, query, { computing })`: computing when a run of it was sent;
 * `onResult()`: a run's whole result is on the page (before data-result-query names it).
 * `dock`: where the control dock goes (d_k, the scaling, and the controls as a sheet), shown by the
 * stylesheet on narrow screens; the root gets the class `has-dock` when it holds one.
 */
export async function createApp({
  root,
  panels: panelEls = {},
  controls: controlsEl = null,
  controlFields = null,
  dock: dockEl = null,
  presets: presetsEl = null,
  notices: noticeEl,
  query = '',
  onConfigChange = () => {},
  onResult = () => {},
  presetHref = (chart) => `#chart-${chart}`,
  client = getEngineClient(),
  limits = PAGE_LIMITS,
}) {
  root.dataset.state = 'loading';
  // The panels' and controls' code downloads while the engine boots.
  const loading = startLoading(panelEls, controlsEl, dockEl);
  const { wanted } = loading;
  const ready = await engineReady(client, { root, noticeEl, panelEls });
  const { schema, info } = ready;
  // Scalar build or main-thread compute: said once, visibly; and one polite live summary.
  const engineNote = showEngineNotes(noticeEl, engineNotes(info, client.mode, client.workerRefusal));
  const announcer = createAnnouncer(noticeEl);
  const defaults = schemaDefaults(schema, limits);
  const dks = sweepDks(schema);
  // config: the setting; lastGood: the last config whose run came back (the charts show it).
  const st = { config: undefined, lastGood: null };
  const delivery = panelDelivery();
  const { panels, each } = delivery;
  const notify = (lines, kind) => showNotices(noticeEl, lines, kind);
  const ui = { controls: null, dock: null, presetButtons: null };
  const { set, setQuery, publish } = configChanges(st, ui, {
    schema,
    limits,
    defaults,
    noticeEl,
    panels,
    compute: () => compute(),
    onConfigChange,
  });

  // --- panels ---
  const panelCtx = panelContexts({
    root,
    client,
    schema,
    trainSchema: ready.trainSchema,
    config: () => st.config,
    set: (partial) => set(partial),
    onUrlStateChange: () => {
      if (st.config) publish();
    },
  });
  const jobs = panelJobs(wanted.map(([name]) => name));
  const record = runRecord(st, { root, schema, panels, jobs, announcer, onResult });

  // --- compute ---
  const onError = createErrorHandler({
    schema,
    defaults,
    dks,
    showNotices: notify,
    delivery,
    set: (partial, opts) => set(partial, opts),
    config: () => st.config,
    lastGood: () => st.lastGood,
  });
  const { session, compute } = openCompute(client, st, {
    root,
    schema,
    dks,
    wanted,
    jobs,
    delivery,
    record,
    onError,
  });
  // The URL's setting is sent at once (its notices are shown by setQuery below).
  st.config = parseQuery(query, schema, { limits }).config;
  compute();

  await mountPanels(delivery, loading, panelCtx);

  // --- controls & presets ---
  await mountControlUi(
    ui,
    loading,
    { root, controls: controlsEl, dock: dockEl, presets: presetsEl },
    { schema, limits, defaults, controlFields, presetHref, set },
  );

  delivery.finish();
  setQuery(query);

  return {
    info,
    schema,
    get config() {
      return { ...st.config };
    },
    set,
    setQuery,
    /** The named panels' own URL settings that differ from their defaults, as a query ('' if none). */
    panelQuery: (names) =>
      names
        .map((n) => panels.get(n)?.api.urlState?.query())
        .filter(Boolean)
        .join('&'),
    /** Repaint every chart (after a theme change). */
    redraw: () => each('redraw'),
    destroy() {
      session.close();
      each('destroy');
      ui.controls?.destroy();
      ui.dock?.destroy();
      root.classList.remove('has-dock');
      announcer.destroy();
      engineNote?.remove();
    },
  };
}
