// Presets: settings that name the values they set. Pure data.
//   - PRESETS: the story, step by step. Each is the schema defaults plus a few overrides (so a
//     step always means the same thing whatever was set before), a title, a one-line note of what
//     to look at, and the chart that shows it;
//   - TRAIN_PRESETS, FINDINGS_PRESETS: the training panel's one-click comparisons;
//   - SCHEMES_STUDY: the fixed setup and the schemes of chapter 8's comparison of scalings.

export const PRESETS = Object.freeze([
  {
    id: 'baseline',
    title: 'i.i.d. baseline',
    set: {},
    note: 'Components of q and k are independent N(0, 1) and the logits are scaled by 1/√d_k: their spread stays near 1 at every d_k.',
    chart: 'sigma',
  },
  {
    id: 'unscaled',
    title: 'd_k = 128, unscaled',
    set: { dk: 128, scale: 'none' },
    note: 'Without the scale the logits spread by about √128 ≈ 11: a typical row hands most of its weight to a single key and the entropy falls far below ln T.',
    chart: 'spread',
  },
  {
    id: 'overscaled',
    title: 'Over-scaled by 1/d_k',
    set: { dk: 128, scale: 'linear' },
    note: 'Dividing by d_k instead of √d_k shrinks the logits far below 1: attention becomes nearly uniform and its entropy sits at the ln T ceiling.',
    chart: 'entropy',
  },
  {
    id: 'correlated',
    title: 'Broken assumption',
    set: { dk: 128, mean: 0.5, correlation: 0.5 },
    note: 'With a non-zero mean and correlated q and k, the spread after 1/√d_k settles above 1 and each token’s score with itself stands out: the √d_k rule rests on the i.i.d. assumption.',
    chart: 'sigma',
  },
  {
    id: 'fp16-overflow',
    title: 'fp16 overflow, no max subtraction',
    set: { dk: 128, scale: 'none', precision: 'fp16', subtractMax: false },
    note: 'Logits above ln(65504) ≈ 11.1 overflow exp() in fp16: infinities appear, then NaN weights (inf/inf).',
    chart: 'precision',
  },
  {
    id: 'fp16-fixed',
    title: 'The fix: subtract the max',
    set: { dk: 128, scale: 'none', precision: 'fp16', subtractMax: true },
    note: 'Subtracting each row’s maximum first makes every exponent ≤ 0, so exp() cannot overflow; the weights are the same function.',
    chart: 'precision',
  },
  {
    id: 'online',
    title: 'Streaming (online) softmax',
    set: { dk: 128, scale: 'none', precision: 'fp16', softmax: 'online', blockSize: 64 },
    note: 'The online softmax keeps a running maximum over blocks of keys, as FlashAttention does; it matches the two-pass result to rounding.',
    chart: 'precision',
  },
  {
    id: 'qknorm-layer',
    title: 'Layer-norm q and k',
    set: { dk: 512, mean: 1, std: 2, qkNorm: 'layer' },
    note: 'Mean 1 and std 2 break the assumption, but a layer norm over each q and k row puts mean 0 and variance 1 back: after 1/√d_k the logits spread by about 1 again, at every d_k.',
    chart: 'sigma',
  },
  {
    id: 'qknorm-rms',
    title: 'RMS-norm q and k',
    set: { dk: 512, mean: 1, std: 2, qkNorm: 'rms' },
    note: 'An RMS norm fixes the scale but keeps the mean: every logit carries a common offset that grows like √d_k. The softmax ignores it; a soft-cap and exp without max subtraction do not.',
    chart: 'spread',
  },
  {
    id: 'mup',
    title: 'μP: correlated q and k',
    set: { dk: 1024, correlation: 0.5 },
    note: 'With correlated q and k the self-score grows like d_k: with 1/√d_k the rows saturate more as d_k grows, while 1/d_k keeps them in range.',
    chart: 'entropy',
  },
  {
    id: 'softcap',
    title: 'Soft-cap 50, unscaled',
    set: { dk: 1024, scale: 'none', softcap: 50 },
    note: 'Gemma 2’s soft-cap c·tanh(z/c), c = 50: the unscaled logits are pressed into (−50, 50).',
    chart: 'spread',
  },
  {
    id: 'softcap-fp16',
    title: 'Soft-cap 50 in fp16, no max subtraction',
    set: { dk: 1024, scale: 'none', softcap: 50, precision: 'fp16', subtractMax: false },
    note: 'A cap of 50 does not save fp16: exp overflows above ln 65504 ≈ 11.1, far below 50. Subtracting the maximum still does.',
    chart: 'precision',
  },
  {
    id: 'length-scale',
    title: 'Long context with s·ln n',
    set: { seqLen: 1024, dk: 64, correlation: 0.5, lengthScale: 0.43 },
    note: 'Scalable-Softmax multiplies each row’s logits by 0.43·ln n: at T = 1024 a row’s largest weight averages 0.61, against 0.05 without the factor.',
    chart: 'heatmap',
  },
]);

/**
 * The training panel's one-click comparisons: the settings of the training findings (docs/science.md) (defaults: T 32, batch 16, Adam
 * 1e-3, fp32, seed 1, 500 steps) with d_k, initScale or the optimizer changed. `page` goes to the
 * page's config, `train` over the panel's defaults. `measured` quotes the native run's steps to
 * 90 % (docs/science.md); the run in the page repeats it bit for bit.
 */
