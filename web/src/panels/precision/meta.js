// The precision panel as the registry (panels/index.js) sees it before its code loads, with its
// background job: the page's setting run again under each reference softmax variant, on the
// same inputs (precision-job.js).

export const PRECISION_VARIANTS = Object.freeze([
  { id: 'naive-nosub', label: 'two-pass, no max subtraction', set: { softmax: 'naive', subtractMax: false } },
  { id: 'naive-sub', label: 'two-pass, max subtracted', set: { softmax: 'naive', subtractMax: true } },
  { id: 'online', label: 'online (streaming)', set: { softmax: 'online', subtractMax: true } },
]);
// Every variant sets these, so a change of them alone does not change the job.
const VARIANT_FIELDS = ['softmax', 'subtractMax'];

export const meta = Object.freeze({
  name: 'precision',
  title: 'Precision: where values stop being finite',
  gif: true,
  job: Object.freeze({
    kind: 'variants',
    title: 'The softmax variants',
    // The sweep Workers' last, away from the overflow thresholds on their first.
    worker: { pool: -1 },
    counter: 'variantRequests',
    request(config) {
      const cfg = { ...config };
      for (const f of VARIANT_FIELDS) delete cfg[f];
      return { cfg, variants: PRECISION_VARIANTS.map((v) => v.set) };
    },
  }),
});
