// engine.attention (the fast fp32 forward) against a float64 reference, in both wasm builds:
// the SIMD build takes paths the native GoogleTests cannot reach (4-lane vectors: the in-register
// 4 × 4 transpose that packs Kᵀ), so awkward shapes are checked here too.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { bothEngines } from '../helpers.js';

function uniform(n, seed) {
  let s = seed >>> 0;
  const out = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    s = (s * 1664525 + 1013904223) >>> 0;
    out[i] = (s / 2 ** 32) * 2 - 1;
  }
  return out;
}

// softmax(q kᵀ · scale) v in float64, query row i seeing keys 0 … visible(i) − 1.
function reference(q, k, v, T, dk, scale, causal) {
  const out = new Float64Array(T * dk);
  const p = new Float64Array(T);
  for (let i = 0; i < T; i++) {
    const keys = causal ? i + 1 : T;
    let max = -Infinity;
    for (let j = 0; j < keys; j++) {
      let dot = 0;
      for (let c = 0; c < dk; c++) dot += q[i * dk + c] * k[j * dk + c];
      p[j] = dot * scale;
      max = Math.max(max, p[j]);
    }
    let sum = 0;
    for (let j = 0; j < keys; j++) sum += p[j] = Math.exp(p[j] - max);
    for (let c = 0; c < dk; c++) {
      let acc = 0;
      for (let j = 0; j < keys; j++) acc += p[j] * v[j * dk + c];
      out[i * dk + c] = acc / sum;
    }
  }
  return out;
}

// Tolerance 1e-5 with |O| ≤ 1 (inputs uniform in [−1, 1], s = 1/√d_k): the float errors are
// below 1e-6 (tests/cpp/engine/test_forward_fast.cpp); a wrong index, mask or packing gives ~0.1.
test('attention matches a float64 reference on awkward shapes, SIMD and scalar builds', async () => {
  const { simd, scalar } = await bothEngines();
  const shapes = [
    [2, 4],
    [5, 3],
    [16, 16],
    [17, 4],
    [33, 16],
    [64, 64],
    [100, 20],
    [130, 128],
    [40, 512],
  ];
  for (const [T, dk] of shapes) {
    for (const causal of [false, true]) {
      const n = T * dk;
      const q = uniform(n, 1 + T),
        k = uniform(n, 2 + dk),
        v = uniform(n, 3);
      const scale = 1 / Math.sqrt(dk);
      const want = reference(q, k, v, T, dk, scale, causal);
      for (const [name, engine] of [
        ['simd', simd],
        ['scalar', scalar],
      ]) {
        const got = engine.attention(q, k, v, { seqLen: T, dk, scale, causal });
        let worst = 0;
        for (let i = 0; i < n; i++) worst = Math.max(worst, Math.abs(got[i] - want[i]));
        assert.ok(worst <= 1e-5, `${name} T=${T} d_k=${dk} causal=${causal}: max |O − ref| = ${worst}`);
      }
    }
  }
});
