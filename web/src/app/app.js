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
import { parseQuery, serialize, noticeText, schemaDefaults, PAGE_LIMITS } from '../state/state.js';
import { sweepDks } from '../state/choices.js';
import { PANELS } from '../panels/index.js';
import { whenNear } from '../ui/when-near.js';
import { uniquePrefix } from '../ui/dom.js';
import {
  engineNotes,
  showEngineNotes,
  showUnavailable,
  panelSummary,
  createAnnouncer,
  showNotices,
} from './app-status.js';
import { configChanges, panelParams } from './config-changes.js';
import { createBackgroundJobs, panelJobs } from './background-jobs.js';
import { createErrorHandler } from './compute-errors.js';
import { panelDelivery, mountPanels, watchNearPanels, yieldToBrowser } from './panel-delivery.js';
import { panelContexts } from './panel-context.js';

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

/** Whether a panel computes on the sweep Workers: its sweeps, or its job's Worker. */
const onSweepWorkers = (meta) => !!(meta.sweep || meta.job?.worker);

/**
 * Starts downloading the panels' code (with `mountNear`, only the panels near the viewport; the
 * others' when they come near), and the controls', the dock's and the preset buttons' where they
 * are shown (an embed of one chart has none): → { wanted, near, mod(name), controls, dock, presets }.
 * When a panel near the viewport at load computes on the sweep Workers, they boot with the engine
 * (`client.startBackground`); else the page starts them later, or their first job does.
 */
