// TEMPORARY stand-in for engine.sweepScalesJob (being added to web/src/engine.js on the `sweep`
// branch), built on today's engine.sweepPoints: one generator per scaling, so it samples and
// accumulates once per scaling, and it can only stop between whole points of one scaling.
// Same contract: advance(budgetMs) → { done, value: { dk, points: { [scale]: point } } | null },
// delete(). Delete this file once the real API is merged.

/** Key of a scaling in `points`: the scale as given ('none' | 'sqrt' | 'linear' | String(number)). */
const keyOf = (scale) => String(scale);

export function sweepScalesJob(engine, cfg, dks, scales) {
  const gens = scales.map((scale) => ({ key: keyOf(scale), it: engine.sweepPoints({ ...cfg, scale }, dks) }));
  let turn = 0;
  let partial = {};
  let left = dks.length;
  return {
    advance(budgetMs) {
      const start = performance.now();
      while (left > 0) {
        const g = gens[turn];
        const { value } = g.it.next();
        partial[g.key] = value;
        turn += 1;
        if (turn === gens.length) {
          turn = 0;
          left -= 1;
          const out = { dk: value.dk, points: partial };
          partial = {};
          return { done: left === 0, value: out };
        }
        if (performance.now() - start >= budgetMs) return { done: false, value: null };
      }
      return { done: true, value: null };
    },
    delete() {
      for (const g of gens) g.it.return();
      left = 0;
    },
  };
}