export const TRAIN_PRESETS = Object.freeze([
  {
    id: 'dk16',
    title: 'd_k 16, init 1',
    page: { dk: 16 },
    train: {},
    measured: 'none 420, 1/√d_k 354, 1/d_k 477',
  },
  {
    id: 'dk64',
    title: 'd_k 64, init 1',
    page: { dk: 64 },
    train: {},
    measured: 'none 398, 1/√d_k 198, 1/d_k 331',
  },
  {
    id: 'dk256',
    title: 'd_k 256, init 1',
    page: { dk: 256 },
    train: {},
    measured: 'none 336, 1/√d_k 112, 1/d_k 292',
  },
  {
    id: 'dk256-init2',
    title: 'd_k 256, init 2',
    page: { dk: 256 },
    train: { initScale: 2 },
    measured: 'none not within 500 (accuracy 0.43 at the end), 1/√d_k 150, 1/d_k 192',
  },
  {
    id: 'dk256-init05',
    title: 'd_k 256, init 0.5',
    page: { dk: 256 },
    train: { initScale: 0.5 },
    measured: 'none 128, 1/√d_k 157, 1/d_k 404',
  },
  {
    id: 'dk256-sgd',
    title: 'd_k 256, SGD lr 1',
    page: { dk: 256 },
    train: { optimizer: 'sgd', learningRate: 1 },
    measured: 'none 373, 1/√d_k 58, 1/d_k not within 500 (accuracy 0.22 at the end)',
  },
]);

/**
 * The comparisons of the newer schemes (docs/science.md, "Beyond 1/√d_k", seed 1): each picks its
 * copies and asks one question; `measured` quotes the native run of the same settings.
 */
export const FINDINGS_PRESETS = Object.freeze([
  {
    id: 'qknorm-init2',
    title: 'Init 2, d_k 256: does QK-norm rescue the unscaled copy?',
    page: { dk: 256 },
    train: { initScale: 2, copies: ['none', 'sqrt', 'rms_sqrt', 'layer_sqrt'] },
    measured: 'none not within 500, 1/√d_k 150, RMS-norm + 1/√d_k 106, layer-norm + 1/√d_k 106',
  },
  {
    id: 'softcap-init2',
    title: 'Init 2, d_k 64: does a soft-cap?',
    page: { dk: 64 },
    train: { initScale: 2, copies: ['none', 'sqrt', 'none_cap5', 'none_cap50'] },
    measured: 'none not within 500, 1/√d_k 288, soft-cap 5 not within 500, soft-cap 50 not within 500',
  },
  {
    id: 'all-init1',
    title: 'Init 1, d_k 256: all eight copies',
    page: { dk: 256 },
    train: {
      copies: ['none', 'sqrt', 'linear', 'rms_sqrt', 'layer_sqrt', 'none_cap5', 'none_cap50', 'sqrt_logn'],
    },
    measured:
      'none 336, 1/√d_k 112, 1/d_k 292, RMS-norm 103, layer-norm 103, soft-cap 5 183, soft-cap 50 305, 0.43 ln T 108',
  },
  {
    id: 'logn-init2',
    title: 'Init 2, d_k 16: is s·ln T a larger scale?',
    page: { dk: 16 },
    train: { initScale: 2, copies: ['sqrt', 'linear', 'sqrt_logn'] },
    measured: '1/√d_k 478, 1/d_k 401, 1/√d_k × 0.43 ln T not within 500',
  },
]);
/** What every training preset sets on the page besides d_k: the findings' T and precision. */
export const PRESET_PAGE_BASE = Object.freeze({ seqLen: 32, precision: 'fp32' });

/**
 * Chapter 8's comparison of scaling schemes (panels/schemes), measured once on this setup under
 * three sampling assumptions: every named scaling of the engine (`scalingLabels` words some of
 * them for this chart), then these schemes, each a scaling on logits formed another way (`set`).
 */
export const SCHEMES_STUDY = Object.freeze({
  setup: Object.freeze({ seqLen: 128, seed: 1, dks: [2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048] }),
  conditions: [
    { id: 'iid', title: 'i.i.d. N(0, 1)', set: { mean: 0, std: 1, correlation: 0 } },
    { id: 'shifted', title: 'mean 1, std 2', set: { mean: 1, std: 2, correlation: 0 } },
    { id: 'correlated', title: 'mean 1, std 2, correlation 0.5', set: { mean: 1, std: 2, correlation: 0.5 } },
  ],
  scalingLabels: { none: 'no scaling', linear: '1/d_k (μP)' },
  schemes: [
    {
      id: 'rms',
      label: 'RMS-norm q, k, then 1/√d_k',
      set: { qkNorm: 'rms' },
      scale: 'sqrt',
      color: 'v2',
      dash: [9, 4],
    },
    {
      id: 'layer',
      label: 'layer-norm q, k, then 1/√d_k',
      set: { qkNorm: 'layer' },
      scale: 'sqrt',
      color: 'custom',
      dash: [3, 3],
    },
    {
      id: 'capNone',
      label: 'no scaling, soft-cap 50',
      set: { softcap: 50 },
      scale: 'none',
      color: 'warn',
      dash: [12, 3, 2, 3],
    },
    {
      id: 'capSqrt',
      label: '1/√d_k, soft-cap 50',
      set: { softcap: 50 },
      scale: 'sqrt',
      color: 'raw',
      dash: [2, 2],
      width: 3,
    },
  ],
});
