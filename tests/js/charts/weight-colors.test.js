// The heatmap's colour table (web/src/charts/weight-colors.js): a weight's colour by its upper 16
// bits is the ramp's colour of the weight itself within one level per channel (a bucket spans
// 2^-7 relative, under 0.3 of a level, plus rounding), and NaN and ±∞ get the non-finite colour.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FLOOR, rampRgb, tOf, weightColorTable } from '../../../web/src/charts/weight-colors.js';

const NON_FINITE = [255, 0, 255];
const unpack = (w) => [w & 255, (w >>> 8) & 255, (w >>> 16) & 255, w >>> 24];

test('every weight from 0 to 1 gets its own colour within one level per channel', () => {
  const table = weightColorTable(NON_FINITE);
  const x = new Float32Array(1);
  const bits = new Uint32Array(x.buffer);
  let s = 12345;
  const weights = [0, FLOOR / 10, FLOOR, 0.5, 1, 1e-30];
  for (let i = 0; i < 5000; i++) {
    s = (s * 1103515245 + 12345) >>> 0;
    weights.push(10 ** (-6 * (s / 2 ** 32)));
  }
  for (const w of weights) {
    x[0] = w;
    const got = unpack(table[bits[0] >>> 16]);
    const want = rampRgb(tOf(x[0]));
    for (let c = 0; c < 3; c++) assert.ok(Math.abs(got[c] - want[c]) <= 1, `weight ${w}: ${got} vs ${want}`);
    assert.equal(got[3], 255);
  }
});

test('NaN and ±∞ get the non-finite colour', () => {
  const table = weightColorTable(NON_FINITE);
  const x = new Float32Array([NaN, Infinity, -Infinity]);
  for (const b of new Uint32Array(x.buffer)) assert.deepEqual(unpack(table[b >>> 16]), [...NON_FINITE, 255]);
});

test("every bucket, negative and beyond 1 included, holds the colour of its middle (the table's definition)", () => {
  const table = weightColorTable(NON_FINITE);
  const bits = new Uint32Array(1);
  const x = new Float32Array(bits.buffer);
  for (let k = 0; k < 65536; k++) {
    bits[0] = ((k << 16) | 0x8000) >>> 0;
    const want = Number.isFinite(x[0]) ? rampRgb(tOf(x[0])).map(Math.round) : NON_FINITE;
    assert.deepEqual(unpack(table[k]), [...want, 255], `bucket ${k.toString(16)} (${x[0]})`);
  }
});
