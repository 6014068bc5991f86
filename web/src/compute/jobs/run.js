// The single run of the page's current setting, in two messages: the forward (the engine's scalars
// and per-row arrays, and the attention matrix reduced for display, the heatmap panel's part),
// then the backward's gradient norms. The engine's arrays are the Worker's own copies: they move
// to the page (transfer), never copied.
import { downsampleAttention, HEATMAP_SIDE } from '../../pure/downsample-attention.js';

/** Plain scalars of a run result (numbers, strings, null) plus the nonFinite counts. */
function scalarsOf(r) {
  const out = {};
  for (const [k, v] of Object.entries(r)) {
    if (v === null || typeof v === 'number' || typeof v === 'string' || typeof v === 'boolean') out[k] = v;
  }
  if (r.nonFinite) out.nonFinite = { ...r.nonFinite };
  return out;
}

/** Epoch time (ms) in any realm: the page and the Workers compare these. */
export const epoch = () => performance.timeOrigin + performance.now();

/**
 * The forward of `cfg` (engine.runForward): posts { type: 'run', session, id, cfg, result } with
 * its arrays transferred, the gradient norms NaN while result.backwardPending. Returns the pending
 * backward for runBackwardSlice, or null when the result is whole.
 */
export function runForward(engine, { session, id, cfg, sentAt }, post) {
  const t0 = performance.now();
  const startedAt = epoch();
  const r = engine.runForward(cfg);
  const T = cfg.seqLen ?? engine.defaults().seqLen;
  const heat = downsampleAttention(r.attention, T, HEATMAP_SIDE);
  const result = {
    ...scalarsOf(r),
    histogram: r.histogram,
    rawHistogram: r.rawHistogram,
    rowEntropy: r.rowEntropy,
    rowMaxWeight: r.rowMaxWeight,
    rowJacobianNorm: r.rowJacobianNorm,
    heatmap: heat,
    workerMs: performance.now() - t0,
    // Epoch timestamps (ms) of the request's trip, for the budgets script.
    timing: { sentAt, startedAt, postedAt: epoch() },
  };
  const transfer = [
    ...new Set([
      r.histogram.edges.buffer,
      r.histogram.counts.buffer,
      r.rawHistogram.edges.buffer,
      r.rawHistogram.counts.buffer,
      r.rowEntropy.buffer,
      r.rowMaxWeight.buffer,
      r.rowJacobianNorm.buffer,
      heat.data.buffer,
    ]),
  ];
  post({ type: 'run', session, id, cfg, result }, transfer);
  return r.backwardPending ? { session, id, cfg, sentAt, shown: false, startedAt: null, workerMs: 0 } : null;
}

/**
 * About sliceMs of the pending backward; once it is done, posts { type: 'runGradients', session,
 * id, scalars (every scalar field of the run), workerMs, timing } and returns true.
 */
export function runBackwardSlice(engine, backward, post, sliceMs) {
  const t0 = performance.now();
  backward.startedAt ??= epoch();
  const scalars = engine.runBackward(sliceMs);
  backward.workerMs += performance.now() - t0;
  if (!scalars) return false;
  const { session, id, sentAt, startedAt, workerMs } = backward;
  post({
    type: 'runGradients',
    session,
    id,
    scalars,
    workerMs,
    timing: { sentAt, startedAt, postedAt: epoch() },
  });
  return true;
}
