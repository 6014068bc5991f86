// The overflow-thresholds table's grid, for the panel and its Worker job alike: a row per number
// format, without and with max subtraction, and a column per named scaling, all as the engine's
// schema lists them. No DOM.
import { formatsOf, scalingsOf } from '../../state/choices.js';

/** engine.schema → { rows: [{ precision, subtractMax }], scales: [scaling name] }, in the schema's order. */
export function thresholdGrid(schema) {
  return {
    rows: formatsOf(schema).flatMap((format) =>
      [false, true].map((subtractMax) => ({ precision: format.value, subtractMax })),
    ),
    scales: scalingsOf(schema).map((c) => c.value),
  };
}
