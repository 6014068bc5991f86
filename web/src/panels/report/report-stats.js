// What the report's grid can colour its cells by, the sentence that sums a model up, and the CSV
// of every head. Pure, no DOM. The number formats come from the engine's schema (the `precision`
// field's choices, with their largest finite values).
import { formatsOf, formatOf } from '../../state/choices.js';

/** The schema's number formats, widest range first: the detail's precision table, the overflow statistics. */
export function formatsByRange(schema) {
  return [...formatsOf(schema)].sort((a, b) => b.largestFinite - a.largestFinite);
}

/** ln of a format's largest finite value: exp(z) overflows above it (z the logit fed to exp). */
export const lnMax = (format) => Math.log(format.largestFinite);

/** A statistic: value(head report), the range its colours span (values outside are clamped). */
const stat = (id, label, short, value, range = [0, 1]) => ({ id, label, short, value, range, digits: 3 });

const overflowStat = (format) =>
  stat(
    `overflow-${format.value}`,
    `largest logit ÷ ln(max) of ${format.value} (${lnMax(format).toFixed(2)})`,
    `largest logit ÷ ln(max ${format.value})`,
    (r) => r.logitMax / lnMax(format),
    [0, 2],
  );

/**
 * An attention sink (Xiao et al. 2023, "Efficient Streaming Language Models with Attention Sinks",
 * arXiv 2309.17453): a head whose rows park their weight on the first key. Flagged when the mean
 * weight on key 0 is at least SINK_MIN and at least SINK_TIMES × what key 0 gets with no preference.
 */
export const SINK_MIN = 0.5;
const SINK_TIMES = 4;

/** Key 0's mean weight when every row spreads its weight evenly: 1/T, or H_T/T when causal (row i sees i + 1 keys). */
export function noPreferenceSink(seqLen, causal) {
  if (!causal) return 1 / seqLen;
  let harmonic = 0;
  for (let i = 1; i <= seqLen; i++) harmonic += 1 / i;
  return harmonic / seqLen;
}

/** Whether a head with this mean weight on key 0 is an attention sink. */
export const isSink = (sinkWeight, seqLen, causal) =>
  sinkWeight >= Math.max(SINK_MIN, SINK_TIMES * noPreferenceSink(seqLen, causal));

/** What the grid can colour its cells by: the head's shape, then each of the schema's formats. */
export const reportStats = (schema) => [
  stat(
    'sigma',
    'σ of the raw logits ÷ its i.i.d. value',
    'σ ÷ i.i.d. σ',
    (r) => r.rawLogitStd / r.iidRawLogitStd,
    [0, 3],
  ),
  stat('entropy', 'entropy of a row ÷ ln n (1: uniform)', 'entropy ÷ ln n', (r) => r.entropy / r.entropyMax),
  stat('maxWeight', 'mean largest weight of a row', 'mean largest weight', (r) => r.maxWeight),
  stat('saturated', 'saturated rows (largest weight > 0.99)', 'saturated rows', (r) => r.saturatedFraction),
  stat('sink', 'mean weight on key 0 (attention sink)', 'weight on key 0', (r) => r.sinkWeight),
  ...formatsByRange(schema).map(overflowStat),
];

/** A layer's name as shown: its prefix without the trailing separator (`layers.3.` → `layers.3`). */
export const layerLabel = (prefix) => prefix.replace(/[._/:-]$/, '') || '(unnamed)';

/** The statistic of `stats` called `id` (the first, if none is). */
export const statById = (stats, id) => stats.find((s) => s.id === id) ?? stats[0];

/** A value's place on the colour scale, 0…1; NaN for a value that is not finite. */
export function statPosition(stat, value) {
  if (!Number.isFinite(value)) return NaN;
  const [lo, hi] = stat.range;
  return Math.min(1, Math.max(0, (value - lo) / (hi - lo)));
}

const median = (xs) => {
  const s = xs.filter(Number.isFinite).sort((a, b) => a - b);
  return s.length
    ? s.length % 2
      ? s[(s.length - 1) / 2]
      : (s[s.length / 2 - 1] + s[s.length / 2]) / 2
    : NaN;
};
/** '1 head', '3 heads': a count with its noun. */
export const count = (n, noun) => `${n} ${noun}${n === 1 ? '' : 's'}`;
const have = (n) => (n === 1 ? 'has' : 'have');

/**
 * What a model's numbers mean, in words: `reports` every head measured so far (with `layer`),
 * `options` the logit settings they were measured with, `schema` the engine's.
 */
export function modelSentence(reports, options, schema) {
  const n = reports.length;
  if (n === 0) return '';
  const precisionField = schema?.find((f) => f.name === 'precision');
  const { precision = precisionField?.default, subtractMax = true } = options ?? {};
  const fp16 = lnMax(formatOf(schema, 'fp16'));
  const layers = new Set(reports.map((r) => r.layer)).size;
  const halfSaturated = reports.filter((r) => r.saturatedFraction > 0.5).length;
  const ratios = reports.map((r) => r.rawLogitStd / r.iidRawLogitStd);
  const aligned = ratios.filter((x) => x > 1.5).length;
  const above = reports.filter((r) => r.logitMax > fp16).length;
  const nonFinite = reports.filter((r) => r.nonFinite.weights > 0 || r.nonFinite.logits > 0).length;
  const parts = [
    `${halfSaturated} of ${count(n, 'head')} in ${count(layers, 'layer')} ${have(halfSaturated)} more than half ` +
      'their rows saturated (largest weight above 0.99).',
    `The σ of the raw logits is ${median(ratios).toFixed(2)}× its i.i.d. value at the median head` +
      (aligned
        ? `; ${count(aligned, 'head')} ${aligned === 1 ? 'exceeds' : 'exceed'} 1.5×: q and k aligned, so the logits grow faster than √d_k.`
        : '; no head exceeds 1.5×.'),
    above
      ? `${count(above, 'head')} ${have(above)} a logit above fp16's ln(max) = ${fp16.toFixed(2)}: exp overflows there in fp16 unless the row's max is subtracted.`
      : `No logit reaches fp16's ln(max) = ${fp16.toFixed(2)}: fp16 would not overflow even without max subtraction.`,
  ];
  const sinks = reports.filter((r) => r.sink).length;
  parts.push(
    sinks
      ? `${count(sinks, 'head')} ${sinks === 1 ? 'is an attention sink' : 'are attention sinks'}: key 0 takes at least ${SINK_MIN} of the weight on average.`
      : `No head is an attention sink (key 0 takes less than ${SINK_MIN} of the weight on average).`,
  );
  if (nonFinite)
    parts.push(
      `In ${precision}${subtractMax ? '' : ' without max subtraction'}, ${count(nonFinite, 'head')} ${have(nonFinite)} non-finite logits or weights.`,
    );
  return parts.join(' ');
}

const flat = (r) => {
  const out = {};
  for (const [key, value] of Object.entries(r)) {
    if (key === 'nonFinite')
      for (const [stage, count] of Object.entries(value)) out[`nonFinite.${stage}`] = count;
    else out[key] = value;
  }
  return out;
};

/** Every head's fields, one row each, with its layer's name first. */
export function reportRows(reports) {
  if (!reports.length) return [['layer', 'head']];
  const first = flat(reports[0]);
  const keys = Object.keys(first).filter((k) => k !== 'layer' && k !== 'layerName');
  const rows = [['layer', ...keys]];
  for (const r of reports) {
    const f = flat(r);
    rows.push([r.layerName, ...keys.map((k) => f[k] ?? '')]);
  }
  return rows;
}
