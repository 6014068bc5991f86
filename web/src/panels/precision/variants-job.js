// The precision panel's Worker job: the page's setting run again under each softmax variant
// (meta.js: PRECISION_VARIANTS), one run per step, so a newer request is seen between runs.
import { scalarsOf } from '../../compute/jobs/run.js';

export function variantsJob(engine, { session, id, cfg, variants }, post) {
  let i = 0;
  return {
    next() {
      if (i >= variants.length) {
        post({ type: 'variantsDone', session, id });
        return false;
      }
      const index = i++;
      const r = engine.run({ ...cfg, ...variants[index] });
      post({ type: 'variantPoint', session, id, index, point: scalarsOf(r) });
      return true;
    },
    dispose() {},
  };
}
