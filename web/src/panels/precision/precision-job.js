// The precision panel's Worker job: the page's setting run again under each softmax variant
// (meta.js: PRECISION_VARIANTS), one run per step, so a newer request is seen between runs. The
// panel shows no gradient, so each is run without the backward (engine.forwardStats).

function variantsJob(engine, { session, id, cfg, variants }, post) {
  let i = 0;
  return {
    next() {
      if (i >= variants.length) {
        post({ type: 'variantsDone', session, id });
        return false;
      }
      const index = i++;
      const point = engine.forwardStats({ ...cfg, ...variants[index] });
      post({ type: 'variantPoint', session, id, index, point });
      return true;
    },
    dispose() {},
  };
}

/** { type: 'variants', session, id, cfg, variants } → 'variantPoint'* { index, point }, 'variantsDone'. */
// urgent: it follows the page's current setting (worker.js serves it before the studies).
export const workerJobs = { variants: { start: variantsJob, urgent: true } };
