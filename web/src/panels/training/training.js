// Chart 7 — training. A tiny attention model (cpp/train/train.hpp: one attention layer learning
// multi-query associative recall) trained with each named logit scale (and the page's custom
// multiplier, when set) side by side, from one initialisation, on the same batches.
//
// The trainer lives in a compute Worker of its own (compute/engine-client.js: openSession with ownWorker; its
// Worker side is training-job.js). Steps are pulled one chunk at a time: a chunk is sized to take
// about CHUNK_MS of Worker time, the next one is requested when its answer arrives, and nothing
// else queues up. So the page never waits on the engine, Pause takes effect as soon as the chunk
// in flight is back, and Reset or a change of config simply drops whatever was in flight (every
// request carries the run's generation).
// d_k, T, precision and the custom multiplier come from the page (panels/training/train-state.js says how
// they are clamped, and the panel says so in a plain line beside its settings: fitting the page's
// values to the trainer is expected, not a warning); the optimizer, learning rate, init scale,
// batch size, seed, pause step and the copies trained (one per named scaling by default; QK-norm,
// soft-cap and s·ln T schemes on request: the training schema's copies) are this panel's, and live in the URL under their own names
// (the `urlState` of the API below: the app reads and writes them with the page's fields).
// Every number drawn is a metric the engine measured on that step's batch, before the update.
// The parts: controls.js (what the reader sets), charts.js, heat.js and table.js (what is drawn),
// run-data.js (the run as received), loop.js (the loop between them and the Worker); this file
// holds the panel's state and turns the settings and the page's fields into the trainer's config.
import { panelFrame } from '../../frame/panel-frame.js';
import { h, uniquePrefix } from '../../ui/dom.js';
import {
  copiesField,
  copyNames,
  defaultSettings,
  coerceSetting,
  trainerConfig,
  trainerKey,
  copiesOf,
  describeRun,
  settingsFromQuery,
  settingsToQuery,
} from './train-state.js';
import { PRESET_PAGE_BASE } from '../../state/study-presets.js';
import { meta } from './meta.js';
import { createTrainingControls, fromPageText } from './controls.js';
import { createTrainingCharts, legendFor, emptyChartsNote } from './charts.js';
import { createTrainingHeat } from './heat.js';
import { createTrainingTable } from './table.js';
import { csvRows, pageFieldsOf } from './run-data.js';
import {
  createPacing,
  downloadQk,
  draw,
  newGeneration,
  pause,
  play,
  pump,
  reset,
  showCopies,
  stepOnce,
  stepsDone,
  updateButtons,
} from './loop.js';

export { meta };

export function mount(el, ctx = {}) {
  const panel = newPanel(el, ctx);
  const idp = uniquePrefix('tr');
  panel.frame = panelFrame(el, {
    name: 'training',
    title: 'Training side by side',
    description:
      'One attention layer learns to look up a value by its key. The copies differ only in the logit scale: same start, same batches, measured every step.',
    legend: [], // the copies' (showCopies), once the training schema is known
    exports: exportsOf(panel),
  });
  panel.controls = createTrainingControls(panel.frame.body, idp, {
    playOrPause: () => (panel.playing ? pause(panel) : play(panel)),
    step: () => stepOnce(panel),
    reset: () => reset(panel),
    // none offline (size)
    downloadQk: import.meta.env.MODE === 'offline' ? null : () => downloadQk(panel),
    preset: (p) => applyPreset(panel, p),
    copies: (name) => changeCopies(panel, name),
    setting: (name, value) => changeSetting(panel, name, value),
  });
  // Before the first step the charts' place says what they will show (emptyChartsNote).
  const startTraining = () => el.querySelector('[data-action="play"]')?.click();
  panel.grid = h('div', { class: 'train-charts', 'data-empty': 'true' }, emptyChartsNote(startTraining));
  panel.frame.body.append(panel.frame.legendBox, panel.grid); // the key to the colours, above the charts it explains
  panel.heatmaps = createTrainingHeat(panel.frame.body, el, panel.T);
  panel.table = createTrainingTable(panel.frame.body, idp);

  if (panel.schema) init(panel, panel.schema);
  else ctx.client.ready.then((r) => init(panel, r.trainSchema)).catch(() => {});
  return panelApi(panel);
}

