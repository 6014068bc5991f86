// The studies' presets: the training panel's one-click comparisons and findings, and chapter 8's
// comparison of scaling schemes. Data that name the values they set, like the page's presets
// (presets.js), kept apart from those because only these panels load them: the component's first
// load carries the page's presets alone.

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
