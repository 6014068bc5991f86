// The app's background requests: the d_k sweep, the softmax variants and the overflow thresholds
// of the current setting. They are sent once the foreground result for the same change is on
// screen, so they never compete with the answer to a slider move; each is sent again only when the
// fields it depends on changed (a sweep ignores d_k and the scaling, the variants the softmax).
import { keyOf } from '../state/state.js';
import { scalingsOf } from '../state/choices.js';
import { thresholdsConfig } from '../panels/meta.js';

const SWEEP_OMIT = ['dk', 'scale'];
const VARIANTS_OMIT = ['softmax', 'subtractMax'];

/**
 * createBackgroundJobs({ session, schema, dks, metas, each, counters }) → { due(), nearThresholds(),
 * flush(config) }. `metas`: the mounted panels' meta (which jobs they need); `each(method, …)`
 * tells every panel; `counters` counts the requests sent.
 */
export function createBackgroundJobs({ session, schema, dks, metas, each, counters }) {
  const wantsSweep = metas.some((m) => m.sweep);
  const scales = scalingsOf(schema).map((c) => c.value); // a sweep measures every named scaling
  const variants = metas.map((m) => m.variants).find(Boolean) ?? null;
  let lastSweepKey = null,
    lastVariantsKey = null,
    lastThresholdsKey = null;
  let due = false;
  let thresholdsNear = false;

  function sweep(config) {
    const k = keyOf(config, schema, SWEEP_OMIT);
    if (k === lastSweepKey) return;
    lastSweepKey = k;
    const cfg = { ...config };
    for (const o of SWEEP_OMIT) delete cfg[o];
    each('sweepReset', dks.length * scales.length, { seqLen: cfg.seqLen });
    session.sweep(cfg, dks, scales);
    counters.sweepRequests += 1;
  }
  function runVariants(config) {
    const k = keyOf(config, schema, VARIANTS_OMIT);
    if (k === lastVariantsKey) return;
    lastVariantsKey = k;
    each('variantsReset');
    session.variants(config, variants);
    counters.variantRequests += 1;
  }
  function thresholds(config) {
    const cfg = thresholdsConfig(config);
    const k = JSON.stringify(cfg);
    if (k === lastThresholdsKey) return;
    lastThresholdsKey = k;
    each('thresholdsReset', cfg);
    session.thresholds(cfg, dks);
    counters.thresholdsRequests += 1;
  }

  return {
    /** A new run went out: its background jobs follow once its result is in. */
    due() {
      due = true;
    },
    /** The thresholds table came near the viewport: it measures from now on. */
    nearThresholds() {
      thresholdsNear = true;
      due = true;
    },
    /** Sends what is due (if the foreground Worker is free); false when nothing was due. */
    flush(config) {
      if (!due || session.busy) return false;
      due = false;
      if (wantsSweep) sweep(config);
      if (variants) runVariants(config);
      if (thresholdsNear) thresholds(config);
      return true;
    },
  };
}
