// The d_k sweep of the page's setting (the sigma, entropy and gradients panels): one resumable
// engine job for every scaling, so the inputs are sampled and QKᵀ, GVᵀ accumulated once per d_k.
import { epoch } from './run.js';

/** A background job: next() advances by about `sliceMs` and posts the points it finished. */
export function sweepJob(engine, { session, id, cfg, dks, scales, part = 0, sentAt }, post, sliceMs) {
  const job = engine.sweepScalesJob(cfg, dks, scales);
  const startedAt = epoch();
  return {
    next() {
      const { done, value } = job.advance(sliceMs);
      if (value)
        post({
          type: 'sweepPoints',
          session,
          id,
          part,
          dk: value.dk,
          points: value.points,
          sentAt,
          startedAt,
        });
      if (done) post({ type: 'sweepDone', session, id, part });
      return !done;
    },
    dispose: () => job.delete(),
  };
}
