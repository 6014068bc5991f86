// Downsampling of the T×T attention matrix for display (the heatmap of a run, a report's head).
// Pure: no DOM and no import, so the run's job and a report's job (compute/, panels/report/) share it.
//
// For T above `maxSide`, each displayed cell covers a block of b×b weights (b = ceil(T / maxSide))
// and shows the LARGEST weight in its block, so a sharp (saturated) attention pattern stays
// visible. A block containing any NaN/±inf weight is NaN: "non-finite" wins over every value.

/** The side of a heatmap as the page draws it: a run's, its contrast's, a report's head. */
export const HEATMAP_SIDE = 256;

export function downsampleAttention(attention, T, maxSide = HEATMAP_SIDE) {
  const b = Math.max(1, Math.ceil(T / maxSide));
  const n = Math.ceil(T / b);
  // One cell per weight: the matrix itself (no copy; the Worker transfers it to the page).
  if (b === 1)
    return { side: n, block: 1, data: attention.length === T * T ? attention : attention.slice(0, T * T) };
  const out = new Float32Array(n * n);
  out.fill(-Infinity);
  for (let i = 0; i < T; i++) {
    const row = (i / b) | 0;
    const base = i * T;
    for (let j = 0; j < T; j++) {
      const v = attention[base + j];
      const o = row * n + ((j / b) | 0);
      const cur = out[o];
      if (Number.isNaN(cur)) continue; // already NaN
      if (!Number.isFinite(v)) out[o] = NaN;
      else if (v > cur) out[o] = v;
    }
  }
  return { side: n, block: b, data: out };
}
