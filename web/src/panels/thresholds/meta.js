// The thresholds panel as the registry (panels/index.js) sees it before its code loads, with its
// background job: every format, scaling and max subtraction at these of the page's settings
// (thresholds-job.js). It starts once the table comes near the viewport.

// T is capped: its 30 sweeps up to d_k 4096 take about 2 s at T 256, 64× that at 2048.
export const THRESHOLDS_MAX_SEQ_LEN = 256;
function thresholdsConfig(c) {
  const { seed, mean, std, correlation, causal, saturate } = c;
  return {
    seqLen: Math.min(c.seqLen, THRESHOLDS_MAX_SEQ_LEN),
    seed,
    mean,
    std,
    correlation,
    causal,
    saturate,
  };
}

export const meta = Object.freeze({
  name: 'thresholds',
  title: 'Where each format overflows',
  job: Object.freeze({
    kind: 'thresholds',
    title: 'The overflow thresholds search',
    worker: 'background',
    startsNear: true,
    request: (config, { dks }) => ({ cfg: thresholdsConfig(config), dks: Array.from(dks) }),
  }),
});
