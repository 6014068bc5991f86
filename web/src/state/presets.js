// The page's presets: settings that name the values they set. Pure data. PRESETS is the story,
// step by step. Each is the schema defaults plus a few overrides (so a step always means the same
// thing whatever was set before), a title, a one-line note of what to look at, and the chart that
// shows it. The training panel's and chapter 8's presets are in study-presets.js.

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