/** The panel's one state object, read and written by this file's functions and by loop.js. */
function newPanel(el, ctx) {
  const panel = {
    el,
    ctx, // ctx.client: the app's engine client (this panel never starts Workers of its own)
    schema: ctx.trainSchema ?? null,
    settings: null,
    pageCfg: null, // the page fields the trainer uses
    derived: null, // { cfg, notes } from pageCfg + settings
    inputNotes: [],
    // --- the run (main-thread copy of everything the Worker measured) ---
    run: null, // run-data.js: { cfg, steps, copies, draw, reached, reachState }
    gen: 0, // bumped by every reset / new trainer; answers of older generations are dropped
    live: null, // key of the trainer config in the Worker
    inflight: 0, // id of the step request in the Worker (0: none)
    playing: false,
    stepsWanted: 0, // Step button: steps still to run
    limit: Infinity, // Play pauses at this step
    lastAttentionAt: 0,
    chunkHadAttention: false,
    heat: null, // { T, maps: { copy: Float32Array }, step }
    pacing: createPacing(),
    lastDraw: 0,
    lastSummary: 0,
    drawQueued: false,
    session: null,
    pausedNote: null, // the status to show once the last chunk is in: (step) => text
    failedGen: -1,
    // --- what is drawn, made by mount (lines by init, a series per copy the training schema offers) ---
    frame: null,
    controls: null,
    grid: null,
    lines: null,
    heatmaps: null,
    table: null,
  };
  panel.T = () => panel.run?.cfg.seqLen ?? panel.derived?.cfg.seqLen ?? 32;
  return panel;
}

/** What the frame's PNG, legend and CSV buttons export. */
function exportsOf(panel) {
  return {
    png: () => [
      ...(panel.lines?.charts ?? []).map((c) => ({ u: c.chart.u, title: c.title })),
      ...panel.heatmaps.charts.map((c) => ({
        u: c.chart.u,
        title: `Attention of the fixed example: ${c.label}`,
      })),
    ],
    legend: () => {
      const cfg = (panel.run ?? panel.derived)?.cfg;
      const { schema } = panel;
      return legendFor(cfg ? copiesOf(cfg, schema) : copiesField(schema).default, cfg?.scale, schema);
    },
    csv: () => ({ rows: csvRows(panel.run, panel.schema, panel.ctx.schema) }),
  };
}

function init(panel, s) {
  const { controls } = panel;
  panel.lines = createTrainingCharts(panel.grid, panel.T, Array.isArray(s) ? copyNames(s) : []);
  if (!Array.isArray(s)) {
    controls.setStatus('Training is not available: the engine did not report its training schema.');
    controls.playBtn.disabled = true;
    controls.stepBtn.disabled = true;
    return;
  }
  panel.schema = s;
  panel.settings = defaultSettings(s);
  controls.buildSettings(s);
  controls.showSettings(panel.settings);
  showCopies(panel, copiesField(s).default);
  readPage(panel, panel.ctx.config);
  derive(panel);
  updateButtons(panel);
  draw(panel, true);
}

function panelApi(panel) {
  return {
    /** The settings in the URL (app.js reads them with the page's fields and writes them back). */
    urlState: panel.settings && {
      // null when the engine gave no training schema
      /** URL query → notices (as state.js gives them) about the values it had to change. */
      set(search) {
        const { settings: next, notices } = settingsFromQuery(search, panel.schema);
        panel.inputNotes = [];
        applySettings(panel, next, { fromUrl: true });
        return notices;
      },
      query: () => settingsToQuery(panel.settings, panel.schema),
    },
    update(result, cfg) {
      if (!panel.schema) return;
      // The page's current config (a preset may have moved it past the result being delivered).
      if (readPage(panel, panel.ctx.config ?? cfg)) derive(panel);
    },
    redraw() {
      panel.heatmaps.paint(panel.heat);
      for (const c of panel.lines?.charts ?? []) c.chart.redraw();
      for (const c of panel.heatmaps.charts) c.chart.redraw();
    },
    destroy() {
      panel.playing = false;
      panel.session?.close();
      for (const c of panel.lines?.charts ?? []) c.chart.destroy();
      for (const c of panel.heatmaps.charts) c.chart.destroy();
    },
  };
}

