// The overflow-thresholds search (web/src/panels/thresholds/thresholds-job.js): the bisection finds a crossing
// d_k (d_k − 1 finite, d_k not) in the fewest tests; the scan of sampled points reports where it
// first fails and where it is finite again; and the job, on the real engine, gives cells whose d_k
// `run` confirms (fails at d_k, finite at d_k − 1).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  bisect,
  bisectWith,
  scanPoints,
  createThresholdsJob,
} from '../../../../web/src/panels/thresholds/thresholds-job.js';
import { thresholdGrid } from '../../../../web/src/panels/thresholds/threshold-grid.js';
import { bothEngines } from '../../helpers.js';

test('bisection: the first failing d_k of a monotone predicate, in ⌈log2(hi − lo)⌉ tests', () => {
  for (const [lo, hi] of [
    [0, 1],
    [1, 2],
    [2, 4],
    [256, 512],
    [2048, 4096],
    [0, 4096],
  ]) {
    for (let t = lo + 1; t <= hi; t++) {
      const tested = [];
      const r = bisectWith(lo, hi, (d) => {
        tested.push(d);
        return d >= t;
      });
      assert.deepEqual(r, { lo: t - 1, hi: t }, `[${lo}, ${hi}] threshold ${t}`);
      assert.ok(tested.length <= Math.ceil(Math.log2(hi - lo)), `${tested.length} tests`);
      assert.ok(tested.every((d) => d > lo && d < hi));
    }
  }
});

test('bisection on a non-monotone predicate still ends on a crossing: lo finite, hi failing', () => {
  const fails = (d) => d % 3 === 0 || d >= 500; // fails at 258, finite at 259, …
  const r = bisectWith(256, 512, fails);
  assert.equal(r.hi - r.lo, 1);
  assert.equal(fails(r.hi), true);
  assert.equal(fails(r.lo), false);
  // The generator form asks for the same d_k values.
  const it = bisect(256, 512);
  assert.equal(it.next().value, 384);
});

test('scan: never / first failure with the bracket below it / finite again after it', () => {
  const p = (dk, stage = null) => ({ dk, firstNonFiniteStage: stage });
  assert.deepEqual(scanPoints([p(1), p(2), p(4)]), { never: true, maxDk: 4 });
  assert.deepEqual(scanPoints([p(4, 'exp'), p(1), p(2)]), {
    never: false,
    lo: 2,
    hi: 4,
    stage: 'exp',
    finiteAfter: [],
  });
  assert.deepEqual(scanPoints([p(1, 'exp'), p(2, 'exp'), p(4), p(8)]), {
    never: false,
    lo: 0,
    hi: 1,
    stage: 'exp',
    finiteAfter: [4, 8],
  });
});

test('the job on the engine: every cell in order, each d_k confirmed by run', async () => {
  const { simd } = await bothEngines();
  const dks = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512];
  const cfg = { ...simd.defaults(), seqLen: 32 };
  delete cfg.blockSize;
  const job = createThresholdsJob(simd, cfg, dks);
  const cells = [];
  for (let r = job.advance(5); ; r = job.advance(5)) {
    cells.push(...r.cells);
    if (r.done) break;
  }
  job.delete();
  const { rows, scales } = thresholdGrid(simd.schema);
  assert.equal(rows.length, 2 * simd.schema.find((f) => f.name === 'precision').choices.length);
  assert.equal(cells.length, rows.length * scales.length);
  assert.deepEqual(
    cells.map((c) => [c.precision, c.subtractMax, c.scale]),
    rows.flatMap((r) => scales.map((s) => [r.precision, r.subtractMax, s])),
  );
  for (const c of cells) {
    const at = (dk) =>
      simd.run({
        ...cfg,
        precision: c.precision,
        subtractMax: c.subtractMax,
        scale: c.scale,
        dk,
        softmax: 'naive',
      });
    if (c.never) continue;
    assert.ok(c.dk > c.bracket[0] && c.dk <= c.bracket[1]);
    assert.equal(at(c.dk).firstNonFiniteStage, c.stage, `${c.precision} ${c.scale} ${c.subtractMax}`);
    if (c.dk > 1) assert.equal(at(c.dk - 1).firstNonFiniteStage, null);
  }
  const cell = (precision, subtractMax, scale) =>
    cells.find((c) => c.precision === precision && c.subtractMax === subtractMax && c.scale === scale);
  // With the max subtracted no exponential can overflow: at T 32 up to d_k 512 nothing breaks at all.
  for (const c of cells.filter((x) => x.subtractMax))
    assert.equal(c.never, true, `${c.precision} ${c.scale}`);
  assert.equal(cell('fp16', false, 'none').stage, 'exp');
  assert.ok(cell('fp16', false, 'none').dk < 64);
  // A deleted job does nothing more.
  assert.deepEqual(job.advance(5), { done: true, cells: [] });
});
