// The page's presets: settings that name the values they set. Pure data. Each is the schema
// defaults plus a few overrides (so a preset always means the same thing whatever was set before),
// a title, a one-line note of what to look at, the chart that shows it, and its group: 'story' is
// the walk-through, one step per chapter of the argument (its number is the chapter's); the other
// groups sit with their topics under "Going further". The page's HTML names each group where its
// buttons go (data-presets="group"); the build writes the buttons there (static-presets.js).
// The training panel's and the schemes chart's presets are in study-presets.js.

export const PRESETS = Object.freeze([
  {
    id: 'spread',
    group: 'story',
    title: 'The dot product spreads out',
    set: { dk: 512 },
    note: 'At d_k = 512 the raw q·k spread with σ ≈ √512 ≈ 22.6; after 1/√d_k the logits fed to the softmax keep σ ≈ 1.',
    chart: 'spread',
  },
  {
    id: 'unscaled',
    group: 'story',
    title: 'The softmax turns into a hard max',
    set: { dk: 128, scale: 'none' },
    note: 'Without the scale the logits spread by about √128 ≈ 11: a typical row hands most of its weight to a single key and the entropy falls far below ln T.',
    chart: 'heatmap',
  },
  {
    id: 'no-gradient',
    group: 'story',
    title: 'A saturated row passes no gradient',
    set: { dk: 1024, scale: 'none' },
    note: 'At d_k = 1024 unscaled, most rows are one-hot: their Jacobian, and the gradient through them, is close to zero. The sorted rows show how many.',
    chart: 'gradients',
  },
  {
    id: 'overscaled',
    group: 'story',
    title: '√d_k, not d_k',
    set: { dk: 128, scale: 'linear' },
    note: 'Dividing by d_k instead of √d_k shrinks the logits far below 1: attention becomes nearly uniform and its entropy sits at the ln T ceiling.',
    chart: 'entropy',
  },
  {
    id: 'fp16-overflow',
    group: 'story',
    title: 'fp16 overflows without the max subtracted',
    set: { dk: 128, scale: 'none', precision: 'fp16', subtractMax: false },
    note: 'Logits above ln(65504) ≈ 11.1 overflow exp() in fp16: infinities appear, then NaN weights (inf/inf). Tick “subtract max” in the settings to fix it.',
    chart: 'precision',
  },
  {
    id: 'serve-unscaled',
    group: 'story',
    title: 'Serve with a different scale',
    set: { scale: 'none' },
    note: 'The default d_k with the scale left out, as a serving kernel that forgot it would run: every row is sharper than the one the model was trained with.',
    chart: 'heatmap',
  },
  {
    id: 'fp16-fixed',
    group: 'precision',
    title: 'The fix: subtract the max',
    set: { dk: 128, scale: 'none', precision: 'fp16', subtractMax: true },
    note: 'Subtracting each row’s maximum first makes every exponent ≤ 0, so exp() cannot overflow; the weights are the same function.',
    chart: 'precision',
  },
  {
    id: 'online',
    group: 'precision',
    title: 'Streaming (online) softmax',
    set: { dk: 128, scale: 'none', precision: 'fp16', softmax: 'online', blockSize: 64 },
    note: 'The online softmax keeps a running maximum over blocks of keys, as FlashAttention does; it matches the two-pass result to rounding.',
    chart: 'precision',
  },
  {
    id: 'softcap-fp16',
    group: 'precision',
    title: 'Soft-cap 50 in fp16, no max subtraction',
    set: { dk: 1024, scale: 'none', softcap: 50, precision: 'fp16', subtractMax: false },
    note: 'A cap of 50 does not save fp16: exp overflows above ln 65504 ≈ 11.1, far below 50. Subtracting the maximum still does.',
    chart: 'precision',
  },
  {
    id: 'correlated',
    group: 'qk-norm',
    title: 'Broken assumption',
    set: { dk: 128, mean: 0.5, correlation: 0.5 },
    note: 'With a non-zero mean and correlated q and k, the spread after 1/√d_k settles above 1 and each token’s score with itself stands out: the √d_k rule rests on the i.i.d. assumption.',
    chart: 'sigma',
  },
  {
    id: 'qknorm-layer',
    group: 'qk-norm',
    title: 'Layer-norm q and k',
    set: { dk: 512, mean: 1, std: 2, qkNorm: 'layer' },
    note: 'Mean 1 and std 2 break the assumption, but a layer norm over each q and k row puts mean 0 and variance 1 back: after 1/√d_k the logits spread by about 1 again, at every d_k.',
    chart: 'sigma',
  },
  {
    id: 'qknorm-rms',
    group: 'qk-norm',
    title: 'RMS-norm q and k',
    set: { dk: 512, mean: 1, std: 2, qkNorm: 'rms' },
    note: 'An RMS norm fixes the scale but keeps the mean: every logit carries a common offset that grows like √d_k. The softmax ignores it; a soft-cap and exp without max subtraction do not.',
    chart: 'spread',
  },
  {
    id: 'mup',
    group: 'mup',
    title: 'μP: correlated q and k',
    set: { dk: 1024, correlation: 0.5 },
    note: 'With correlated q and k the self-score grows like d_k: with 1/√d_k the rows saturate more as d_k grows, while 1/d_k keeps them in range.',
    chart: 'entropy',
  },
  {
    id: 'softcap',
    group: 'softcap',
    title: 'Soft-cap 50, unscaled',
    set: { dk: 1024, scale: 'none', softcap: 50 },
    note: 'Gemma 2’s soft-cap c·tanh(z/c), c = 50: the unscaled logits are pressed into (−50, 50).',
    chart: 'spread',
  },
  {
    id: 'length-scale',
    group: 'length',
    title: 'Long context with s·ln n',
    set: { seqLen: 1024, dk: 64, correlation: 0.5, lengthScale: 0.43 },
    note: 'Scalable-Softmax multiplies each row’s logits by 0.43·ln n: at T = 1024 a row’s largest weight averages 0.61, against 0.05 without the factor.',
    chart: 'heatmap',
  },
]);

/** The presets of one group, in order. */
export const presetsOf = (group) => PRESETS.filter((p) => p.group === group);
