// The d_k sweep of the page's setting (the sigma, entropy and gradients panels): one resumable
// engine job for every scaling, so the inputs are sampled and QKᵀ, GVᵀ accumulated once per d_k.
// With `estimateRows` the job is the sweep's estimate (engine.sweepEstimateJob: every statistic
// from that many query rows against all the keys, with its standard error) instead, without the
// backward: the charts draw no gradient from an estimate, and it is half the estimate's work.
import { epoch } from './run.js';

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
