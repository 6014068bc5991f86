// engine.sweepScales / sweepScalesPoints / sweepScalesJob: one shared sweep for several scalings.
// Tolerance: none. Each scale's result must equal engine.sweep({ ...cfg, scale }, dks) bit for bit
// (same samples, same operation order), compared with Object.is on every field.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { bothEngines } from '../helpers.js';

const SCALES = ['none', 'sqrt', 'linear', 0.37];

function assertSameSweep(got, want, where) {
  assert.deepEqual(Object.keys(got).sort(), Object.keys(want).sort(), where);
  for (const [field, value] of Object.entries(want)) {
    if (field === 'nonFinite') {
      for (const [stage, counts] of Object.entries(value))
        assert.deepEqual(got.nonFinite[stage], counts, `${where} nonFinite.${stage}`);
    } else if (field === 'firstNonFiniteStage') {
      assert.deepEqual(got[field], value, `${where} ${field}`);
    } else {
      assert.equal(got[field].constructor, value.constructor, `${where} ${field}`);
      for (let i = 0; i < value.length; i++)
        assert.ok(
          Object.is(got[field][i], value[i]),
          `${where} ${field}[${i}]: ${got[field][i]} vs ${value[i]}`,
        );
    }
  }
}

const CONFIGS = [
  { seqLen: 48 },
  { seqLen: 40, causal: true, mean: 0.4, std: 1.7, correlation: -0.6 },
  { seqLen: 32, precision: 'fp16', mean: 2 },
  { seqLen: 24, precision: 'fp8e4m3', saturate: true, subtractMax: false },
  { seqLen: 30, softmax: 'online', blockSize: 7, causal: true },
];

test('sweepScales: every scale equals sweep with that scale, bit for bit (SIMD and scalar builds)', async () => {
  const { simd, scalar } = await bothEngines();
  const dks = [1, 3, 16, 300, 64];
  for (const engine of [simd, scalar]) {
    for (const cfg of CONFIGS) {
      const all = engine.sweepScales(cfg, dks, SCALES);
      assert.deepEqual(Object.keys(all), ['none', 'sqrt', 'linear', '0.37']);
      for (const scale of SCALES) {
        assertSameSweep(
          all[String(scale)],
          engine.sweep({ ...cfg, scale }, dks),
          `${JSON.stringify(cfg)} scale ${scale}`,
        );
      }
    }
  }
});

test('sweepScalesPoints yields one { dk, points } per d_k in order; a point equals run', async () => {
  const { simd } = await bothEngines();
  const dks = [8, 2, 40];
  const seen = [...simd.sweepScalesPoints({ seqLen: 20 }, dks, ['linear', 2])];
  assert.deepEqual(
    seen.map((p) => p.dk),
    dks,
  );
  for (const { dk, points } of seen) {
    assert.deepEqual(Object.keys(points).sort(), ['2', 'linear']); // (JS lists integer-like keys first)
    const run = simd.run({ seqLen: 20, dk, scale: 2 });
    for (const [field, value] of Object.entries(points['2'])) {
      if (typeof value === 'number' && field !== 'dk')
        assert.ok(Object.is(value, run[field]), `${field} at dk ${dk}`);
    }
    assert.equal(points.linear.dk, dk);
  }
});

test('sweepScalesJob: advance(0) stops after one step, resumes, and ends with done', async () => {
  const { simd } = await bothEngines();
  const cfg = { seqLen: 96, causal: true };
  const dks = [4, 200];
  const job = simd.sweepScalesJob(cfg, dks, ['none', 'sqrt']);
  const points = [];
  let interrupted = 0;
  for (let guard = 0; guard < 100000; guard++) {
    const step = job.advance(0);
    if (step.done) break;
    if (step.value === null) interrupted++;
    else points.push(step.value);
  }
  assert.ok(interrupted > 0, 'advance(0) never stopped before a point');
  assert.deepEqual(job.advance(10), { done: true, value: null });
  job.delete();
  job.delete(); // idempotent
  assert.throws(() => job.advance(1), /deleted/);
  const whole = simd.sweepScales(cfg, dks, ['none', 'sqrt']);
  assert.deepEqual(
    points.map((p) => p.dk),
    dks,
  );
  for (const key of ['none', 'sqrt']) {
    points.forEach((p, i) =>
      assert.ok(
        Object.is(p.points[key].gradNormK, whole[key].gradNormK[i]) &&
          Object.is(p.points[key].entropy, whole[key].entropy[i]),
        `${key} at ${p.dk}`,
      ),
    );
  }
  // Dropped half way: delete frees it and the engine goes on.
  const dropped = simd.sweepScalesJob({ seqLen: 64 }, [512], ['sqrt']);
  assert.equal(dropped.advance(0).value, null);
  dropped.delete();
  assert.equal(simd.run({ seqLen: 8, dk: 4 }).attention.length, 64);
});

test('bad scales, dks, config or budget throw errors naming the field; the engine stays usable', async () => {
  const { simd } = await bothEngines();
  const BAD = [
    [{}, [1], 'sqrt', TypeError, /scales must be a non-empty array/],
    [{}, [1], null, TypeError, /scales must be a non-empty array .* got null/],
    [{}, [1], [], RangeError, /scales must be .* got length 0/],
    [{}, [1], new Array(9).fill('none'), RangeError, /at most 8 entries/],
    [
      {},
      [1],
      ['cube'],
      RangeError,
      /scales\[0\]: scale must be one of 'none', 'sqrt', 'linear' or a finite number/,
    ],
    [{}, [1], ['none', 0], RangeError, /scales\[1\]: scale/],
    [{}, [1], [-1], RangeError, /scales\[0\]: scale/],
    [{}, [1], [null], TypeError, /scales\[0\]: scale .* got null/],
    [{}, [1], ['sqrt', 'sqrt'], RangeError, /repeat at index 1/],
    [{}, [1], [0.5, 0.5], RangeError, /repeat at index 1/],
    [{}, [], ['none'], RangeError, /dks must be a non-empty array/],
    [{}, [0], ['none'], RangeError, /dks must be .* got 0 at index 0/],
    [{}, ['8'], ['none'], TypeError, /dks must be/],
    [{ dk: 0 }, [1], ['none'], RangeError, /dk must be an integer in \[1, 4096\], got 0/],
    [{ seqLen: 4096 }, [1], ['none'], RangeError, /seqLen must be an integer in \[2, 2048\]/],
    [{ bogus: 1 }, [1], ['none'], TypeError, /unknown config field 'bogus'/],
  ];
  for (const [cfg, dks, scales, type, message] of BAD) {
    for (const call of [
      () => simd.sweepScales(cfg, dks, scales),
      () => simd.sweepScalesJob(cfg, dks, scales),
      () => [...simd.sweepScalesPoints(cfg, dks, scales)],
    ]) {
      assert.throws(
        call,
        (e) => e instanceof type && message.test(e.message),
        `${JSON.stringify([cfg, dks, scales])}`,
      );
    }
  }
  const job = simd.sweepScalesJob({ seqLen: 8 }, [2], ['none']);
  for (const budget of [-1, NaN, '5'])
    assert.throws(() => job.advance(budget), /budgetMs must be a number >= 0/);
  job.delete();
  // a scale given in cfg is replaced by each of `scales`
  const s = simd.sweepScales({ seqLen: 16, scale: 'linear' }, [4], ['none']);
  assert.equal(s.none.scaleFactor[0], 1);
  assert.equal(simd.sweepScales({ seqLen: 8 }, [2], ['sqrt']).sqrt.dk[0], 2);
});
