// Seeded Gaussian test tensors (xorshift32 and Box–Muller): the same values in every run.

/** n float32 values from N(mean, std²), from `seed`. */
export function gaussians(n, seed, { mean = 0, std = 1 } = {}) {
  let s = seed >>> 0 || 1;
  const u = () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return ((s >>> 0) + 0.5) / 2 ** 32;
  };
  const out = new Float32Array(n);
  for (let i = 0; i < n; i += 2) {
    const r = Math.sqrt(-2 * Math.log(u()));
    const t = 2 * Math.PI * u();
    out[i] = mean + std * r * Math.cos(t);
    if (i + 1 < n) out[i + 1] = mean + std * r * Math.sin(t);
  }
  return out;
}
