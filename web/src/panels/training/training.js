// Chart 7 — training. A tiny attention model (cpp/train/train.hpp: one attention layer learning
// multi-query associative recall) trained with each named logit scale (and the page's custom
// multiplier, when set) side by side, from one initialisation, on the same batches.
//
// The trainer lives in a compute Worker of its own (compute/engine-client.js: openTraining; its
// Worker side is training-job.js). Steps are pulled one chunk at a time: a chunk is sized to take
// about CHUNK_MS of Worker time, the next one is requested when its answer arrives, and nothing
// else queues up. So the page never waits on the engine, Pause takes effect as soon as the chunk
// in flight is back, and Reset or a change of config simply drops whatever was in flight (every
// request carries the run's generation).
// d_k, T, precision and the custom multiplier come from the page (state/train-state.js says how
// they are clamped, and the panel says so in a plain line beside its settings: fitting the page's
// values to the trainer is expected, not a warning); the optimizer, learning rate, init scale,
// batch size, seed, pause step and the copies trained (one per named scaling by default; QK-norm,
// soft-cap and s·ln T schemes on request: the training schema's copies) are this panel's, and live in the URL under their own names
// (the `urlState` of the API below: the app reads and writes them with the page's fields).
// Every number drawn is a metric the engine measured on that step's batch, before the update.
// The parts: controls.js (what the reader sets), charts.js, heat.js and table.js (what is drawn),
// run-data.js (the run as received); this file runs the loop between them and the Worker.
import { panelFrame } from '../../charts/panel-frame.js';
import { download, h, uniquePrefix } from '../../ui/dom.js';
import { fmt } from '../../ui/format.js';
import {
  STEP_BUTTON_STEPS,
  copiesField,
  copyNames,
  defaultSettings,
  coerceSetting,
  trainerConfig,
  trainerKey,
  copiesOf,
  describeRun,
  summarize,
  settingsFromQuery,
  settingsToQuery,
} from '../../state/train-state.js';
import { PRESET_PAGE_BASE } from '../../state/presets.js';
import { PANEL_META } from '../meta.js';
import { createTrainingControls, fromPageText } from './controls.js';
import { createTrainingCharts, legendFor } from './charts.js';
import { createTrainingHeat } from './heat.js';
import { createTrainingTable } from './table.js';
import { newRun, appendSteps, csvRows, pageFieldsOf } from './run-data.js';
import { createPacing } from './pacing.js';

export const meta = PANEL_META.training;

const DRAW_EVERY_MS = 120; // chart redraws while playing
const SUMMARY_EVERY_MS = 1000;
const ATTENTION_EVERY_MS = 400; // heatmaps refresh at most this often while playing