// --- the trainer's config, from the page's fields and the panel's settings ---
function derive(panel) {
  const { schema, settings, pageCfg } = panel;
  if (!schema || !settings || !pageCfg) return;
  panel.derived = trainerConfig(pageCfg, settings, schema);
  const c = panel.derived.cfg;
  if (!panel.run) showCopies(panel, copiesOf(c, schema), c.scale);
  panel.controls.setFromPage(fromPageText(c, schema));
  renderNotes(panel);
  if (panel.live !== null && panel.live !== trainerKey(c)) {
    // The curves on screen belong to another config: start over (keep playing if playing).
    newGeneration(panel);
    panel.live = null;
    panel.controls.setStatus(
      `Settings changed (${describeRun(c, panel.ctx.schema)}): the run starts again from step 0.`,
    );
    pump(panel);
  }
}

function renderNotes(panel) {
  const { pageCfg, derived, ctx } = panel;
  const fitT =
    pageCfg && derived && derived.cfg.seqLen !== pageCfg.seqLen && ctx.setConfig
      ? () => ctx.setConfig({ seqLen: 32 })
      : null;
  panel.controls.showNotes(derived?.notes ?? [], panel.inputNotes, fitT);
}

/** New settings (a control, a preset or the URL); `fromUrl` applies them without writing the URL back. */
function applySettings(panel, next, { fromUrl = false } = {}) {
  const same = (a, b) => (Array.isArray(a) ? a.join() === b?.join?.() : a === b);
  const stopOnly = Object.keys(next).every((k) => k === 'stopAt' || same(next[k], panel.settings[k]));
  panel.settings = { ...panel.settings, ...next };
  panel.controls.showSettings(panel.settings);
  if (!fromUrl) panel.ctx.onUrlStateChange?.();
  if (stopOnly) {
    const { stopAt } = panel.settings;
    if (panel.playing) panel.limit = stopAt > stepsDone(panel) ? stopAt : Infinity;
    renderNotes(panel);
    return;
  }
  derive(panel);
}

function changeCopies(panel, name) {
  const chosen = panel.controls.chosenCopies();
  if (!chosen.length) {
    panel.controls.keepCopy(name);
    panel.inputNotes = ['At least one copy must be trained: it stays picked.'];
    renderNotes(panel);
    return;
  }
  panel.inputNotes = [];
  applySettings(panel, { copies: chosen });
}

function changeSetting(panel, name, value) {
  const { value: v, notice } = coerceSetting(panel.schema, name, value);
  panel.inputNotes = notice ? [notice] : [];
  applySettings(panel, { [name]: v });
}

/** Takes the page's fields the trainer uses from config `c`; true when they changed. */
function readPage(panel, c) {
  if (!c) return false;
  const next = pageFieldsOf(c);
  if (panel.pageCfg && Object.keys(next).every((k) => next[k] === panel.pageCfg[k])) return false;
  panel.pageCfg = next;
  return true;
}

function applyPreset(panel, p) {
  if (!panel.pageCfg) return;
  panel.playing = false;
  panel.settings = { ...defaultSettings(panel.schema), ...p.train };
  panel.inputNotes = [];
  panel.controls.showSettings(panel.settings);
  panel.ctx.onUrlStateChange?.();
  const partial = { ...PRESET_PAGE_BASE, ...p.page };
  panel.pageCfg = { ...panel.pageCfg, ...partial };
  panel.ctx.setConfig?.(partial);
  newGeneration(panel);
  panel.live = null; // a fresh trainer: the preset's run from its first step
  derive(panel);
  panel.controls.showPresetNote(p);
  play(panel);
}