function startLoading({ panelEls, controlsEl, dockEl, presetsEl }, mountNear, client) {
  const wanted = Object.entries(panelEls).filter(([name, el]) => PANELS[name] && el);
  const near = mountNear ? watchNearPanels(wanted, mountNear) : null;
  const mods = new Map();
  const mod = (name) => {
    if (!mods.has(name)) mods.set(name, PANELS[name].load());
    return mods.get(name);
  };
  if (near)
    near.first.then((names) => {
      names.forEach((name) => mod(name).catch(() => {}));
      if ([...names].some((name) => onSweepWorkers(PANELS[name].meta))) client.startBackground?.();
    });
  else for (const [name] of wanted) mod(name).catch(() => {});
  const controls = controlsEl ? import('../ui/controls.js') : null; // only where controls are shown
  const dock = controlsEl && dockEl ? import('../ui/control-dock.js') : null;
  const presets = presetsEl ? import('./preset-buttons.js') : null;
  for (const p of [controls, dock, presets]) p?.catch(() => {});
  return { wanted, near, mod, controls, dock, presets };
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
      // compete with the gradient panel's trip for the cores. The first sweeps go at once
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
 * (`record`, runRecord's), and the background jobs of the panels `wanted`: → { session, compute(),
 * mounted(name) }.
 * `compute()` sends the run of `st.config` and marks the background jobs due; `mounted(name)`
 * lets a panel's job go once its panel is there (`jobsWaitForMount`: panels mounted when near).
 */
function openCompute(
  client,
  st,
  { root, schema, dks, wanted, jobs, delivery, record, onError, jobsWaitForMount },
) {
  const { counters, publishCounters } = record;
  const names = wanted.map(([name]) => name);
  const session = client.openSession(
    sessionHandlers(delivery, record, { root, jobs, flushBackground, onError }),
  );
  const background = createBackgroundJobs({
    session,
    schema,
    dks,
    names,
    jobs,
    delivery,
    counters,
    waitForMount: jobsWaitForMount,
  });
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
  // then on, and follows the setting like the others (where panels mount when near, from its mount).
  if (!jobsWaitForMount)
    for (const [name, el] of wanted)
      if (PANELS[name].meta.job?.startsNear)
        whenNear(el, () => {
          background.near(name);
          if (st.config) flushBackground();
        });
  /** The panel `name` is mounted: its job, if it waited for that, goes from now on. */
  function mounted(name) {
    if (!jobsWaitForMount) return;
    background.near(name);
    if (st.config) flushBackground();
  }
  return { session, compute, mounted };
}

/**
 * Mounts into `ui` the controls, the dock and the preset buttons where `els` has an element for
 * them, each in a task of its own; `opts`: { schema, limits, defaults, controlFields, presetHref, set }.
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
    await yieldToBrowser();
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
    await yieldToBrowser();
  }
  if (els.presets) {
    const { mountPresetButtons } = await loading.presets;
    ui.presetButtons = mountPresetButtons(els.presets, { defaults, schema, limits, presetHref, set });
  }
}

/**
 * Mounts each panel the reader comes near after the start (`near`: watchNearPanels), one after
 * the other: it is given the latest run and sweep (panel-delivery.js), its job starts
 * (`mounted(name)`), and it reads its own settings from the last address applied.
 */
function mountLater(near, { delivery, loading, panelCtx, st, mounted, notify, publish }) {
  let queue = Promise.resolve();
  near.later((name) => {
    queue = queue.then(() =>
      mountPanels(delivery, loading, panelCtx, {
        names: new Set([name]),
        onMounted(n, api) {
          mounted(n);
          const lines = api.urlState?.set(st.query) ?? [];
          if (lines.length) notify(lines.map(noticeText));
          if (api.urlState) publish();
        },
      }).catch((err) => {
        showUnavailable(Object.fromEntries(loading.wanted.filter(([n]) => n === name)));
        console.warn(err);
      }),
    );
  });
}

/**
 * createApp({ root, panels: { name: element }, controls?, controlFields?, dock?, presets?, notices,
 *             query?, onConfigChange?, onResult?, presetHref?, client?, limits? }) → Promise<app>
 * `onConfigChange(config, query, { computing })`: computing when a run of it was sent;
 * `onResult()`: a run's whole result is on the page (before data-result-query names it).
 * `dock`: where the control dock goes (d_k, the scaling, and the controls as a sheet), shown by the
 * stylesheet on narrow screens; the root gets the class `has-dock` when it holds one.
 * `mountNear`: a rootMargin; where given, a panel is mounted (and its job started) only once it
 * comes within that margin of the viewport outside a closed fold: a long page does not build, on
 * a phone's main thread, the charts of chapters the reader has not reached.
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
  mountNear = null,
}) {
  root.dataset.state = 'loading';
  // The panels' and controls' code downloads while the engine boots.
  const loading = startLoading({ panelEls, controlsEl, dockEl, presetsEl }, mountNear, client);
  const { wanted, near } = loading;
  const ready = await engineReady(client, { root, noticeEl, panelEls });
  const { schema, info } = ready;
  // Scalar build or main-thread compute: said once, visibly; and one polite live summary.
  const engineNote = showEngineNotes(noticeEl, engineNotes(info, client.mode, client.workerRefusal));
  const announcer = createAnnouncer(noticeEl);
  const defaults = schemaDefaults(schema, limits);
  const dks = sweepDks(schema);
  // config: the setting; lastGood: the last config whose run came back (the charts show it);
  // query: the last address applied (a panel mounted later reads its own settings from it).
  const st = { config: undefined, lastGood: null, query };
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
    names: wanted.map(([name]) => name),
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
  const { session, compute, mounted } = openCompute(client, st, {
    root,
    schema,
    dks,
    wanted,
    jobs,
    delivery,
    record,
    onError,
    jobsWaitForMount: !!near,
  });
  // The URL's setting is sent at once (its notices are shown by setQuery below).
  st.config = parseQuery(query, schema, { limits }).config;
  compute();

  await mountPanels(delivery, loading, panelCtx, {
    names: near ? await near.first : null,
    onMounted: mounted,
  });

  // --- controls & presets ---
  await mountControlUi(
    ui,
    loading,
    { root, controls: controlsEl, dock: dockEl, presets: presetsEl },
    { schema, limits, defaults, controlFields, presetHref, set },
  );

  await yieldToBrowser();
  delivery.finish();
  setQuery(query);
  if (near) mountLater(near, { delivery, loading, panelCtx, st, mounted, notify, publish });

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
        .map((n) => (panels.has(n) ? panels.get(n).api.urlState?.query() : panelParams(n, st.query)))
        .filter(Boolean)
        .join('&'),
    /** Repaint every chart (after a theme change). */
    redraw: () => each('redraw'),
    destroy() {
      near?.stop();
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
