// run in two calls (the page's forward first, the gradient norms after): runForward then
// runBackward give run's result bit for bit, in both builds, whole or in slices.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { bothEngines } from '../helpers.js';

const SETTINGS = [
  { seqLen: 48, dk: 16, precision: 'fp16', scale: 'none', subtractMax: false },
  { seqLen: 32, dk: 300, softmax: 'online', causal: true }, // d_k >= T: the Gram form, two column blocks
  { seqLen: 40, dk: 8, softcap: 15, qkNorm: 'rms', precision: 'fp8e4m3' },
  { seqLen: 96, dk: 64, mean: 0.3, correlation: 0.4 },
];
const ARRAYS = ['attention', 'rowEntropy', 'rowMaxWeight', 'rowJacobianNorm', 'histogram', 'rawHistogram'];

test('runForward then runBackward is run, bit for bit, in both builds', async () => {
  const { simd, scalar } = await bothEngines();
  for (const engine of [simd, scalar]) {
    for (const cfg of SETTINGS) {
      const where = JSON.stringify(cfg);
      const run = engine.run(cfg);
      const forward = engine.runForward(cfg);
      assert.equal(forward.backwardPending, true, where);
      assert.ok(Number.isNaN(forward.gradNormQ) && Number.isNaN(forward.gradNormK), where);
      for (const name of ARRAYS) assert.deepStrictEqual(forward[name], run[name], `${name} ${where}`);
      const scalars = engine.runBackward();
      assert.ok(Number.isFinite(scalars.gradNormQ) && Number.isFinite(scalars.gradNormK), where);
      for (const [name, value] of Object.entries(scalars)) {
        assert.deepStrictEqual(value, run[name], `${name} ${where}`);
        if (name !== 'gradNormQ' && name !== 'gradNormK')
          assert.deepStrictEqual(forward[name], run[name], `${name} ${where}`);
      }
    }
  }
});

test('runBackward in slices of 0 ms ends with the same gradient norms', async () => {
  const { simd } = await bothEngines();
  const cfg = { seqLen: 256, dk: 128 };
  const run = simd.run(cfg);
  simd.runForward(cfg);
  let slices = 1;
  let scalars;
  while (!(scalars = simd.runBackward(0))) slices += 1;
  assert.ok(slices > 2, `${slices} slices`);
  assert.equal(scalars.gradNormQ, run.gradNormQ);
  assert.equal(scalars.gradNormK, run.gradNormK);
});

test('runBackward without a pending backward throws an Error, and the engine stays usable', async () => {
  const { simd } = await bothEngines();
  assert.throws(() => simd.runBackward(), { name: 'Error', message: /no backward is pending/ });
  simd.runForward({ seqLen: 16, dk: 8 });
  simd.forwardStats({ seqLen: 16, dk: 8 }); // any other call ends it
  assert.throws(() => simd.runBackward(), { name: 'Error', message: /no backward is pending/ });
  simd.runForward({ seqLen: 16, dk: 8 });
  assert.throws(() => simd.runBackward(-1), {
    name: 'RangeError',
    message: /budgetMs must be a number >= 0/,
  });
  assert.ok(Number.isFinite(simd.runBackward().gradNormQ));
  assert.throws(() => simd.runForward({ dk: 0 }), { name: 'RangeError', message: /dk/ });
  assert.equal(simd.run({ seqLen: 8 }).config.seqLen, 8);
});

test('beyond seqLen·dk = 2^21 runForward is run whole, with nothing pending', async () => {
  const { simd } = await bothEngines();
  const cfg = { seqLen: 520, dk: 4096, scale: 'sqrt' };
  const forward = simd.runForward(cfg);
  assert.equal(forward.backwardPending, false);
  assert.ok(Number.isFinite(forward.gradNormQ) && Number.isFinite(forward.gradNormK));
  assert.throws(() => simd.runBackward(), { name: 'Error', message: /no backward is pending/ });
});
