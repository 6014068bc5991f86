// The attention forward in plain JavaScript: the baseline a page would have without wasm, and
// (with ArrayType = Float64Array) the float64 reference the benchmark checks every result against.
export function plainAttention(q, k, v, T, dk, scale, ArrayType = Float32Array) {
  const out = new ArrayType(T * dk);
  const p = new ArrayType(T);
  for (let i = 0; i < T; i++) {
    let max = -Infinity;
    for (let j = 0; j < T; j++) {
      let dot = 0;
      for (let c = 0; c < dk; c++) dot += q[i * dk + c] * k[j * dk + c];
      p[j] = dot * scale;
      if (p[j] > max) max = p[j];
    }
    let sum = 0;
    for (let j = 0; j < T; j++) {
      p[j] = Math.exp(p[j] - max);
      sum += p[j];
    }
    for (let j = 0; j < T; j++) {
      const w = p[j] / sum;
      for (let c = 0; c < dk; c++) out[i * dk + c] += w * v[j * dk + c];
    }
  }
  return out;
}
