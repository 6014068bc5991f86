// Low precision through the JS API: the casts bit-identical across builds (and to native), and the
// overflow story of the seed: fp16 logits overflow exp() unless the max is subtracted.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bothEngines, STORY } from '../helpers.js';

const FORMATS = ['fp32', 'bf16', 'fp16', 'fp8e4m3', 'fp8e5m2'];
const castTool = fileURLToPath(new URL('../../../build/native/cast_file', import.meta.url));

function randomBits(n, seed) {
  const bits = new Uint32Array(n);
  let s = seed >>> 0;
  for (let i = 0; i < n; i++) {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0; // xorshift32
    bits[i] = s;
  }
  return bits;
}

// Tolerance: none. Every cast must give the same bits in the wasm SIMD build, the wasm scalar
// build and natively (NaN payloads included: all builds quiet NaNs the same way).
test('casts are bit-identical: wasm SIMD, wasm scalar and native, on 2^20 random patterns per format', async () => {
  const { simd, scalar } = await bothEngines();
  const bits = randomBits(1 << 20, 2024);
  const input = new Float32Array(bits.buffer);
  const dir = mkdtempSync(join(tmpdir(), 'attnscale-cast-'));
  writeFileSync(join(dir, 'in.bin'), Buffer.from(bits.buffer));
  for (const precision of FORMATS) {
    for (const saturate of [false, true]) {
      const a = new Uint32Array(simd.round(precision, input, { saturate }).buffer);
      const b = new Uint32Array(scalar.round(precision, input, { saturate }).buffer);
      execFileSync(castTool, [precision, saturate ? '1' : '0', join(dir, 'in.bin'), join(dir, 'out.bin')]);
      const n = new Uint32Array(new Uint8Array(readFileSync(join(dir, 'out.bin'))).buffer);
      for (let i = 0; i < bits.length; i++) {
        if (a[i] !== b[i] || a[i] !== n[i]) {
          assert.fail(
            `${precision} saturate=${saturate}: input 0x${bits[i].toString(16)} → SIMD 0x${a[i].toString(16)}, scalar 0x${b[i].toString(16)}, native 0x${n[i].toString(16)}`,
          );
        }
      }
    }
  }
});

test('round: documented edge values', async () => {
  const { simd } = await bothEngines();
  const r = (p, xs, o) => Array.from(simd.round(p, new Float32Array(xs), o));
  assert.deepEqual(r('fp16', [65504, 65519, 65520, -65520]), [65504, 65504, Infinity, -Infinity]);
  assert.deepEqual(r('fp8e4m3', [448, 464, 465, 480]).map(String), ['448', '448', 'NaN', 'NaN']);
  assert.deepEqual(r('fp8e4m3', [465, -480, Infinity], { saturate: true }), [448, -448, 448]);
  assert.deepEqual(r('fp8e5m2', [57344, 61439, 61440]), [57344, 57344, Infinity]);
  assert.deepEqual(r('fp8e5m2', [61440], { saturate: true }), [57344]);
  assert.ok(Object.is(r('bf16', [-0])[0], -0));
  assert.equal(r('fp32', [0.1])[0], Math.fround(0.1));
});

test('overflow story at d_k = 128, T = 256 in fp16', async () => {
  const { simd } = await bothEngines();
  const unscaledNoMax = simd.run({ ...STORY, precision: 'fp16', scale: 'none', subtractMax: false });
  assert.ok(unscaledNoMax.nonFinite.weights > 0, 'unscaled fp16 without max subtraction: weights overflow');
  assert.equal(unscaledNoMax.firstNonFiniteStage, 'exp');
  const unscaledWithMax = simd.run({ ...STORY, precision: 'fp16', scale: 'none', subtractMax: true });
  assert.deepEqual(unscaledWithMax.nonFinite, { logits: 0, exp: 0, weights: 0, output: 0 });
  assert.equal(unscaledWithMax.firstNonFiniteStage, null);
  const scaledNoMax = simd.run({ ...STORY, precision: 'fp16', scale: 'sqrt', subtractMax: false });
  assert.deepEqual(scaledNoMax.nonFinite, { logits: 0, exp: 0, weights: 0, output: 0 });
  const online = simd.run({
    ...STORY,
    precision: 'fp16',
    scale: 'none',
    subtractMax: true,
    softmax: 'online',
    blockSize: 32,
  });
  assert.equal(online.nonFinite.output, 0, 'the streaming softmax with max subtraction stays finite in fp16');
});

// fp32: online and naive differ only by float rounding of the rescaling; outputs are O(1) (convex
// combinations of N(0, 1) values), so 1e-5 absolute is ~100 ulp.
test('online softmax agrees with naive in fp32', async () => {
  const { simd, scalar } = await bothEngines();
  for (const engine of [simd, scalar]) {
    for (const blockSize of [1, 7, 64, 256]) {
      for (const scale of ['none', 'sqrt']) {
        const r = engine.run({ ...STORY, softmax: 'online', blockSize, scale, causal: blockSize === 7 });
        assert.ok(r.onlineMaxAbsDiff < 1e-5, `blockSize ${blockSize} ${scale}: ${r.onlineMaxAbsDiff}`);
      }
    }
  }
  assert.ok(Number.isNaN(simd.run({ dk: 8, seqLen: 8 }).onlineMaxAbsDiff), 'NaN when softmax is naive');
});

test('every precision runs and reports its largest finite value', async () => {
  const { simd } = await bothEngines();
  const largest = {
    fp32: 3.4028234663852886e38,
    bf16: 3.3895313892515355e38,
    fp16: 65504,
    fp8e4m3: 448,
    fp8e5m2: 57344,
  };
  for (const precision of FORMATS) {
    const r = simd.run({ dk: 32, seqLen: 32, precision });
    assert.equal(r.largestFinite, largest[precision], precision);
  }
});

test("forwardStats is run's scalars without the gradients (the precision panel's variants), in both builds", async () => {
  const { simd, scalar } = await bothEngines();
  const configs = [
    { seqLen: 48, dk: 16, precision: 'fp16', scale: 'none', subtractMax: false },
    { seqLen: 32, dk: 64, softmax: 'online', causal: true }, // d_k >= T: the run's Gram form
    { seqLen: 40, dk: 8, softcap: 15, qkNorm: 'rms', precision: 'fp8e4m3' },
  ];
  for (const engine of [simd, scalar]) {
    for (const cfg of configs) {
      const run = engine.run(cfg);
      const forward = engine.forwardStats(cfg);
      assert.ok(Number.isNaN(forward.gradNormQ) && Number.isNaN(forward.gradNormK));
      assert.ok(Number.isFinite(run.gradNormQ) && Number.isFinite(run.gradNormK));
      for (const [name, value] of Object.entries(forward)) {
        if (name === 'gradNormQ' || name === 'gradNormK') continue;
        assert.deepStrictEqual(value, run[name], `${name} ${JSON.stringify(cfg)}`);
      }
    }
  }
  assert.throws(() => simd.forwardStats({ dk: 0 }), { name: 'RangeError', message: /dk/ });
  assert.equal(simd.run({ seqLen: 8 }).config.seqLen, 8); // the engine stays usable
});
