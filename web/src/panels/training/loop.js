// The loop between the training panel and its Worker: a chunk of steps is requested, its answer
// appended to the run and drawn, and the next one requested, while Play, Step, Pause and Reset
// say how many are due. Every function takes the panel's one state object (training.js: newPanel);
// every request carries the run's generation, so an older run's answer is dropped. Its pace
// (createPacing, below) sizes the chunks and measures the speeds shown.
import { download } from '../../ui/dom.js';
import { fmt } from '../../ui/format.js';
import { STEP_BUTTON_STEPS, copiesOf, summarize, trainerKey } from './train-state.js';
import { legendFor } from './charts.js';
import { newRun, appendSteps } from './run-data.js';

const DRAW_EVERY_MS = 120; // chart redraws while playing
const SUMMARY_EVERY_MS = 1000;
const ATTENTION_EVERY_MS = 400; // heatmaps refresh at most this often while playing

export const stepsDone = (panel) => (panel.run ? panel.run.steps.length : 0);

/** Rebuilds what depends on the copies trained: heatmaps, table rows, legend. */
export function showCopies(panel, copies, scale) {
  panel.heatmaps.build(copies, scale, panel.schema);
  panel.table.build(copies, scale, panel.schema);
  panel.frame.setLegend(legendFor(copies, scale, panel.schema));
}

export function newGeneration(panel) {
  panel.gen += 1;
  panel.run = null;
  panel.heat = null;
  panel.pacing.clearSamples();
  panel.stepsWanted = 0;
  scheduleDraw(panel, true);
}

function ensureRun(panel) {
  const cfg = panel.derived.cfg;
  const key = trainerKey(cfg);
  if (!panel.run) {
    panel.run = newRun(cfg, panel.schema);
    showCopies(panel, copiesOf(cfg, panel.schema), cfg.scale);
  }
  if (panel.live !== key) {
    panel.session ??= panel.ctx.client.openSession(
      { train: (m) => onMessage(panel, m), onError: (m) => onError(panel, m) },
      { ownWorker: true },
    );
    panel.session.request('train', { op: 'create', cfg, attention: true, tag: panel.gen });
    panel.live = key;
  }
}

/** The size of the next chunk of steps, or 0 when none is due. */
function nextChunk(panel) {
  if (panel.playing) return panel.pacing.chunkSize(stepsDone(panel), panel.limit);
  return panel.stepsWanted > 0 ? panel.pacing.stepButtonChunk(panel.stepsWanted) : 0;
}

/** Requests the next chunk if one is due and none is in the Worker. */
export function pump(panel) {
  if (panel.inflight || !panel.derived) return;
  if (panel.playing && stepsDone(panel) >= panel.limit) {
    finishPlay(panel, `Paused at step ${stepsDone(panel)} (the “pause at step” setting).`);
    return;
  }
  const n = nextChunk(panel);
  if (!n) return;
  ensureRun(panel);
  const now = performance.now();
  const last = !panel.playing ? n === panel.stepsWanted : stepsDone(panel) + n >= panel.limit;
  const attention = last || now - panel.lastAttentionAt >= ATTENTION_EVERY_MS;
  if (attention) panel.lastAttentionAt = now;
  panel.inflight = panel.session.request('train', { op: 'step', n, attention, tag: panel.gen });
}

function onMessage(panel, m) {
  if (m.op === 'step' && m.id === panel.inflight) panel.inflight = 0;
  if (m.op === 'qk') saveQk(panel, m);
  if (m.tag !== panel.gen || !panel.run) {
    pump(panel);
    updateButtons(panel);
    settle(panel);
    return;
  } // an older run's answer
  if (m.attention) {
    panel.heat = { T: m.config.seqLen, maps: m.attention, step: m.total };
    panel.heatmaps.paint(panel.heat);
    panel.chunkHadAttention = true;
  }
  if (m.op === 'step') {
    // The counter is written in draw(), with the table and charts: a reader (or a test) who sees
    // step N also sees step N's numbers, never the previous chunk's.
    appendSteps(panel.run, m);
    panel.chunkHadAttention = !!m.attention;
    if (!panel.playing) panel.stepsWanted = Math.max(0, panel.stepsWanted - m.step.length);
    if (panel.pacing.chunkDone(m, stepsDone(panel), panel.playing))
      panel.el.dataset.engineStepsPerSec = panel.pacing.engineStepsPerSec.toFixed(1);
    scheduleDraw(panel);
  }
  pump(panel);
  updateButtons(panel);
  settle(panel);
}

