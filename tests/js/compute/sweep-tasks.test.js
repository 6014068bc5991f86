// How the page cuts a sweep's d_k points into tasks for its Workers (web/src/compute/sweep-tasks.js), and
// that the split changes no number: the points of every task, each computed by its own job, equal
// the points of one job over every d_k, bit for bit.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  estimateRowsFor,
  groupDks,
  jobCost,
  sweepTasks,
  sweepWorkerCount,
} from '../../../web/src/compute/sweep-tasks.js';
import { bothEngines } from '../helpers.js';

const DKS = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096];

/** When the last task ends, each taken costliest first by whichever of `slots` Workers is free. */
function queueEnd(groups, slots, seqLen) {
  const free = new Array(slots).fill(0);
  for (const c of groups.map((g) => jobCost(g, { seqLen })).sort((a, b) => b - a))
    free[free.indexOf(Math.min(...free))] += c;
  return Math.max(...free);
}

test('tasks: runs of consecutive d_k, the costliest first, every d_k once; every estimate before any exact task', () => {
  for (const seqLen of [512, 1024, 2048, 4096])
    for (const slots of [1, 2, 3, 5, 12]) {
      const groups = groupDks(DKS, slots, { seqLen });
      const at = `T = ${seqLen}, ${slots} slots`;
      assert.deepEqual(
        groups.flat().sort((a, b) => a - b),
        DKS,
        at,
      );
      for (const g of groups) {
        assert.deepEqual(
          g,
          [...g].sort((a, b) => a - b),
        );
        // a group is a run of consecutive d_k of the sweep
        assert.equal(DKS.indexOf(g[g.length - 1]) - DKS.indexOf(g[0]), g.length - 1);
      }
      assert.ok(groups.length >= Math.min(slots, DKS.length), `${at}: a run for every Worker`);
      const costs = groups.map((g) => jobCost(g, { seqLen }));
      assert.deepEqual(
        costs,
        [...costs].sort((a, b) => b - a),
        `${at}: the costliest first`,
      );
      // No other split with a run per Worker ends sooner: each d_k alone, the old split's
      // neighbours, or one job.
      const end = queueEnd(groups, slots, seqLen);
      for (const other of [
        DKS.map((dk) => [dk]),
        [DKS],
        [DKS.slice(0, 9), ...DKS.slice(9).map((dk) => [dk])],
      ].filter((other) => other.length >= Math.min(slots, DKS.length)))
        assert.ok(end <= queueEnd(other, slots, seqLen) * 1.01, `${at}: ${JSON.stringify(other)}`);
    }
  assert.deepEqual(groupDks(DKS, 1, { seqLen: 2048 }), [DKS], 'one Worker: one job extends every product');
  // Two Workers at T = 2048: d_k 2048 and 4096 share their products in one job.
  assert.ok(groupDks(DKS, 2, { seqLen: 2048 }).some((g) => g.join() === '2048,4096'));
  assert.deepEqual(groupDks([], 2), []);
  // A short sweep (no estimate): one task per Worker, the largest alone.
  assert.deepEqual(sweepTasks([4, 1, 2]), [{ dks: [1, 2, 4], estimateRows: 0 }]);
  assert.deepEqual(
    sweepTasks(DKS, { slots: 3 }).map((t) => t.dks),
    [[4096], [2048], DKS.slice(0, -2)],
  );
  assert.deepEqual(
    groupDks(DKS, 20, { short: true }),
    [...DKS].reverse().map((dk) => [dk]),
  );
  const tasks = sweepTasks(DKS, { slots: 2, estimateRows: 128, seqLen: 2048 });
  const n = tasks.length / 2;
  assert.deepEqual(
    tasks.map((t) => t.estimateRows),
    [...new Array(n).fill(128), ...new Array(n).fill(0)],
  );
  assert.deepEqual(
    tasks.slice(0, n).map((t) => t.dks),
    tasks.slice(n).map((t) => t.dks),
  );
  assert.equal(estimateRowsFor(256), 0);
  assert.equal(estimateRowsFor(511), 0);
  assert.equal(estimateRowsFor(512), 128);
  assert.equal(estimateRowsFor(2048), 128);
  assert.equal(estimateRowsFor(undefined), 0);
});

