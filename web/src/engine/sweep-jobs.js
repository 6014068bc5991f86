// The resumable sweeps of engine.js (Engine#sweepScalesJob, Engine#sweepEstimateJob): a job id in
// the wasm engine, advanced a budget at a time, its points keyed by scale.

/** A budget in ms for advance(): a number >= 0, Infinity for "until the next point". */
export function checkBudget(budgetMs, until) {
  if (typeof budgetMs !== 'number' || !(budgetMs >= 0)) {
    throw new RangeError(`budgetMs must be a number >= 0 (Infinity: ${until}), got ${String(budgetMs)}`);
  }
}

class PointsJob {
  #native;
  #id;
  #keys;
  #calls;

  constructor(native, id, keys, calls) {
    this.#native = native;
    this.#id = id;
    this.#keys = keys;
    this.#calls = calls;
  }

  advance(budgetMs = Infinity) {
    if (this.#native === null) throw new Error(`this ${this.#calls.what} was deleted`);
    checkBudget(budgetMs, 'until the next point');
    const step = this.#native[this.#calls.advance](this.#id, budgetMs);
    if (step.done) return { done: true, value: null };
    if (step.dk === null) return { done: false, value: null };
    const points = {};
    this.#keys.forEach((key, i) => {
      points[key] = step.points[i];
    });
    return { done: false, value: { dk: step.dk, points } };
  }

  delete() {
    if (this.#native !== null) this.#native[this.#calls.end](this.#id);
    this.#native = null;
  }
}

/** A sweep in progress (Engine#sweepScalesJob). */
export class SweepJob extends PointsJob {
  constructor(native, id, keys) {
    super(native, id, keys, { what: 'sweep job', advance: 'sweepAdvance', end: 'sweepEnd' });
  }
}

/** A sweep estimate in progress (Engine#sweepEstimateJob). */
export class SweepEstimateJob extends PointsJob {
  constructor(native, id, keys, rows) {
    super(native, id, keys, { what: 'sweep estimate job', advance: 'estimateAdvance', end: 'estimateEnd' });
    /** The sampled query rows, ascending (Int32Array). */
    this.rows = rows;
  }
}
