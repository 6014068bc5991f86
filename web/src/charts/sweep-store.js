// The d_k sweep's points as they arrive, by scaling, for the sigma, entropy and gradients panels.
/**
 * Sweep bookkeeping shared by the three vs-d_k panels. A point is exact (the engine's run at that
 * d_k) or an estimate from a sample of query rows (engine.sweepEstimateJob); an exact point
 * replaces the estimate at its d_k, and an estimate never replaces an exact point.
 */
export function createSweepStore(scales) {
  const empty = () => new Map(scales.map((s) => [s, new Map()]));
  let exact = empty();
  let estimates = empty();
  let stale = false;
  const sizeOf = (byScale) => [...byScale.values()].reduce((n, m) => n + m.size, 0);
  /** The point drawn for (scale, dk): the exact one, else the estimate (when `estimate`). */
  const drawn = (scale, dk, estimate = true) =>
    exact.get(scale)?.get(dk) ?? (estimate ? estimates.get(scale)?.get(dk) : undefined);
  return {
    scales,
    reset() {
      stale = true;
    },
    get stale() {
      return stale;
    },
    add(scale, point, { estimate = false } = {}) {
      if (stale) {
        exact = empty();
        estimates = empty();
        stale = false;
      }
      if (!exact.has(scale)) return;
      if (!estimate) {
        exact.get(scale).set(point.dk, point);
        estimates.get(scale).delete(point.dk);
      } else if (!exact.get(scale).has(point.dk)) estimates.get(scale).set(point.dk, point);
    },
    dks() {
      const set = new Set();
      for (const byScale of [exact, estimates])
        for (const m of byScale.values()) for (const k of m.keys()) set.add(k);
      return [...set].sort((a, b) => a - b);
    },
    /**
     * Aligned column of `f(point)` over `dks` for one scaling (null where missing/invalid);
     * `estimate: false` leaves out the estimates (a value the estimate does not give).
     */
    column(scale, dks, f, { positive = false, estimate = true } = {}) {
      return dks.map((dk) => {
        const p = drawn(scale, dk, estimate);
        if (!p) return null;
        const v = f(p);
        return Number.isFinite(v) && (!positive || v > 0) ? v : null;
      });
    },
    /** The estimate drawn at (scale, dk), if no exact point replaced it yet. */
    estimateAt(scale, dk) {
      return exact.get(scale)?.has(dk) ? undefined : estimates.get(scale)?.get(dk);
    },
    /** Exact points. */
    count: () => sizeOf(exact),
    /** Estimates not yet replaced by their exact point. */
    estimateCount: () => sizeOf(estimates),
    /** The query rows the estimates sampled (each estimate says; 0 without one). */
    estimateRows() {
      const m = [...estimates.values()].find((byDk) => byDk.size);
      return m ? m.values().next().value.rows : 0;
    },
    /** Scalings with at least one drawn point where `f` is NaN or infinite. */
    nonFiniteScales(f) {
      return scales.filter((s) =>
        [...exact.get(s).values(), ...estimates.get(s).values()].some((p) => !Number.isFinite(f(p))),
      );
    },
    /** The exact points, by scaling then d_k (the panels' CSV: estimates are not exported). */
    points() {
      const out = [];
      for (const [s, m] of exact)
        for (const p of [...m.values()].sort((a, b) => a.dk - b.dk)) out.push([s, p]);
      return out;
    },
  };
}

/** Text under a sweep chart when some measured points are NaN/inf (drawn as gaps); `labels` the scalings'. */
export function gapText(labels) {
  if (!labels.length) return '';
  return (
    `Gaps: for ${labels.join(', ')} some points are NaN or infinite ` +
    '(non-finite values in this precision; see the precision panel), so they are not drawn.'
  );
}
