// engine.analyze in both wasm builds: its fields against a float64 reference written here, the
// grouped-query head mapping, and the errors that name the field.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { bothEngines } from '../helpers.js';

// Normal samples (Box–Muller over a linear congruential generator): reproducible without a library.
function normals(n, seed, mean = 0, std = 1) {
  let s = seed >>> 0;
  const next = () => ((s = (s * 1664525 + 1013904223) >>> 0) + 0.5) / 2 ** 32;
  const out = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    out[i] = mean + std * Math.sqrt(-2 * Math.log(next())) * Math.cos(2 * Math.PI * next());
  }
  return out;
}

// One head in float64: σ of q·k, mean entropy, mean largest weight, with scale s (no mask).
function referenceHead(q, k, T, d, s) {
  let sum = 0;
  let squares = 0;
  let entropy = 0;
  let maxWeight = 0;
  for (let i = 0; i < T; i++) {
    const z = new Float64Array(T);
    for (let j = 0; j < T; j++) {
      let dot = 0;
      for (let c = 0; c < d; c++) dot += q[i * d + c] * k[j * d + c];
      sum += dot;
      squares += dot * dot;
      z[j] = dot * s;
    }
    const max = Math.max(...z);
    const e = z.map((x) => Math.exp(x - max));
    const total = e.reduce((a, b) => a + b, 0);
    let h = 0;
    for (const x of e) if (x > 0) h -= (x / total) * Math.log(x / total);
    entropy += h / T;
    maxWeight += Math.max(...e) / total / T;
  }
  const mean = sum / (T * T);
  return { rawLogitStd: Math.sqrt(squares / (T * T) - mean * mean), entropy, maxWeight };
}

const T = 32;
const DK = 16;
const HEAD = T * DK;

test('every head matches a float64 reference, and a key head serves its group', async () => {
  for (const engine of Object.values(await bothEngines())) {
    const q = normals(4 * HEAD, 1, 0, 1.5);
    const k = normals(2 * HEAD, 2);
    const { heads } = engine.analyze(q, k, { seqLen: T, dk: DK, heads: 4, kvHeads: 2 });
    assert.equal(heads.length, 4);
    heads.forEach((r, h) => {
      assert.equal(r.head, h);
      assert.equal(r.kvHead, Math.floor(h / 2));
      const want = referenceHead(
        q.subarray(h * HEAD, (h + 1) * HEAD),
        k.subarray(r.kvHead * HEAD, (r.kvHead + 1) * HEAD),
        T,
        DK,
        1 / Math.sqrt(DK),
      );
      // fp32 products over 16 terms against float64: 1e-5 relative is far above their rounding.
      for (const field of ['rawLogitStd', 'entropy', 'maxWeight']) {
        assert.ok(Math.abs(r[field] - want[field]) <= 1e-5 * Math.max(1, want[field]), `${field} head ${h}`);
      }
      // σ_q = 1.5, σ_k = 1: the i.i.d. value is about 1.5·√16 = 6.
      assert.ok(Math.abs(r.iidRawLogitStd - 6) < 0.6, `iid σ ${r.iidRawLogitStd}`);
      assert.equal(r.nonFinite.output, null);
      for (const absent of ['gradNormQ', 'gradNormK', 'rawLogitStdTheory', 'attention']) {
        assert.ok(!(absent in r), absent);
      }
    });
  }
});

test('detail adds per-row arrays and the weights; v adds the output check', async () => {
  const { simd } = await bothEngines();
  const q = normals(HEAD, 3);
  const k = normals(HEAD, 4);
  const v = new Float32Array(HEAD).fill(1);
  v[0] = Infinity;
  const [r] = simd.analyze(q, k, { seqLen: T, dk: DK, v, detail: true }).heads;
  assert.equal(r.attention.length, T * T);
  assert.equal(r.rowEntropy.length, T);
  assert.ok(r.nonFinite.output > 0);
  assert.equal(r.firstNonFiniteStage, 'output');
});

test('NaN in the data is counted, not thrown', async () => {
  const { simd } = await bothEngines();
  const q = normals(HEAD, 5);
  q[7] = NaN;
  const [r] = simd.analyze(q, normals(HEAD, 6), { seqLen: T, dk: DK }).heads;
  assert.equal(r.nonFiniteInputs, 1);
  assert.equal(r.nonFinite.logits, T);
  assert.equal(r.firstNonFiniteStage, 'logits');
  assert.ok(Number.isFinite(r.qStd));
});

