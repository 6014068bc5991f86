// What the app needs to know about each chart panel before its code is loaded: title, whether it
// draws the d_k sweeps, which softmax variants it runs, whether it downloads as a GIF (the charts
// that change with d_k: the Embed dialog's Markdown route names that file). Each panel module
// re-exports its entry as `meta`, so this table is the one place these are written.

// The precision panel's reference variants (run on the same inputs as the current setting).
export const PRECISION_VARIANTS = Object.freeze([
  { id: 'naive-nosub', label: 'two-pass, no max subtraction', set: { softmax: 'naive', subtractMax: false } },
  { id: 'naive-sub', label: 'two-pass, max subtracted', set: { softmax: 'naive', subtractMax: true } },
  { id: 'online', label: 'online (streaming)', set: { softmax: 'online', subtractMax: true } },
]);

// The thresholds panel's computation: every format, scaling and max subtraction, with these of the
// page's settings (T capped: its 30 sweeps up to d_k 4096 take about 2 s at T 256, 64× that at 2048).
export const THRESHOLDS_MAX_SEQ_LEN = 256;
export function thresholdsConfig(c) {
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

export const PANEL_META = Object.freeze({
  spread: { name: 'spread', title: 'Logit spread', gif: true },
  sigma: { name: 'sigma', title: 'σ of the logits vs d_k', sweep: true, gif: true },
  entropy: { name: 'entropy', title: 'Softmax entropy and saturation vs d_k', sweep: true, gif: true },
  gradients: { name: 'gradients', title: 'Gradient health', sweep: true, gif: true },
  heatmap: { name: 'heatmap', title: 'Attention weights', gif: true },
  precision: {
    name: 'precision',
    title: 'Precision: where values stop being finite',
    variants: PRECISION_VARIANTS.map((v) => v.set),
    gif: true,
  },
  training: { name: 'training', title: 'Training side by side' },
  thresholds: { name: 'thresholds', title: 'Where each format overflows', thresholds: true },
  schemes: { name: 'schemes', title: 'Scaling schemes vs d_k, three assumptions' },
  length: { name: 'length', title: 'Attention vs context length T' },
  report: { name: 'report', title: 'Your model, head by head' },
});
