// engine.sweepEstimateJob: a sweep's statistics from a sample of query rows, with standard errors.
// With every row sampled each estimate is the exact sweep's value (to 1e-12: the same row values,
// double sums in another order) with SE 0; from a sample, within 4 SE of it (docs/api.md, "Sweep
// estimates"; the 50-setting claim is tests/cpp/engine/test_estimate.cpp's). Errors are
// sweepScalesJob's, plus rows and options.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { bothEngines } from '../helpers.js';

const SCALES = ['none', 'sqrt', 'linear'];
const EXACT_ONLY = [
  'gradNormQ',
  'gradNormK',
  'jacobianNormMedian',
  'logitMin',
  'logitMax',
  'onlineMaxAbsDiff',
  'nonFinite.output',
  'firstNonFiniteStage',
];

function drain(job) {
  const points = [];
  for (;;) {
    const step = job.advance(Infinity);
    if (step.done) return points;
    points.push(step.value);
  }
}

// The fields with a standard error: every number of a point with a `Se` twin.
const estimated = (point) => Object.keys(point).filter((k) => typeof point[k + 'Se'] === 'number');

test('with every row sampled the estimate is the exact sweep, SE 0 (SIMD and scalar builds)', async () => {
  const { simd, scalar } = await bothEngines();
  const dks = [1, 8, 64];
  const configs = [{ seqLen: 40 }, { seqLen: 33, causal: true, mean: 0.4, correlation: -0.6, qkNorm: 'rms' }];
  for (const engine of [simd, scalar]) {
    for (const cfg of configs) {
      const points = drain(engine.sweepEstimateJob(cfg, dks, SCALES, { rows: cfg.seqLen }));
      const exact = engine.sweepScales(cfg, dks, SCALES);
      assert.deepEqual(
        points.map((p) => p.dk),
        dks,
      );
      points.forEach(({ points: byScale }, i) => {
        for (const key of SCALES) {
          const e = byScale[key];
          const where = `${JSON.stringify(cfg)} ${key} dk ${dks[i]}`;
          assert.equal(e.rows, cfg.seqLen);
          assert.deepEqual(e.exactOnly, EXACT_ONLY);
          assert.equal(estimated(e).length, 14);
          for (const name of estimated(e)) {
            const want = exact[key][name][i];
            assert.equal(e[name + 'Se'], 0, `${name}Se ${where}`);
            assert.ok(
              Math.abs(e[name] - want) <= 1e-12 * Math.max(1, Math.abs(want)),
              `${name} ${where}: ${e[name]} vs ${want}`,
            );
          }
          assert.ok(Object.is(e.jacobianNormMedian, exact[key].jacobianNormMedian[i]), where);
          for (const stage of ['logits', 'exp', 'weights'])
            assert.equal(e.nonFinite[stage], exact[key].nonFinite[stage][i], `${stage} ${where}`);
        }
      });
    }
  }
});

test('from a sample every estimate is within 4 SE of the exact value; rows default to min(128, seqLen)', async () => {
  const { simd } = await bothEngines();
  const cfg = { seqLen: 512, causal: true, precision: 'bf16' };
  const dks = [16, 128];
  const job = simd.sweepEstimateJob(cfg, dks, SCALES);
  assert.equal(job.rows.length, 128);
  assert.ok(
    job.rows.every((row, j) => row >= j * 4 && row < (j + 1) * 4),
    'one row in each stratum',
  );
  const exact = simd.sweepScales(cfg, dks, SCALES);
  drain(job).forEach(({ points }, i) => {
    for (const key of SCALES) {
      const e = points[key];
      for (const name of estimated(e)) {
        const want = exact[key][name][i];
        assert.ok(
          Math.abs(e[name] - want) <= 4 * e[name + 'Se'] || e[name] === want,
          `${key} ${name} dk ${dks[i]}: ${e[name]} ± ${e[name + 'Se']} vs ${want}`,
        );
      }
    }
  });
  const small = simd.sweepEstimateJob({ seqLen: 64 }, [2], ['none']);
  assert.equal(small.rows.length, 64);
  small.delete();
});

