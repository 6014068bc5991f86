// How the page splits a sweep's d_k points over its sweep Workers (web/src/compute/sweep-partition.js),
// and that the split changes no number: the points of every part, each computed by its own job,
// equal the points of one job over every d_k, bit for bit.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { partitionDks, sweepWorkerCount } from '../../../web/src/compute/sweep-partition.js';
import { bothEngines } from '../helpers.js';

const DKS = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096];

test('every d_k lands in exactly one part, ascending; the largest has a part of its own', () => {
  for (let parts = 1; parts <= 6; parts++) {
    const split = partitionDks(DKS, parts);
    assert.equal(split.length, Math.min(parts, DKS.length), `${parts} parts`);
    assert.deepEqual(
      split.flat().sort((a, b) => a - b),
      DKS,
    );
    for (const p of split)
      assert.deepEqual(
        p,
        [...p].sort((a, b) => a - b),
      );
    if (parts >= 2) assert.deepEqual(split[0], [4096]);
  }
  assert.deepEqual(partitionDks(DKS, 2), [[4096], DKS.slice(0, -1)]);
  assert.deepEqual(partitionDks([8, 2], 5), [[8], [2]]);
  assert.deepEqual(partitionDks([3], 0), [[3]]);
});

test('sweep Workers: one per spare core, 1 to 4; ?sweepWorkers=1..4 overrides', () => {
  assert.equal(sweepWorkerCount(null, 2), 1);
  assert.equal(sweepWorkerCount(null, 1), 1);
  assert.equal(sweepWorkerCount(null, 4), 3);
  assert.equal(sweepWorkerCount(null, 16), 4);
  assert.equal(sweepWorkerCount(null, undefined), 1);
  assert.equal(sweepWorkerCount('3', 2), 3);
  assert.equal(sweepWorkerCount('9', 2), 1);
  assert.equal(sweepWorkerCount('x', 8), 4);
  assert.equal(sweepWorkerCount('', 8), 4);
});

/** Every point of one job, in order, advancing in slices of `budgetMs`. */
function drain(engine, cfg, dks, scales, budgetMs) {
  const job = engine.sweepScalesJob(cfg, dks, scales);
  const out = [];
  try {
    for (;;) {
      const { done, value } = job.advance(budgetMs);
      if (value) out.push(value);
      if (done) return out;
    }
  } finally {
    job.delete();
  }
}

test('the points of three parts equal the points of one job, bit for bit', async () => {
  const { simd } = await bothEngines();
  const cfg = { seqLen: 24, precision: 'fp16', mean: 0.3, correlation: 0.4 };
  const scales = ['none', 'sqrt', 'linear', 0.25];
  const dks = DKS.slice(0, 10);
  const whole = drain(simd, cfg, dks, scales, 1000);
  const parts = partitionDks(dks, 3)
    .flatMap((p) => drain(simd, cfg, p, scales, 0))
    .sort((a, b) => a.dk - b.dk);
  assert.deepEqual(
    parts.map((p) => p.dk),
    dks,
  );
  // deepStrictEqual compares numbers with Object.is: NaN equals NaN, -0 differs from +0.
  assert.deepStrictEqual(parts, whole);
  assert.deepEqual(Object.keys(whole[0].points), ['none', 'sqrt', 'linear', '0.25']);
});
