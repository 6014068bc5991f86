// The lists the page shows, as the engine publishes them: each enum or scale field of
// engine.schema lists its `choices` (the named scalings with their labels and exponents, the number
// formats with their bits and largest finite values). Every function takes the schema (the
// Worker's `ready` message, or engine.schema), so a scaling or a format added to the engine's
// tables reaches every panel without a list of its own here.
import { fmt } from '../ui/format.js';

/** Field `name`'s choices: [{ value, label, … }] in the engine's order ([] for a field without). */
const choicesOf = (schema, name) => schema?.find((f) => f.name === name)?.choices ?? [];

/** The named scalings: { value, label, formula, tex, exponent } (the multiplier is d_k^exponent). */
export const scalingsOf = (schema) => choicesOf(schema, 'scale');

/** The number formats: { value, label, exponentBits, mantissaBits, largestFinite, hasInfinity, canSaturate }. */
export const formatsOf = (schema) => choicesOf(schema, 'precision');

/** The format named `precision`, or undefined. */
export const formatOf = (schema, precision) => formatsOf(schema).find((f) => f.value === precision);

/** How a scaling is shown: its label ('1/√d_k'), or '× m' for a custom multiplier m. */
export function scaleLabel(scale, schema) {
  if (typeof scale === 'number') return `× ${fmt(scale)}`;
  return scalingsOf(schema).find((c) => c.value === scale)?.label ?? String(scale);
}

/** Powers of two within the schema's d_k range: the d_k sweep's x values and a GIF's steps. */
export function sweepDks(schema) {
  const f = schema.find((x) => x.name === 'dk');
  const lo = f?.min ?? 1,
    hi = f?.max ?? 4096;
  const out = [];
  for (let p = 1; p <= hi; p *= 2) if (p >= lo) out.push(p);
  return out;
}
