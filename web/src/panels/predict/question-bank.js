// The drill's questions: the two core ones (how σ of q·k grows with d_k; what a saturated softmax
// does to the gradient), three follow-ups (why √d_k and not d_k, inference, fp16/bf16) and three
// common mistakes, plus how many rows saturate. Each draws its setting from a seeded generator
// (questions.js) and never holds its answer: the answer is what the engine measures at the
// question's configs (predict-job.js), and a choice's right option is picked from those numbers.
//
// A question: { id, group, kind: 'number' | 'choice', quantity (the RunScalars field that is its
// number, at its first config), chapter (the page's section that shows it), draw(rng, s) → params,
// configs(params, s) → engine configs (the sample seed is added by questions.js), prompt(params, s),
// why(params, measured, s) → 2–3 sentences; a number question: answer { scale: 'log' | 'linear',
// min, max, tolerance: { factor } (on a log scale) | { within } (absolute) }; a choice question:
// options [{ value, label }], decide(measured, params) → the value the measured numbers pick, rule
// (the words of that decision) and basis(measured, params) → [label, number] pairs to show.
// `s` holds the schema's scalings by exponent (unscaled ×1, sqrt 1/√d_k, linear 1/d_k) and its
// 16-bit formats, so no list of the engine's is spelled here.
import { meta } from './meta.js';
import { fmt } from '../../ui/format.js';

const titleOf = (id) => meta.questions.find((q) => q.id === id).title;
const root = (x) => fmt(Math.sqrt(x), 3);
const ratio = (m, field) => m[1][field] / m[0][field];
/** The option whose factor is nearest to r on a log scale. */
const nearest = (r, factors) =>
  Object.entries(factors).sort((a, b) => Math.abs(Math.log(r / a[1])) - Math.abs(Math.log(r / b[1])))[0][0];

const LOG_25 = Object.freeze({ factor: 1.25 });
const ABS_10 = Object.freeze({ within: 0.1 });

