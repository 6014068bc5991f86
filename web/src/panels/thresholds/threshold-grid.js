// The overflow-thresholds table's grid, for the panel and its Worker job alike: a row per number
// format, without and with max subtraction, and a column per named scaling, all as the engine's
// schema lists them. No DOM.

/** engine.schema → { rows: [{ precision, subtractMax }], scales: [scaling name] }, in the schema's order. */
export function thresholdGrid(schema) {
  const choices = (name) => schema?.find((f) => f.name === name)?.choices ?? [];
  return {
    rows: choices('precision').flatMap((format) =>
      [false, true].map((subtractMax) => ({ precision: format.value, subtractMax })),
    ),
    scales: choices('scale').map((c) => c.value),
  };
}