test('job cost: the products once, to the largest d_k; each point its own backward and softmax', () => {
  const T = 2048;
  const alone = jobCost([4096], { seqLen: T }) + jobCost([2048], { seqLen: T });
  const together = jobCost([2048, 4096], { seqLen: T });
  // Sharing saves the products to d_k = 2048 (with the Gram matrices, 1.5 × 2048 columns) and one
  // task's overhead.
  assert.ok(together < alone);
  assert.equal(alone - together, jobCost([2048], { seqLen: T, scalings: 0 }));
  assert.ok(jobCost([64], { seqLen: T, scalings: 1 }) < jobCost([64], { seqLen: T, scalings: 3 }));
});

test('sweep Workers: one per spare core, 1 to 12; ?sweepWorkers=1..12 overrides', () => {
  assert.equal(sweepWorkerCount(null, 2), 1);
  assert.equal(sweepWorkerCount(null, 1), 1);
  assert.equal(sweepWorkerCount(null, 4), 3);
  assert.equal(sweepWorkerCount(null, 16), 12);
  assert.equal(sweepWorkerCount(null, 8), 7);
  assert.equal(sweepWorkerCount(null, undefined), 1);
  assert.equal(sweepWorkerCount('3', 2), 3);
  assert.equal(sweepWorkerCount('12', 2), 12);
  assert.equal(sweepWorkerCount('13', 2), 1);
  assert.equal(sweepWorkerCount('x', 8), 7);
  assert.equal(sweepWorkerCount('', 8), 7);
});

/** Every point of one job (exact, or estimated from `rows`), in order, advancing in slices of `budgetMs`. */
function drain(engine, cfg, dks, scales, budgetMs, rows = 0) {
  const job = rows
    ? engine.sweepEstimateJob(cfg, dks, scales, { rows })
    : engine.sweepScalesJob(cfg, dks, scales);
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

test('one job per d_k gives the points of one job over every d_k, bit for bit; so do the estimates', async () => {
  const { simd } = await bothEngines();
  const cfg = { seqLen: 24, precision: 'fp16', mean: 0.3, correlation: 0.4 };
  const scales = ['none', 'sqrt', 'linear', 0.25];
  const dks = DKS.slice(0, 10);
  const whole = drain(simd, cfg, dks, scales, 1000);
  const parts = sweepTasks(dks, { slots: 3 })
    .flatMap((t) => drain(simd, cfg, t.dks, scales, 0))
    .sort((a, b) => a.dk - b.dk);
  assert.deepEqual(
    parts.map((p) => p.dk),
    dks,
  );
  // deepStrictEqual compares numbers with Object.is: NaN equals NaN, -0 differs from +0.
  assert.deepStrictEqual(parts, whole);
  assert.deepEqual(Object.keys(whole[0].points), ['none', 'sqrt', 'linear', '0.25']);
  // The split by cost, whose jobs run several d_k at and beyond T (the Gram form) together.
  const byCost = groupDks(dks, 2, { seqLen: cfg.seqLen, scalings: scales.length });
  assert.ok(
    byCost.some((g) => g.length > 1 && g[0] >= cfg.seqLen),
    JSON.stringify(byCost),
  );
  const costParts = byCost.flatMap((g) => drain(simd, cfg, g, scales, 0)).sort((a, b) => a.dk - b.dk);
  assert.deepStrictEqual(costParts, whole);

  const estimated = drain(simd, { ...cfg, seqLen: 96 }, dks, scales, 1000, 16);
  const estimatedParts = sweepTasks(dks, { slots: 3, estimateRows: 16 })
    .filter((t) => t.estimateRows)
    .flatMap((t) => drain(simd, { ...cfg, seqLen: 96 }, t.dks, scales, 0, t.estimateRows))
    .sort((a, b) => a.dk - b.dk);
  assert.deepStrictEqual(estimatedParts, estimated);
});
