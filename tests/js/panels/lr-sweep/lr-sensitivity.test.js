// lr-sensitivity.js: the paper's LR sensitivity, the final-loss window and their errors.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  FINAL_FRACTION,
  LR_GRID,
  finalLoss,
  finalWindow,
  lrSensitivity,
} from '../../../../web/src/panels/lr-sweep/lr-sensitivity.js';

test('lr-sensitivity: the grid is the paper’s, 3e-4 … 3e-1', () => {
  assert.deepEqual([...LR_GRID], [3e-4, 1e-3, 3e-3, 1e-2, 3e-2, 1e-1, 3e-1]);
  assert.ok(Object.isFrozen(LR_GRID));
  assert.equal(FINAL_FRACTION, 0.05);
});

test('lr-sensitivity: the mean gap to the best rate, losses clipped at the initial loss', () => {
  // ℓ₀ = 2.77; best 0.5; the 4.0 run counts as 2.77, NaN and Infinity (diverged) too
  const l0 = 2.77;
  const got = lrSensitivity([1.0, 0.5, 0.7, 4.0, NaN, Infinity, 0.5], l0);
  const want = (0.5 + 0 + 0.2 + (l0 - 0.5) * 3 + 0) / 7;
  assert.ok(Math.abs(got - want) < 1e-15, `${got} vs ${want}`);
  assert.equal(lrSensitivity([0.3, 0.3, 0.3], l0), 0, 'the same loss at every rate: not sensitive');
  assert.equal(lrSensitivity([3, 5, NaN], l0), 0, 'no rate beats ℓ₀: every loss clips to it');
  assert.equal(lrSensitivity(new Float64Array([2, 1]), Math.log(16)), 0.5);
});

test('lr-sensitivity: bad input names the argument', () => {
  assert.throws(() => lrSensitivity([], 1), /finalLosses must be a non-empty array/);
  assert.throws(() => lrSensitivity(null, 1), TypeError);
  assert.throws(() => lrSensitivity([1, '2'], 3), /finalLosses\[1\] must be a number, got string/);
  assert.throws(() => lrSensitivity([1], NaN), /initialLoss must be a finite number/);
  assert.throws(() => finalWindow(0), /steps must be an integer ≥ 1, got 0/);
  assert.throws(() => finalLoss([]), /losses must be a non-empty array/);
});

test('lr-sensitivity: the final loss is the mean of the last 5 % of steps, at least one', () => {
  assert.equal(finalWindow(1), 1);
  assert.equal(finalWindow(19), 1);
  assert.equal(finalWindow(30), 2); // 1.5 rounds up
  assert.equal(finalWindow(1000), 50);
  const losses = Array.from({ length: 40 }, (_, i) => i);
  assert.equal(finalLoss(losses), (38 + 39) / 2);
  assert.equal(finalLoss([7]), 7);
  assert.ok(Number.isNaN(finalLoss([1, 2, NaN])));
});
