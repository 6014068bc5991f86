// engine.train through the real wasm modules: API shape, errors, determinism and the golden
// values the native GoogleTest (TrainDeterminism.GoldenValuesSharedWithWasm) also asserts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { bothEngines } from './helpers.js';

const METRICS = ['loss', 'accuracy', 'entropy', 'saturatedFraction', 'gradNormWq', 'gradNormWk'];

test('train: step(n) returns per-step curves for every copy', async () => {
  const { simd } = await bothEngines();
  const trainer = simd.train({ dk: 16, seqLen: 8, batchSize: 4, seed: 3 });
  const r = trainer.step(5);
  assert.deepEqual(Array.from(r.step), [1, 2, 3, 4, 5]);
  assert.deepEqual(Object.keys(r.copies), ['none', 'sqrt', 'linear']);
  for (const copy of Object.values(r.copies)) {
    for (const m of METRICS) {
      assert.ok(copy[m] instanceof Float64Array && copy[m].length === 5, m);
      assert.ok(copy[m].every(Number.isFinite), m);
    }
  }
  assert.deepEqual(Array.from(trainer.step(2).step), [6, 7]);
  assert.equal(trainer.steps, 7);
  const a = trainer.attention('sqrt');
  assert.ok(a instanceof Float32Array && a.length === 64);
  trainer.reset();
  assert.equal(trainer.steps, 0);
  assert.deepEqual(Array.from(trainer.step(1).step), [1]);
  const custom = simd.train({ dk: 16, seqLen: 8, batchSize: 4, scale: 0.5 });
  assert.deepEqual(Object.keys(custom.step(1).copies), ['none', 'sqrt', 'linear', 'custom']);
  custom.delete();
  trainer.delete();
  assert.throws(() => trainer.step(1), /deleted/);
});

// Exact: same settings and seed give the same bits natively and in both wasm builds.
test('train: golden values shared with the native build, in SIMD and scalar wasm', async () => {
  const { simd, scalar } = await bothEngines();
  for (const engine of [simd, scalar]) {
    const trainer = engine.train({});
    const r = trainer.step(50);
    assert.equal(r.copies.sqrt.loss[49], 2.7568238181718967);
    assert.equal(r.copies.none.accuracy[49], 0.06640625);
    trainer.delete();
  }
  const a = simd.train({ seed: 9, dk: 8, seqLen: 8 }).step(20);
  const b = scalar.train({ seed: 9, dk: 8, seqLen: 8 }).step(20);
  for (const copy of ['none', 'sqrt', 'linear']) {
    for (const m of METRICS) assert.deepEqual(Array.from(a.copies[copy][m]), Array.from(b.copies[copy][m]), `${copy}.${m}`);
  }
});

test('train: bad config and arguments throw errors naming the field', async () => {
  const { simd } = await bothEngines();
  for (const [cfg, type, re] of [
    [{ dk: 0 }, RangeError, /dk must be an integer in \[1, 4096\]/],
    [{ dk: 2.5 }, RangeError, /dk must be an integer/],
    [{ seqLen: 4 }, RangeError, /seqLen must be an integer in \[8, 128\]/],
    [{ batchSize: 65 }, RangeError, /batchSize/],
    [{ optimizer: 'rmsprop' }, RangeError, /optimizer must be 'adam' or 'sgd'/],
    [{ learningRate: -1 }, RangeError, /learningRate/],
    [{ learningRate: '0.1' }, TypeError, /learningRate must be a finite number/],
    [{ initScale: 0 }, RangeError, /initScale/],
    [{ precision: 'fp4' }, RangeError, /precision/],
    [{ scale: 0 }, RangeError, /scale/],
    [{ seed: -3 }, RangeError, /seed/],
    [{ dk: 4096, seqLen: 128, batchSize: 64 }, RangeError, /dk \* seqLen \* batchSize/],
    [{ lr: 1 }, TypeError, /unknown training field 'lr'/],
  ]) {
    assert.throws(() => simd.train(cfg), (e) => e instanceof type && re.test(e.message), JSON.stringify(cfg));
  }
  const trainer = simd.train({ dk: 8, seqLen: 8, batchSize: 2 });
  assert.throws(() => trainer.step(0), RangeError);
  assert.throws(() => trainer.step(1.5), RangeError);
  assert.throws(() => trainer.step('3'), TypeError);
  assert.throws(() => trainer.attention('custom'), RangeError);
  assert.throws(() => trainer.attention(3), TypeError);
  assert.equal(trainer.step(1).step[0], 1);
  trainer.delete();
});