/** Once nothing is due or in flight: the paused status, and the heatmaps of the final weights. */
function settle(panel) {
  if (panel.inflight || panel.playing || panel.stepsWanted > 0) return;
  if (panel.pausedNote) {
    panel.controls.setStatus(panel.pausedNote(stepsDone(panel)));
    panel.pausedNote = null;
  }
  if (!panel.run) return;
  // Idle: make sure the heatmaps show the final weights.
  if (!panel.chunkHadAttention && panel.run.steps.length && panel.live !== null) {
    panel.chunkHadAttention = true;
    panel.session.request('train', { op: 'attention', tag: panel.gen });
  }
  scheduleDraw(panel, true);
}

function onError(panel, m) {
  // Requests are answered in order, so an error is the answer to the oldest one still open.
  panel.inflight = 0;
  panel.playing = false;
  panel.stepsWanted = 0;
  panel.live = null;
  updateButtons(panel);
  if (panel.failedGen !== panel.gen) panel.controls.setStatus(`Training failed: ${m.message}`); // keep the first cause
  panel.failedGen = panel.gen;
}

function scheduleDraw(panel, force = false) {
  if (panel.drawQueued) return;
  panel.drawQueued = true;
  requestAnimationFrame(() => {
    panel.drawQueued = false;
    const now = performance.now();
    if (!force && panel.playing && now - panel.lastDraw < DRAW_EVERY_MS) {
      scheduleDraw(panel);
      return;
    }
    panel.lastDraw = now;
    draw(panel, force || !panel.playing || now - panel.lastSummary >= SUMMARY_EVERY_MS);
    updateButtons(panel);
  });
}

/** The step counter, speed, charts, heatmaps and table, and the summary when `withSummary`. */
export function draw(panel, withSummary) {
  const { controls, pacing, run, table } = panel;
  controls.stepOut.textContent = String(run?.steps.at(-1) ?? 0);
  controls.speedOut.textContent = Number.isFinite(pacing.stepsPerSec) ? fmt(pacing.stepsPerSec, 3) : '—';
  panel.el.dataset.trainSteps = String(stepsDone(panel));
  if (panel.lines?.draw(run)) panel.ctx.onDrawn?.('training');
  if (!panel.heat) panel.heatmaps.clear();
  table.fill(run);
  if (withSummary) {
    panel.lastSummary = performance.now();
    table.summaryEl.textContent = summarize(run ?? { cfg: null, steps: [] }, panel.schema, panel.ctx.schema);
    panel.frame.setSummary(table.summaryEl.textContent); // the charts' text alternative (aria-describedby)
  }
}

export function updateButtons(panel) {
  panel.controls.playBtn.textContent = panel.playing ? 'Pause' : 'Play';
  panel.controls.stepBtn.disabled = panel.playing;
  // 'busy': paused, but a chunk is still in the Worker (its steps will still land) or its
  // steps are not drawn yet (the counter and the table change at the next frame).
  panel.el.dataset.trainState = panel.playing
    ? 'playing'
    : panel.stepsWanted > 0 || panel.inflight || panel.drawQueued
      ? 'busy'
      : 'paused';
}

export function play(panel) {
  if (!panel.derived) return;
  panel.playing = true;
  panel.pausedNote = null;
  panel.limit = panel.settings.stopAt > stepsDone(panel) ? panel.settings.stopAt : Infinity;
  panel.pacing.startPlaying(stepsDone(panel));
  updateButtons(panel);
  panel.controls.setStatus(`Playing${Number.isFinite(panel.limit) ? ` until step ${panel.limit}` : ''}.`);
  pump(panel);
}

function finishPlay(panel, text) {
  panel.playing = false;
  updateButtons(panel);
  panel.controls.setStatus(text);
  settle(panel);
}

export function pause(panel) {
  panel.playing = false;
  updateButtons(panel);
  panel.pausedNote = (n) => `Paused at step ${n}.`;
  panel.controls.setStatus('Pausing…');
  settle(panel);
}

