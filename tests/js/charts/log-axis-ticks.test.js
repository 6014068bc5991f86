// The decade tick function of the pages' log axes (uPlot's own never terminated for some ranges,
// freezing the page). Deterministic cases, including the degenerate ranges the page can produce.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { log10Splits } from '../../../web/src/charts/uplot-chart.js';

test('log10Splits: decades and their multiples inside the range', () => {
  assert.deepEqual(
    log10Splits(null, 1, 1, 100).filter((v) => [1, 10, 100].includes(v)),
    [1, 10, 100],
  );
  const ticks = log10Splits(null, 1, 0.003, 40);
  assert.ok(ticks.every((v) => v >= 0.003 * (1 - 1e-9) && v <= 40 * (1 + 1e-9)));
  assert.ok(ticks.includes(0.01) && ticks.includes(1) && ticks.includes(10));
});

test('log10Splits: wide, tiny, empty and invalid ranges end quickly with a bounded result', () => {
  for (const [min, max] of [
    [1e-300, 1e300],
    [1e-45, 3.4e38],
    [5, 5],
    [5, 5.0000001],
    [0, 10],
    [-1, 10],
    [NaN, 1],
    [1, Infinity],
    [2, 1],
  ]) {
    const start = performance.now();
    const ticks = log10Splits(null, 1, min, max);
    assert.ok(performance.now() - start < 50, `${min}..${max} took too long`);
    assert.ok(Array.isArray(ticks) && ticks.length <= 200, `${min}..${max}: ${ticks.length} ticks`);
    assert.ok(ticks.every(Number.isFinite), `${min}..${max}: non-finite tick`);
  }
});