const DEFS = [
  {
    id: 'sigma-growth',
    group: 'core',
    kind: 'choice',
    quantity: 'rawLogitStd',
    chapter: 'variance',
    draw: (r) => ({ dk: r.pick([4, 8, 16, 32, 64, 128]), seqLen: r.pick([64, 128, 256]) }),
    configs: (p, s) => [
      { dk: p.dk, seqLen: p.seqLen, scale: s.unscaled },
      { dk: 16 * p.dk, seqLen: p.seqLen, scale: s.unscaled },
    ],
    prompt: (p) =>
      `The components of q and k are independent draws from N(0, 1), and nothing scales the scores. d_k grows 16-fold, from ${p.dk} to ${16 * p.dk}. What happens to σ, the spread of the raw scores q·k?`,
    options: [
      { value: 'x4', label: 'It grows about 4-fold' },
      { value: 'x16', label: 'It grows about 16-fold' },
      { value: 'same', label: 'It stays about the same' },
    ],
    decide: (m) => nearest(ratio(m, 'rawLogitStd'), { same: 1, x4: 4, x16: 16 }),
    rule: 'the measured ratio σ(16·d_k) / σ(d_k) picks the option whose factor (1, 4 or 16) is nearest to it on a log scale',
    basis: (m, p) => [
      [`σ at d_k = ${p.dk}`, m[0].rawLogitStd],
      [`σ at d_k = ${16 * p.dk}`, m[1].rawLogitStd],
      ['ratio', ratio(m, 'rawLogitStd')],
    ],
    why: () =>
      'With independent, zero-mean, unit-variance components each product q_i·k_i has variance 1, so the sum of d_k of them has variance d_k. Its standard deviation, the spread the softmax sees, therefore grows like √d_k: sixteen times the dimensions, four times the spread.',
  },
  {
    id: 'saturation-gradient',
    group: 'core',
    kind: 'choice',
    quantity: 'jacobianNormMedian',
    chapter: 'gradients',
    draw: (r) => ({ dk: r.pick([32, 64, 128]), seqLen: r.pick([64, 256]) }),
    configs: (p, s) => [
      { dk: p.dk, seqLen: p.seqLen, scale: s.unscaled },
      { dk: 16 * p.dk, seqLen: p.seqLen, scale: s.unscaled },
    ],
    prompt: (p) =>
      `Every gradient that reaches q and k passes through the softmax's Jacobian, diag(p) − ppᵀ. With no scaling and T = ${p.seqLen} keys, d_k grows from ${p.dk} to ${16 * p.dk}. What happens to the norm of that Jacobian in the median row?`,
    options: [
      { value: 'collapses', label: 'It falls more than 10-fold: most rows pass almost nothing back' },
      { value: 'level', label: 'It stays within a factor of 10' },
      { value: 'grows', label: 'It grows more than 10-fold, with the logits' },
    ],
    decide: (m) => {
      const r = ratio(m, 'jacobianNormMedian');
      return r < 0.1 ? 'collapses' : r > 10 ? 'grows' : 'level';
    },
    rule: 'the measured ratio of the median row’s Jacobian norm at the two sizes: below 0.1 it collapses, above 10 it grows, else it stays level',
    basis: (m, p) => [
      [`median Jacobian norm at d_k = ${p.dk}`, m[0].jacobianNormMedian],
      [`at d_k = ${16 * p.dk}`, m[1].jacobianNormMedian],
      ['ratio', ratio(m, 'jacobianNormMedian')],
    ],
    why: () =>
      'Wide logits make a row nearly one-hot, and for a one-hot p every entry of diag(p) − ppᵀ is 0 or close to it: that row passes no gradient back to its query or its keys. Look at the median row, not the mean: the few rows that have not saturated hold the mean and the RMS gradient up.',
  },
  {
    id: 'saturated-share',
    group: 'core',
    kind: 'number',
    quantity: 'saturatedFraction',
    chapter: 'saturation',
    draw: (r) => ({ dk: r.pick([64, 128, 256, 512, 1024]), seqLen: r.pick([64, 256]) }),
    configs: (p, s) => [{ dk: p.dk, seqLen: p.seqLen, scale: s.unscaled }],
    prompt: (p) =>
      `No scaling, d_k = ${p.dk}, T = ${p.seqLen} keys, q and k with independent N(0, 1) components. What share of the attention rows is saturated, with a largest weight above 0.99? (0 is none, 1 is every row.)`,
    answer: { scale: 'linear', min: 0, max: 1, step: 0.01, tolerance: ABS_10 },
    why: (p) =>
      `Unscaled, the logits spread with σ ≈ √d_k ≈ ${root(p.dk)}, so the top logit of a row is often several units above the next one, and exp turns a gap of a few units into nearly all the weight. Such a row is one-hot in all but name.`,
  },
  {
    id: 'why-sqrt',
    group: 'follow-up',
    kind: 'number',
    quantity: 'logitStd',
    chapter: 'why-sqrt',
    draw: (r) => ({ dk: r.pick([64, 128, 256, 512, 1024]) }),
    configs: (p, s) => [{ dk: p.dk, seqLen: 256, scale: s.linear }],
    prompt: (p) =>
      `Why √d_k and not d_k? Divide the scores by d_k instead, at d_k = ${p.dk} (independent N(0, 1) components, T = 256). What is σ of the scaled logits?`,
    answer: { scale: 'log', min: 0.001, max: 10, tolerance: LOG_25 },
    why: (p) =>
      `The raw scores spread like √d_k, so dividing by d_k leaves √d_k / d_k = 1/√d_k, about ${fmt(1 / Math.sqrt(p.dk), 3)} here. Logits that small make every row close to uniform (entropy near ln T), which attends to nothing in particular; 1/√d_k brings σ to about 1.`,
  },
  {
    id: 'inference',
    group: 'follow-up',
    kind: 'number',
    quantity: 'maxWeight',
    chapter: 'serving',
    draw: (r) => ({ dk: r.pick([16, 32, 64, 128, 256]), seqLen: r.pick([64, 256]) }),
    configs: (p, s) => [
      { dk: p.dk, seqLen: p.seqLen, scale: s.unscaled },
      { dk: p.dk, seqLen: p.seqLen, scale: s.sqrt },
    ],
    prompt: (p) =>
      `Does the scale matter at inference? Weights were trained with 1/√d_k at d_k = ${p.dk}, and a hand-written serving kernel leaves it out. With T = ${p.seqLen} keys, what is the mean largest weight of a row (between 0 and 1) without the scale?`,
    answer: { scale: 'linear', min: 0, max: 1, step: 0.01, tolerance: ABS_10 },
    basis: (m) => [['mean largest weight with 1/√d_k, as trained', m[1].maxWeight]],
    why: (p) =>
      `The scale is a constant and costs nothing at inference, but the weights were fitted with it. Left out, every logit is √d_k ≈ ${root(p.dk)} times larger and each row piles onto its top key: the model served is not the model trained.`,
  },
  {
    id: 'low-precision',
    group: 'follow-up',
    kind: 'choice',
    quantity: 'nonFiniteRows',
    chapter: 'precision',
    draw: (r, s) => ({ precision: r.pick(s.formats16).value, dk: r.pick([8, 16, 32, 64, 256]) }),
    configs: (p, s) => [
      { dk: p.dk, seqLen: 256, scale: s.unscaled, precision: p.precision, subtractMax: false },
      { dk: p.dk, seqLen: 256, scale: s.unscaled, precision: p.precision, subtractMax: true },
    ],
    prompt: (p, s) =>
      `How does this meet fp16 and bf16? The forward runs in ${s.format(p.precision).label}, unscaled, at d_k = ${p.dk}, T = 256, and the softmax takes exp of each logit without first subtracting the row's largest. How many of the 256 rows end up with an inf or NaN weight?`,
    options: [
      { value: 'most', label: 'More than half of them' },
      { value: 'some', label: 'Some, at most half' },
      { value: 'none', label: 'None' },
    ],
    decide: (m) => {
      const share = m[0].nonFiniteRows / 256;
      return share > 0.5 ? 'most' : share > 0 ? 'some' : 'none';
    },
    rule: 'the measured count of rows with an inf or NaN weight: above 128 is most, 1 to 128 is some, 0 is none',
    basis: (m) => [
      ['rows with inf or NaN, exp of the raw logit', m[0].nonFiniteRows],
      ['the same with the row’s largest subtracted first', m[1].nonFiniteRows],
    ],
    why: (p, m, s) => {
      const f = s.format(p.precision);
      return `exp(z) overflows ${f.label} once z passes ln of its largest value, about ${fmt(Math.log(f.largestFinite), 3)}, and unscaled logits spread with σ ≈ √d_k ≈ ${root(p.dk)}. Subtracting each row's largest logit first keeps every exponent at or below 0 (the second count); FlashAttention does the same block by block, and the √d_k scale keeps the logits small to begin with.`;
    },
  },
  {
    id: 'mistake-normalizes',
    group: 'mistake',
    kind: 'choice',
    quantity: 'maxWeight',
    chapter: 'saturation',
    rowSums: true,
    draw: (r) => ({ dk: r.pick([32, 64, 128, 256]), seqLen: r.pick([64, 256]) }),
    configs: (p, s) => [
      { dk: p.dk, seqLen: p.seqLen, scale: s.unscaled },
      { dk: p.dk, seqLen: p.seqLen, scale: s.sqrt },
    ],
    prompt: (p) =>
      `A common claim: “the 1/√d_k scale normalizes the attention weights”. Leave the scale out at d_k = ${p.dk}, T = ${p.seqLen}. What happens to each row of weights?`,
    options: [
      { value: 'peaked', label: 'It still sums to 1, but piles onto fewer keys' },
      { value: 'unnormalized', label: 'It no longer sums to 1' },
      { value: 'same', label: 'Nothing: the softmax undoes any scale' },
    ],
    decide: (m) =>
      Math.max(m[0].rowSumError, m[1].rowSumError) > 1e-3
        ? 'unnormalized'
        : m[0].maxWeight > 1.5 * m[1].maxWeight
          ? 'peaked'
          : 'same',
    rule: 'the measured rows: if a row’s sum is off 1 by more than 0.001 they are not normalized; else if the mean largest weight without the scale is over 1.5 times that with it, the rows are more peaked; else nothing changed',
    basis: (m) => [
      ['mean largest weight, unscaled', m[0].maxWeight],
      ['mean largest weight, 1/√d_k', m[1].maxWeight],
      ['largest |row sum − 1|, unscaled', m[0].rowSumError],
    ],
    why: () =>
      'The softmax is what normalizes: each row of weights sums to 1 whatever the logits are. The scale only sets how large the logits are before the softmax, and so how sharp each row is.',
  },
  {
    id: 'mistake-dk',
    group: 'mistake',
    kind: 'number',
    quantity: 'rawLogitStd',
    chapter: 'variance',
    draw: (r) => ({ dk: r.pick([100, 400, 900, 1600, 2500]) }),
    configs: (p, s) => [{ dk: p.dk, seqLen: 256, scale: s.unscaled }],
    prompt: (p) =>
      `q and k have d_k = ${p.dk} independent components, each drawn from N(0, 1). Nothing scales the scores. What is σ of the raw scores q·k?`,
    answer: { scale: 'log', min: 0.1, max: 10000, tolerance: LOG_25 },
    why: (p) =>
      `The variance of q·k is d_k = ${p.dk}, so its standard deviation is √d_k = ${root(p.dk)}. Quoting d_k as the spread mixes up the variance with the standard deviation, and the standard deviation is what the scale divides out.`,
  },
  {
    id: 'mistake-assumption',
    group: 'mistake',
    kind: 'number',
    quantity: 'logitStd',
    chapter: 'variance',
    draw: (r) => ({
      ...r.pick([
        { std: 2, mean: 0 },
        { std: 0.5, mean: 0 },
        { std: 3, mean: 0 },
        { std: 1, mean: 1 },
        { std: 1, mean: 2 },
      ]),
      dk: r.pick([64, 128, 256]),
    }),
    configs: (p, s) => [{ dk: p.dk, seqLen: 256, scale: s.sqrt, mean: p.mean, std: p.std }],
    prompt: (p) =>
      `The usual derivation assumes independent components with mean 0 and variance 1. Here each component of q and k is an independent draw from N(${p.mean}, ${p.std}²), d_k = ${p.dk}, and the scores are divided by √d_k. What is σ of the scaled logits?`,
    answer: { scale: 'log', min: 0.01, max: 100, tolerance: LOG_25 },
    why: (p) => {
      const v = p.std ** 4 + 2 * p.std ** 2 * p.mean ** 2;
      return `Each product q_i·k_i now has variance σ⁴ + 2σ²μ² = ${fmt(v, 3)} instead of 1, so dividing by √d_k leaves a spread of √${fmt(v, 3)} ≈ ${root(v)}, not 1. The √d_k rule is only as good as its assumption: state it, and check it on real q and k (a model's report measures them).`;
    },
  },
];

export const QUESTION_DEFS = Object.freeze(DEFS.map((d) => Object.freeze({ ...d, title: titleOf(d.id) })));