export function stepOnce(panel) {
  if (!panel.derived || panel.playing) return;
  panel.stepsWanted += STEP_BUTTON_STEPS;
  updateButtons(panel);
  panel.controls.setStatus(`Running ${STEP_BUTTON_STEPS} steps.`);
  panel.pausedNote = (n) => `Ran ${STEP_BUTTON_STEPS} steps: now at step ${n}.`;
  pump(panel);
}

export function reset(panel) {
  panel.playing = false;
  panel.pausedNote = null;
  newGeneration(panel);
  if (panel.live !== null && panel.derived && panel.live === trainerKey(panel.derived.cfg)) {
    panel.session.request('train', { op: 'reset', attention: true, tag: panel.gen });
  } else {
    panel.live = null;
  }
  // The run is rebuilt at the next Play or Step; the step-0 heatmaps come back with the reset.
  if (panel.live !== null) ensureRun(panel);
  updateButtons(panel);
  panel.controls.setStatus('Reset: back to the starting weights, step 0.');
}

export function downloadQk(panel) {
  if (!panel.derived) return;
  ensureRun(panel);
  panel.session.request('train', { op: 'qk', tag: panel.gen });
}

/** m.qk: every copy's q and k when the request's turn came (m.total steps), whatever ran since. */
async function saveQk(panel, m) {
  if (import.meta.env.MODE === 'offline') return; // and the writer stays out of the file
  const { qkFile, qkFileName } = await import('./qk-file.js');
  download(new Blob([qkFile({ ...m, steps: m.total, schema: panel.ctx.schema })]), qkFileName(m.total));
}

// The pace of training: chunks of steps sized to take about CHUNK_MS of Worker time (so Pause
// takes effect within one chunk), and the speeds shown, over the last SPEED_WINDOW_MS: steps per
// second of wall clock (what the visitor sees) and per second of Worker compute (the engine
// alone; for the benchmark). No DOM.
const CHUNK_MS = 50; // Worker time per chunk (bounds the delay of Pause)
const MAX_CHUNK = 100;
const FIRST_CHUNK = 10;
const SPEED_WINDOW_MS = 1500;

/** → { chunkSize(done, limit), stepButtonChunk(wanted), startPlaying(done), clearSamples(), chunkDone(m, done, playing), stepsPerSec, engineStepsPerSec } */
export function createPacing() {
  let msPerStep = NaN;
  let speedSamples = []; // [time, steps, cumulative Worker ms]
  let workerMs = 0;
  let stepsPerSec = NaN,
    engineStepsPerSec = NaN;
  return {
    get stepsPerSec() {
      return stepsPerSec;
    },
    get engineStepsPerSec() {
      return engineStepsPerSec;
    },
    /** Steps of the next chunk while playing, `done` steps run so far, pausing at `limit`. */
    chunkSize(done, limit) {
      const n = Number.isFinite(msPerStep) ? Math.round(CHUNK_MS / Math.max(msPerStep, 1e-3)) : FIRST_CHUNK;
      return Math.max(1, Math.min(MAX_CHUNK, n, limit - done));
    },
    /** Steps of the next chunk of a Step press, `wanted` still to run. */
    stepButtonChunk: (wanted) => Math.min(wanted, MAX_CHUNK),
    startPlaying(done) {
      speedSamples = [[performance.now(), done, workerMs]];
      stepsPerSec = NaN;
    },
    clearSamples() {
      speedSamples = [];
    },
    /** A chunk's answer is in (`done` steps now); true when the speeds were measured anew. */
    chunkDone(m, done, playing) {
      const per = m.ms / m.step.length;
      msPerStep = Number.isFinite(msPerStep) ? 0.7 * msPerStep + 0.3 * per : per; // sizes the next chunk
      workerMs += m.ms;
      const now = performance.now();
      speedSamples.push([now, done, workerMs]);
      while (speedSamples.length > 2 && now - speedSamples[0][0] > SPEED_WINDOW_MS) speedSamples.shift();
      if (!playing || speedSamples.length < 2) return false;
      const [t0, s0, w0] = speedSamples[0];
      stepsPerSec = ((done - s0) * 1000) / (now - t0);
      engineStepsPerSec = ((done - s0) * 1000) / (workerMs - w0);
      return true;
    },
  };
}
