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
