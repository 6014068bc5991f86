// How the d_k points of one sweep are shared between sweep Workers. Every point is a pure function
// of (config, d_k) — engine.sweepScalesJob gives run() at that d_k bit for bit, whatever other
// points the job computes — so any split gives the same numbers as one Worker.
//
// Cost model, per point: the backward GEMMs (∝ d_k per scaling) plus the softmax and statistics
// (∝ T², about the cost of d_k ≈ 64 worth of GEMM). The largest d_k costs about as much as all
// the smaller ones together, so it gets a Worker of its own; the rest are dealt greedily, largest
// first, to the least loaded Worker (LPT scheduling).
const POINT_COST_DK = 64;

/** Splits `dks` into at most `parts` ascending lists, covering every d_k exactly once. */
export function partitionDks(dks, parts) {
  const sorted = [...dks].sort((a, b) => b - a);
  const n = Math.max(1, Math.min(Math.floor(parts) || 1, sorted.length));
  if (n === 1) return [sorted.reverse()];
  const out = [[sorted[0]]];
  const load = [];
  for (let i = 1; i < n; i++) {
    out.push([]);
    load.push(0);
  }
  for (const dk of sorted.slice(1)) {
    let best = 0;
    for (let i = 1; i < load.length; i++) if (load[i] < load[best]) best = i;
    out[best + 1].push(dk);
    load[best] += dk + POINT_COST_DK;
  }
  return out.filter((p) => p.length).map((p) => p.reverse());
}

/**
 * Sweep Workers for this browser: one per spare core (hardwareConcurrency − 1), at least 1, at
 * most 4. `override` (a number, e.g. from the page's ?sweepWorkers= debug parameter) wins when it
 * is an integer in 1..4.
 */
export function sweepWorkerCount(override = null, cores = globalThis.navigator?.hardwareConcurrency) {
  const forced = Number(override);
  if (override !== null && override !== '' && Number.isInteger(forced) && forced >= 1 && forced <= 4)
    return forced;
  const c = Number.isFinite(cores) ? cores : 2;
  return Math.min(4, Math.max(1, c - 1));
}