// The sink heads of tests/tools/make-sink-fixture.py, built by the same exact generator: uniforms
// (s + 0.5)/2³² and 2u − 1 are exact in float64, so JS and numpy round the same values to float32.
function uniforms(n, seed) {
  let s = seed;
  const out = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    s = (s * 1664525 + 1013904223) % 2 ** 32;
    out[i] = 2 * ((s + 0.5) / 2 ** 32) - 1;
  }
  return out;
}

// Float64 mean weight on key 0 of softmax(q kᵀ · s) (keys j ≤ i when causal).
function referenceSink(q, k, T, d, s, causal) {
  let sum = 0;
  for (let i = 0; i < T; i++) {
    const n = causal ? i + 1 : T;
    const z = new Float64Array(n);
    for (let j = 0; j < n; j++) {
      for (let c = 0; c < d; c++) z[j] += q[i * d + c] * k[j * d + c];
      z[j] *= s;
    }
    const max = Math.max(...z);
    const total = z.reduce((a, x) => a + Math.exp(x - max), 0);
    sum += Math.exp(z[0] - max) / total;
  }
  return sum / T;
}

test('sinkWeight: the mean weight on key 0, against float64 JS and the numpy fixture', async () => {
  const fixture = JSON.parse(
    readFileSync(new URL('../../fixtures/sink/expected.json', import.meta.url), 'utf8'),
  );
  const q = uniforms(2 * HEAD, 11);
  const k = uniforms(HEAD, 12);
  for (let t = 0; t < T; t++) q[HEAD + t * DK] = 4; // head 1: component 0 is 4 in every query
  k.fill(0, 0, DK);
  k[0] = 5; // key 0 = 5·e₀
  const sum = (a) => a.reduce((x, y) => x + y, 0);
  assert.deepEqual([sum(q), sum(k)], [fixture.qSum, fixture.kSum], 'the tensors numpy used');
  for (const engine of Object.values(await bothEngines())) {
    for (const { causal, sinkWeight } of fixture.cases) {
      const { heads } = engine.analyze(q, k, { seqLen: T, dk: DK, heads: 2, kvHeads: 1, causal });
      heads.forEach((r, h) => {
        const js = referenceSink(q.subarray(h * HEAD, (h + 1) * HEAD), k, T, DK, 0.25, causal);
        assert.ok(Math.abs(js - sinkWeight[h]) < 1e-14, `float64 JS and numpy agree, head ${h}`);
        // float32 logits and weights against float64: 1e-6 is far above their rounding
        assert.ok(Math.abs(r.sinkWeight - js) < 1e-6, `head ${h} causal ${causal}: ${r.sinkWeight} vs ${js}`);
      });
      assert.ok(heads[1].sinkWeight > 0.75 && heads[0].sinkWeight < 0.2, `causal ${causal}`);
    }
  }
});

test('bad input gets an error naming the field, and the engine stays usable', async () => {
  const { simd } = await bothEngines();
  const q = normals(HEAD, 7);
  const cases = [
    [
      q,
      q,
      { seqLen: T, dk: DK, heads: 2 },
      RangeError,
      /q must be a Float32Array of heads·seqLen·dk = 1024 values, got length 512/,
    ],
    [q, q.subarray(1), { seqLen: T, dk: DK }, RangeError, /k must be .* got length 511/],
    [q, [1, 2], { seqLen: T, dk: DK }, TypeError, /k must be a Float32Array/],
    [
      q,
      q,
      { seqLen: T, dk: DK, heads: 3, kvHeads: 2 },
      RangeError,
      /heads \(3\) must be a multiple of kvHeads \(2\)/,
    ],
    [q, q, { seqLen: T, dk: DK, heads: 0 }, RangeError, /heads must be an integer in \[1, 256\], got 0/],
    [q, q, { seqLen: T, dk: DK, kvHeads: '1' }, TypeError, /kvHeads must be an integer/],
    [q, q, { seqLen: T }, TypeError, /analyze options need dk/],
    [q, q, { seqLen: T, dk: DK, seed: 3 }, TypeError, /unknown analyze option 'seed'/],
    [q, q, { seqLen: T, dk: DK, precision: 'fp4' }, RangeError, /precision/],
    [q, q, { seqLen: 4096, dk: 1 }, RangeError, /seqLen/],
    [q, q, { seqLen: T, dk: DK, v: new Float32Array(3) }, RangeError, /v must be .* got length 3/],
  ];
  for (const [a, b, options, kind, message] of cases) {
    assert.throws(
      () => simd.analyze(a, b, options),
      (e) => e instanceof kind && message.test(e.message),
    );
  }
  assert.throws(() => simd.analyze(q, q, null), TypeError);
  assert.equal(simd.analyze(q, q, { seqLen: T, dk: DK }).heads.length, 1);
});
