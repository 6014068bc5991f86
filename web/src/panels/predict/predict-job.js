// The drill's Worker job: the engine measures a question's settings when the reader checks a
// prediction, one config per slice. Nothing is measured before that request.
//
// In:  { type: 'predict', session, id, configs, rowSums? }
//   configs  1–4 engine configs; anything the engine refuses throws its RangeError/TypeError,
//            which names the field and its range (the Worker reports it as { type: 'error', … }).
//   rowSums  also the largest |Σ_j p_ij − 1| over the rows whose weights are all finite
//            (`rowSumError`), from the forward's weights.
// Out: { type: 'predictMeasured', session, id, measured }                      once, at the end
//   measured  per config, engine.forwardStats's scalars (run's, with the gradient norms NaN); with
//             rowSums, run's scalars (the same numbers, and the gradient norms) and `rowSumError`.

/** The largest |row sum − 1| of a T×T weight matrix, over the rows without an inf or NaN. */
export function rowSumError(weights, seqLen) {
  let worst = 0;
  for (let i = 0; i < seqLen; i++) {
    let sum = 0;
    for (let j = 0; j < seqLen; j++) sum += weights[i * seqLen + j];
    if (Number.isFinite(sum)) worst = Math.max(worst, Math.abs(sum - 1));
  }
  return worst;
}

function checkConfigs(configs) {
  if (!Array.isArray(configs) || configs.length < 1 || configs.length > 4)
    throw new RangeError(
      `configs must list 1 to 4 engine configs, got ${Array.isArray(configs) ? configs.length : typeof configs}`,
    );
}

function predictJob(engine, { session, id, configs, rowSums = false }, post) {
  checkConfigs(configs);
  const measured = [];
  const measure = (cfg) => {
    if (!rowSums) return engine.forwardStats(cfg);
    const r = engine.run(cfg);
    const scalars = Object.fromEntries(
      Object.entries(r).filter(([, v]) => typeof v !== 'object' || v === null || v === r.nonFinite),
    );
    return { ...scalars, rowSumError: rowSumError(r.attention, r.config.seqLen) };
  };
  return {
    next() {
      measured.push(measure(configs[measured.length]));
      if (measured.length < configs.length) return true;
      post({ type: 'predictMeasured', session, id, measured });
      return false;
    },
    dispose() {},
  };
}

/** { type: 'predict', session, id, configs, rowSums? } → 'predictMeasured' (above). */
export const workerJobs = { predict: predictJob };
