// The d_k sweep's points as they arrive, by scaling, for the sigma, entropy and gradients panels.
/** Sweep bookkeeping shared by the three vs-d_k panels. */
export function createSweepStore(scales) {
  let byScale = new Map(scales.map((s) => [s, new Map()]));
  let stale = false;
  return {
    scales,
    reset() {
      stale = true;
    },
    get stale() {
      return stale;
    },
    add(scale, point) {
      if (stale) {
        byScale = new Map(scales.map((s) => [s, new Map()]));
        stale = false;
      }
      byScale.get(scale)?.set(point.dk, point);
    },
    dks() {
      const set = new Set();
      for (const m of byScale.values()) for (const k of m.keys()) set.add(k);
      return [...set].sort((a, b) => a - b);
    },
    /** Aligned column of `f(point)` over `dks` for one scaling (null where missing/invalid). */
    column(scale, dks, f, { positive = false } = {}) {
      const m = byScale.get(scale);
      return dks.map((dk) => {
        const p = m.get(dk);
        if (!p) return null;
        const v = f(p);
        return Number.isFinite(v) && (!positive || v > 0) ? v : null;
      });
    },
    count() {
      let n = 0;
      for (const m of byScale.values()) n += m.size;
      return n;
    },
    /** Scalings with at least one computed point where `f` is NaN or infinite. */
    nonFiniteScales(f) {
      const out = [];
      for (const [s, m] of byScale) if ([...m.values()].some((p) => !Number.isFinite(f(p)))) out.push(s);
      return out;
    },
    points() {
      const out = [];
      for (const [s, m] of byScale)
        for (const p of [...m.values()].sort((a, b) => a.dk - b.dk)) out.push([s, p]);
      return out;
    },
  };
}

/** Text under a sweep chart when some measured points are NaN/inf (drawn as gaps). */
export function gapText(scales) {
  if (!scales.length) return '';
  return (
    `Gaps: for ${scales.map((s) => SCALE_NAMES[s]).join(', ')} some points are NaN or infinite ` +
    '(non-finite values in this precision; see the precision panel), so they are not drawn.'
  );
}

export const SWEEP_SCALES = ['none', 'sqrt', 'linear'];
export const SCALE_NAMES = { none: 'none', sqrt: '1/√d_k', linear: '1/d_k' };