export function mount(el, ctx = {}) {
  const { client } = ctx; // the app's engine client: this panel never starts Workers of its own
  const idp = uniquePrefix('tr');
  let schema = ctx.trainSchema ?? null;
  let settings = null;
  let pageCfg = null; // the page fields the trainer uses
  let derived = null; // { cfg, notes } from pageCfg + settings
  let inputNotes = [];

  // --- the run (main-thread copy of everything the Worker measured) ---
  let run = null; // run-data.js: { cfg, steps, copies, draw, reached, reachState }
  let gen = 0; // bumped by every reset / new trainer; answers of older generations are dropped
  let live = null; // key of the trainer config in the Worker
  let inflight = 0; // id of the step request in the Worker (0: none)
  let playing = false;
  let stepsWanted = 0; // Step button: steps still to run
  let limit = Infinity; // Play pauses at this step
  let lastAttentionAt = 0,
    chunkHadAttention = false;
  let heat = null; // { T, maps: { copy: Float32Array }, step }
  const pacing = createPacing();
  let lastDraw = 0,
    lastSummary = 0,
    drawQueued = false;
  let session = null;
  let pausedNote = null; // the status to show once the last chunk is in: (step) => text
  let failedGen = -1;

  const frame = panelFrame(el, {
    name: 'training',
    title: 'Training side by side',
    description:
      'One attention layer learns to look up a value by its key. The copies differ only in the logit scale: same start, same batches, measured every step.',
    legend: [], // the copies' (showCopies), once the training schema is known
    exports: {
      png: () => [
        ...(lines?.charts ?? []).map((c) => ({ u: c.chart.u, title: c.title })),
        ...heatmaps.charts.map((c) => ({
          u: c.chart.u,
          title: `Attention of the fixed example: ${c.label}`,
        })),
      ],
      legend: () => {
        const cfg = (run ?? derived)?.cfg;
        return legendFor(cfg ? copiesOf(cfg, schema) : copiesField(schema).default, cfg?.scale, schema);
      },
      csv: () => ({ rows: csvRows(run, schema, ctx.schema) }),
    },
  });

  const controls = createTrainingControls(frame.body, idp, {
    playOrPause: () => (playing ? pause() : play()),
    step: () => stepOnce(),
    reset: () => reset(),
    downloadQk: import.meta.env.MODE === 'offline' ? null : () => downloadQk(), // none offline (size)
    preset: (p) => applyPreset(p),
    copies: (name) => changeCopies(name),
    setting: (name, value) => changeSetting(name, value),
  });
  const setStatus = (text) => controls.setStatus(text);
  const grid = h('div', { class: 'train-charts' });
  frame.body.append(frame.legendEl, grid); // the key to the colours, above the charts it explains
  const T = () => run?.cfg.seqLen ?? derived?.cfg.seqLen ?? 32;
  let lines = null; // the line charts: a series per copy the training schema offers (init)
  const heatmaps = createTrainingHeat(frame.body, el, T);
  const table = createTrainingTable(frame.body, idp);

  /** Rebuilds what depends on the copies trained: heatmaps, table rows, legend. */
  function showCopies(copies, scale) {
    heatmaps.build(copies, scale, schema);
    table.build(copies, scale, schema);
    frame.setLegend(legendFor(copies, scale, schema));
  }

  // --- derived config ---
  function derive() {
    if (!schema || !settings || !pageCfg) return;
    derived = trainerConfig(pageCfg, settings, schema);
    const c = derived.cfg;
    if (!run) showCopies(copiesOf(c, schema), c.scale);
    controls.setFromPage(fromPageText(c, schema));
    renderNotes();
    if (live !== null && live !== trainerKey(c)) {
      // The curves on screen belong to another config: start over (keep playing if playing).
      newGeneration();
      live = null;
      setStatus(`Settings changed (${describeRun(c, ctx.schema)}): the run starts again from step 0.`);
      pump();
    }
  }
  function renderNotes() {
    const fitT =
      pageCfg && derived && derived.cfg.seqLen !== pageCfg.seqLen && ctx.setConfig
        ? () => ctx.setConfig({ seqLen: 32 })
        : null;
    controls.showNotes(derived?.notes ?? [], inputNotes, fitT);
  }
  /** New settings (a control, a preset or the URL); `fromUrl` applies them without writing the URL back. */
  function applySettings(next, { fromUrl = false } = {}) {
    const same = (a, b) => (Array.isArray(a) ? a.join() === b?.join?.() : a === b);
    const stopOnly = Object.keys(next).every((k) => k === 'stopAt' || same(next[k], settings[k]));
    settings = { ...settings, ...next };
    controls.showSettings(settings);
    if (!fromUrl) ctx.onUrlStateChange?.();
    if (stopOnly) {
      if (playing) limit = settings.stopAt > stepsDone() ? settings.stopAt : Infinity;
      renderNotes();
      return;
    }
    derive();
  }
  function changeCopies(name) {
    const chosen = controls.chosenCopies();
    if (!chosen.length) {
      controls.keepCopy(name);
      inputNotes = ['At least one copy must be trained: it stays picked.'];
      renderNotes();
      return;
    }
    inputNotes = [];
    applySettings({ copies: chosen });
  }
  function changeSetting(name, value) {
    const { value: v, notice } = coerceSetting(schema, name, value);
    inputNotes = notice ? [notice] : [];
    applySettings({ [name]: v });
  }
  function readPage(c) {
    if (!c) return false;
    const next = pageFieldsOf(c);
    if (pageCfg && Object.keys(next).every((k) => next[k] === pageCfg[k])) return false;
    pageCfg = next;
    return true;
  }

  // --- the run ---
  const stepsDone = () => (run ? run.steps.length : 0);
  function newGeneration() {
    gen += 1;
    run = null;
    heat = null;
    pacing.clearSamples();
    stepsWanted = 0;
    scheduleDraw(true);
  }
  function ensureRun() {
    const cfg = derived.cfg;
    const key = trainerKey(cfg);
    if (!run) {
      run = newRun(cfg, schema);
      showCopies(copiesOf(cfg, schema), cfg.scale);
    }
    if (live !== key) {
      session ??= client.openTraining({ onMessage, onError });
      session.send('create', { cfg, attention: true, tag: gen });
      live = key;
    }
  }
  /** The size of the next chunk of steps, or 0 when none is due. */
  function nextChunk() {
    if (playing) return pacing.chunkSize(stepsDone(), limit);
    return stepsWanted > 0 ? pacing.stepButtonChunk(stepsWanted) : 0;
  }
  function pump() {
    if (inflight || !derived) return;
    if (playing && stepsDone() >= limit) {
      finishPlay(`Paused at step ${stepsDone()} (the “pause at step” setting).`);
      return;
    }
    const n = nextChunk();
    if (!n) return;
    ensureRun();
    const now = performance.now();
    const last = !playing ? n === stepsWanted : stepsDone() + n >= limit;
    const attention = last || now - lastAttentionAt >= ATTENTION_EVERY_MS;
    if (attention) lastAttentionAt = now;
    inflight = session.send('step', { n, attention, tag: gen });
  }
  function onMessage(m) {
    if (m.op === 'step' && m.id === inflight) inflight = 0;
    if (m.op === 'qk') saveQk(m);
    if (m.tag !== gen || !run) {
      pump();
      updateButtons();
      settle();
      return;
    } // an older run's answer
    if (m.attention) {
      heat = { T: m.config.seqLen, maps: m.attention, step: m.total };
      heatmaps.paint(heat);
      chunkHadAttention = true;
    }
    if (m.op === 'step') {
      // The counter is written in draw(), with the table and charts: a reader (or a test) who sees
      // step N also sees step N's numbers, never the previous chunk's.
      appendSteps(run, m);
      chunkHadAttention = !!m.attention;
      if (!playing) stepsWanted = Math.max(0, stepsWanted - m.step.length);
      if (pacing.chunkDone(m, stepsDone(), playing))
        el.dataset.engineStepsPerSec = pacing.engineStepsPerSec.toFixed(1);
      scheduleDraw();
    }
    pump();
    updateButtons();
    settle();
  }
  function settle() {
    if (inflight || playing || stepsWanted > 0) return;
    if (pausedNote) {
      setStatus(pausedNote(stepsDone()));
      pausedNote = null;
    }
    if (!run) return;
    // Idle: make sure the heatmaps show the final weights.
    if (!chunkHadAttention && run.steps.length && live !== null) {
      chunkHadAttention = true;
      session.send('attention', { tag: gen });
    }
    scheduleDraw(true);
  }
  function onError(m) {
    // Requests are answered in order, so an error is the answer to the oldest one still open.
    inflight = 0;
    playing = false;
    stepsWanted = 0;
    live = null;
    updateButtons();
    if (failedGen !== gen) setStatus(`Training failed: ${m.message}`); // keep the first cause
    failedGen = gen;
  }

  // --- drawing ---
  function scheduleDraw(force = false) {
    if (drawQueued) return;
    drawQueued = true;
    requestAnimationFrame(() => {
      drawQueued = false;
      const now = performance.now();
      if (!force && playing && now - lastDraw < DRAW_EVERY_MS) {
        scheduleDraw();
        return;
      }
      lastDraw = now;
      draw(force || !playing || now - lastSummary >= SUMMARY_EVERY_MS);
      updateButtons();
    });
  }
  function draw(withSummary) {
    controls.stepOut.textContent = String(run?.steps.at(-1) ?? 0);
    controls.speedOut.textContent = Number.isFinite(pacing.stepsPerSec) ? fmt(pacing.stepsPerSec, 3) : '—';
    el.dataset.trainSteps = String(stepsDone());
    if (lines?.draw(run)) ctx.onDrawn?.('training');
    if (!heat) heatmaps.clear();
    table.fill(run);
    if (withSummary) {
      lastSummary = performance.now();
      table.summaryEl.textContent = summarize(run ?? { cfg: null, steps: [] }, schema, ctx.schema);
      frame.setSummary(table.summaryEl.textContent); // the charts' text alternative (aria-describedby)
    }
  }

  // --- transport ---
  function updateButtons() {
    controls.playBtn.textContent = playing ? 'Pause' : 'Play';
    controls.stepBtn.disabled = playing;
    // 'busy': paused, but a chunk is still in the Worker (its steps will still land) or its
    // steps are not drawn yet (the counter and the table change at the next frame).
    el.dataset.trainState = playing
      ? 'playing'
      : stepsWanted > 0 || inflight || drawQueued
        ? 'busy'
        : 'paused';
  }
  function play() {
    if (!derived) return;
    playing = true;
    pausedNote = null;
    limit = settings.stopAt > stepsDone() ? settings.stopAt : Infinity;
    pacing.startPlaying(stepsDone());
    updateButtons();
    setStatus(`Playing${Number.isFinite(limit) ? ` until step ${limit}` : ''}.`);
    pump();
  }
  function finishPlay(text) {
    playing = false;
    updateButtons();
    setStatus(text);
    settle();
  }
  function pause() {
    playing = false;
    updateButtons();
    pausedNote = (n) => `Paused at step ${n}.`;
    setStatus('Pausing…');
    settle();
  }
  function stepOnce() {
    if (!derived || playing) return;
    stepsWanted += STEP_BUTTON_STEPS;
    updateButtons();
    setStatus(`Running ${STEP_BUTTON_STEPS} steps.`);
    pausedNote = (n) => `Ran ${STEP_BUTTON_STEPS} steps: now at step ${n}.`;
    pump();
  }
  function downloadQk() {
    if (!derived) return;
    ensureRun();
    session.send('qk', { tag: gen });
  }
  /** m.qk: every copy's q and k when the request's turn came (m.total steps), whatever ran since. */
  async function saveQk(m) {
    if (import.meta.env.MODE === 'offline') return; // and the writer stays out of the file
    const { qkFile, qkFileName } = await import('./qk-file.js');
    download(new Blob([qkFile({ ...m, steps: m.total, schema: ctx.schema })]), qkFileName(m.total));
  }
  function reset() {
    playing = false;
    pausedNote = null;
    newGeneration();
    if (live !== null && derived && live === trainerKey(derived.cfg)) {
      session.send('reset', { attention: true, tag: gen });
    } else {
      live = null;
    }
    // The run is rebuilt at the next Play or Step; the step-0 heatmaps come back with the reset.
    if (live !== null) ensureRun();
    updateButtons();
    setStatus('Reset: back to the starting weights, step 0.');
  }
  function applyPreset(p) {
    if (!pageCfg) return;
    playing = false;
    settings = { ...defaultSettings(schema), ...p.train };
    inputNotes = [];
    controls.showSettings(settings);
    ctx.onUrlStateChange?.();
    const partial = { ...PRESET_PAGE_BASE, ...p.page };
    pageCfg = { ...pageCfg, ...partial };
    ctx.setConfig?.(partial);
    newGeneration();
    live = null; // a fresh trainer: the preset's run from its first step
    derive();
    controls.showPresetNote(p);
    play();
  }

  // --- start ---
  function init(s) {
    lines = createTrainingCharts(grid, T, Array.isArray(s) ? copyNames(s) : []);
    if (!Array.isArray(s)) {
      setStatus('Training is not available: the engine did not report its training schema.');
      controls.playBtn.disabled = true;
      controls.stepBtn.disabled = true;
      return;
    }
    schema = s;
    settings = defaultSettings(schema);
    controls.buildSettings(schema);
    controls.showSettings(settings);
    showCopies(copiesField(schema).default);
    readPage(ctx.config);
    derive();
    updateButtons();
    draw(true);
  }
  if (schema) init(schema);
  else client.ready.then((r) => init(r.trainSchema)).catch(() => {});

  return {
    /** The settings in the URL (app.js reads them with the page's fields and writes them back). */
    urlState: settings && {
      // null when the engine gave no training schema
      /** URL query → notices (as state.js gives them) about the values it had to change. */
      set(search) {
        const { settings: next, notices } = settingsFromQuery(search, schema);
        inputNotes = [];
        applySettings(next, { fromUrl: true });
        return notices;
      },
      query: () => settingsToQuery(settings, schema),
    },
    update(result, cfg) {
      if (!schema) return;
      // The page's current config (a preset may have moved it past the result being delivered).
      if (readPage(ctx.config ?? cfg)) derive();
    },
    redraw() {
      heatmaps.paint(heat);
      for (const c of lines?.charts ?? []) c.chart.redraw();
      for (const c of heatmaps.charts) c.chart.redraw();
    },
    destroy() {
      playing = false;
      session?.close();
      for (const c of lines?.charts ?? []) c.chart.destroy();
      for (const c of heatmaps.charts) c.chart.destroy();
    },
  };
}