test('gradients: false gives every field but gradNormQ bit for bit (NaN), in both builds', async () => {
  const { simd, scalar } = await bothEngines();
  const cfg = { seqLen: 200, causal: true, correlation: 0.5, softcap: 20, precision: 'bf16' };
  const dks = [4, 64, 256];
  for (const engine of [simd, scalar]) {
    const full = drain(engine.sweepEstimateJob(cfg, dks, SCALES, { rows: 32 }));
    const forward = drain(engine.sweepEstimateJob(cfg, dks, SCALES, { rows: 32, gradients: false }));
    full.forEach(({ points }, i) => {
      for (const key of SCALES) {
        const { gradNormQ, ...rest } = forward[i].points[key];
        assert.ok(Number.isNaN(gradNormQ));
        assert.ok(Number.isFinite(points[key].gradNormQ));
        const expected = { ...points[key] };
        delete expected.gradNormQ;
        assert.deepStrictEqual(rest, expected, `${key} dk ${dks[i]}`);
      }
    });
  }
});

test('advance(0) stops after one step and resumes; delete frees the job; keys as sweepScalesJob', async () => {
  const { simd } = await bothEngines();
  const cfg = { seqLen: 256, causal: true };
  const dks = [4, 300];
  const job = simd.sweepEstimateJob(cfg, dks, ['linear', 2], { rows: 32 });
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
  assert.deepEqual(points, drain(simd.sweepEstimateJob(cfg, dks, ['linear', 2], { rows: 32 })));
  assert.deepEqual(Object.keys(points[0].points), ['2', 'linear']); // (JS lists integer-like keys first)
  const dropped = simd.sweepEstimateJob({ seqLen: 64 }, [512], ['sqrt'], { rows: 8 });
  assert.equal(dropped.advance(0).value, null);
  dropped.delete();
  assert.equal(simd.run({ seqLen: 8, dk: 4 }).attention.length, 64);
});

test('bad arguments throw errors naming the field; the engine stays usable', async () => {
  const { simd } = await bothEngines();
  const BAD = [
    [{}, [1], 'sqrt', {}, TypeError, /scales must be a non-empty array/],
    [{}, [1], ['sqrt', 'sqrt'], {}, RangeError, /repeat at index 1/],
    [{}, [0], ['none'], {}, RangeError, /dks must be .* got 0 at index 0/],
    [{ seqLen: 4096 }, [1], ['none'], {}, RangeError, /seqLen must be an integer in \[2, 2048\]/],
    [{ bogus: 1 }, [1], ['none'], {}, TypeError, /unknown config field 'bogus'/],
    [
      { seqLen: 64 },
      [1],
      ['none'],
      { rows: 1 },
      RangeError,
      /^rows must be an integer in \[2, seqLen = 64\], got 1$/,
    ],
    [{ seqLen: 64 }, [1], ['none'], { rows: 65 }, RangeError, /rows must be .*, got 65/],
    [{}, [1], ['none'], { rows: 2.5 }, RangeError, /rows must be an integer in \[2, seqLen = 256\], got 2.5/],
    [{}, [1], ['none'], { rows: NaN }, RangeError, /rows must be .*, got NaN/],
    [{}, [1], ['none'], { rows: '8' }, TypeError, /rows must be .*, got a string/],
    [{}, [1], ['none'], { rows: null }, TypeError, /rows must be .*, got null/],
    [
      {},
      [1],
      ['none'],
      { row: 8 },
      TypeError,
      /unknown sweepEstimateJob option 'row'; valid options: rows, gradients/,
    ],
    [
      {},
      [1],
      ['none'],
      { gradients: 0 },
      TypeError,
      /^gradients must be a boolean \(true or false\), got number$/,
    ],
    [{}, [1], ['none'], null, TypeError, /sweepEstimateJob options must be an object/],
    [{}, [1], ['none'], 8, TypeError, /sweepEstimateJob options must be an object/],
  ];
  for (const [cfg, dks, scales, options, type, message] of BAD) {
    assert.throws(
      () => simd.sweepEstimateJob(cfg, dks, scales, options),
      (e) => e instanceof type && message.test(e.message),
      JSON.stringify([cfg, dks, scales, options]),
    );
  }
  const job = simd.sweepEstimateJob({ seqLen: 8 }, [2], ['none'], { rows: 4 });
  for (const budget of [-1, NaN, '5'])
    assert.throws(() => job.advance(budget), /budgetMs must be a number >= 0/);
  job.delete();
  assert.equal(simd.run({ seqLen: 8, dk: 2 }).attention.length, 64);
});
