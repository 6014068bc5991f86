// The d_k sweep of the page's setting (the sigma, entropy and gradients panels): one resumable
// engine job for every scaling, so the inputs are sampled and QKᵀ, GVᵀ accumulated once per d_k.
// With `estimateRows` the job is the sweep's estimate (engine.sweepEstimateJob: every statistic
// from that many query rows against all the keys, with its standard error) instead, without the
// backward: the charts draw no gradient from an estimate, and it is half the estimate's work.
import { epoch } from './run.js';

/**
 * The floor that an exact point's logit range puts under its mean row entropy (Zhai et al. 2023,
 * Theorem 3.1; docs/science.md): a row of n keys with every logit in [logitMin, logitMax] has a
 * centred norm of at most (logitMax − logitMin)·√n / 2 (Popoviciu: its variance is at most a
 * quarter of the range squared), and B(n, σ) decreases in σ, so B(n, that) ≤ the row's entropy.
 * The mean over the rows, each seeing all T keys, or i + 1 of them under a causal mask.
 */
function rangeEntropyFloor(engine, p, { seqLen, causal }) {
  const range = p.logitMax - p.logitMin;
  if (!Number.isFinite(range)) return NaN;
  const floor = (n) => engine.entropyLowerBound(n, (range * Math.sqrt(n)) / 2);
  if (!causal) return floor(seqLen);
  let sum = 0;
  for (let n = 1; n <= seqLen; n++) sum += floor(n);
  return sum / seqLen;
}

/** A background job: next() advances by about `sliceMs` and posts the points it finished. */
export function sweepJob(engine, m, post, sliceMs) {
  const { session, id, cfg, dks, scales, part = 0, sentAt, estimateRows = 0 } = m;
  const job = estimateRows
    ? engine.sweepEstimateJob(cfg, dks, scales, { rows: estimateRows, gradients: false })
    : engine.sweepScalesJob(cfg, dks, scales);
  const startedAt = epoch();
  const budget = m.sliceMs ?? sliceMs;
  return {
    estimate: !!estimateRows,
    next() {
      const { done, value } = job.advance(budget);
      if (value && !estimateRows)
        for (const p of Object.values(value.points)) p.entropyFloor = rangeEntropyFloor(engine, p, cfg);
      if (value)
        post({
          type: 'sweepPoints',
          session,
          id,
          part,
          dk: value.dk,
          points: value.points,
          estimate: !!estimateRows,
          sentAt,
          startedAt,
        });
      if (done) post({ type: 'sweepDone', session, id, part });
      return !done;
    },
    dispose: () => job.delete(),
  };
}
