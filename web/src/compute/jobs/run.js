// The single run of the page's current setting: the engine's scalars and per-row arrays, and the
// attention matrix reduced for display (the heatmap panel's part). The engine's arrays are the
// Worker's own copies: they move to the page (transfer), never copied.
import { downsampleAttention } from './downsample-attention.js';

const HEATMAP_SIDE = 256;

/** Plain scalars of a run result (numbers, strings, null) plus the nonFinite counts. */
export function scalarsOf(r) {
  const out = {};
  for (const [k, v] of Object.entries(r)) {
    if (v === null || typeof v === 'number' || typeof v === 'string' || typeof v === 'boolean') out[k] = v;
  }
  if (r.nonFinite) out.nonFinite = { ...r.nonFinite };
  return out;
}

/** Epoch time (ms) in any realm: the page and the Workers compare these. */
export const epoch = () => performance.timeOrigin + performance.now();

/** Runs `cfg` and posts { type: 'run', session, id, cfg, result } with its arrays transferred. */
export function runOnce(engine, { session, id, cfg, sentAt }, post) {
  const t0 = performance.now();
  const startedAt = epoch();
  const r = engine.run(cfg);
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
}
