// How one sweep's d_k points are dealt to the Workers that compute (the sweep Workers and the
// foreground one). The tasks wait in one queue, the costliest first, and each Worker gets another
// when it reports one done: the longest task starts first (list scheduling), and the foreground
// Worker, which serves the page's runs before any sweep slice, simply takes fewer tasks while the
// reader drags a slider.
//
// Cost model, per point at large T: the GEMMs (∝ d_k) plus the softmax and statistics (∝ T², at
// T = 2048 about the cost of d_k ≈ 64 worth of GEMM). The cheap small-d_k points go together in
// runs of consecutive d_k, one task each, so that a Worker is not left waiting for its next task
// on the page's thread (busy drawing during a cold load) after every few milliseconds of work; one
// job over consecutive d_k also extends its products instead of starting over. A short sweep (no
// estimate) is one task per Worker (groupDks).
//
// At large T every d_k is first estimated from ESTIMATE_ROWS query rows (engine.sweepEstimateJob),
// and those tasks come before any exact one: the whole curve is drawn early, then replaced point
// by point. Every point, estimate or exact, is a pure function of (config, d_k, rows), whatever
// other points its job computes, so no split changes a number.
export const ESTIMATE_ROWS = 128;
// Below this T the exact sweep is short (under a second) and an estimate would only add to it.
export const ESTIMATE_FROM_SEQ_LEN = 512;
const POINT_COST_DK = 64;
// A run of small points costs at most this share of the whole sweep's cost per Worker.
const RUN_SHARE = 1 / 4;

/** The sampled rows of a sweep at this T: ESTIMATE_ROWS from ESTIMATE_FROM_SEQ_LEN on, else 0 (exact only). */
export function estimateRowsFor(seqLen) {
  return Number(seqLen) >= ESTIMATE_FROM_SEQ_LEN ? ESTIMATE_ROWS : 0;
}

/**
 * The d_k of one sweep as tasks for `slots` Workers: ascending lists, the costliest first. A
 * `short` sweep (small T, where sampling the inputs weighs as much as the products and one job
 * over consecutive d_k samples each column once) is one task per Worker: the slots − 1 largest
 * d_k alone, every smaller one in the last task.
 */
export function groupDks(dks, slots = 1, { short = false } = {}) {
  const cost = (list) => list.reduce((a, dk) => a + dk + POINT_COST_DK, 0);
  const asc = [...new Set(dks)].sort((a, b) => a - b);
  if (short) {
    const alone = Math.min(Math.max(0, slots - 1), asc.length - 1);
    const rest = asc.slice(0, asc.length - alone);
    return [
      ...asc
        .slice(asc.length - alone)
        .reverse()
        .map((dk) => [dk]),
      ...(rest.length ? [rest] : []),
    ];
  }
  const limit = (cost(asc) / Math.max(1, slots)) * RUN_SHARE;
  const groups = [];
  for (const dk of asc) {
    const last = groups[groups.length - 1];
    if (last && cost([...last, dk]) <= limit) last.push(dk);
    else groups.push([dk]);
  }
  return groups.sort((a, b) => cost(b) - cost(a));
}

/** The tasks of one sweep, in the order they are taken: [{ dks, estimateRows }]. */
export function sweepTasks(dks, { slots = 1, estimateRows = 0 } = {}) {
  const groups = groupDks(dks, slots, { short: !estimateRows });
  const exact = groups.map((g) => ({ dks: g, estimateRows: 0 }));
  return estimateRows ? [...groups.map((g) => ({ dks: g, estimateRows })), ...exact] : exact;
}

/**
 * createSweepDispatch({ tasks, slots, send(slot, task, index) }) → { done(index) → true once every
 * task is done, left }. A Worker holds up to two estimate tasks, so that it has the next at hand
 * when it finishes one (its answer and the next task both pass through the page's thread, which
 * may be busy drawing), but one exact task: those take seconds, and one given too early to a
 * Worker would wait there while another Worker runs out of work. `index` is the task's place in
 * `tasks`.
 */
export function createSweepDispatch({ tasks, slots, send }) {
  const n = Math.max(1, slots);
  let next = 0;
  let left = tasks.length;
  const owner = new Map(); // task index → slot
  const held = new Array(n).fill(0);
  /** Gives `slot` the next task if it may hold one more; → whether it did. */
  const give = (slot) => {
    if (next >= tasks.length || held[slot] >= (tasks[next].estimateRows ? 2 : 1)) return false;
    owner.set(next, slot);
    held[slot] += 1;
    send(slot, tasks[next], next);
    next += 1;
    return true;
  };
  // A task each, then a second each (a Worker may take a second estimate).
  for (let round = 0; round < 2; round++) for (let slot = 0; slot < n; slot++) give(slot);
  return {
    done(index) {
      if (!owner.has(index)) return false;
      const slot = owner.get(index);
      owner.delete(index);
      held[slot] -= 1;
      left -= 1;
      while (give(slot));
      return left === 0;
    },
    get left() {
      return left;
    },
  };
}

// The foreground Worker and 12 sweep Workers hold one of the sweep's 13 d_k points each; more
// Workers would only wait, each with an engine's memory.
const MAX_SWEEP_WORKERS = 12;

/**
 * Sweep Workers for this browser: one per spare core (hardwareConcurrency − 1), at least 1, at
 * most MAX_SWEEP_WORKERS. `override` (e.g. from the page's ?sweepWorkers= debug parameter) wins
 * when it is an integer in that range.
 */
export function sweepWorkerCount(override = null, cores = globalThis.navigator?.hardwareConcurrency) {
  const forced = Number(override);
  if (
    override !== null &&
    override !== '' &&
    Number.isInteger(forced) &&
    forced >= 1 &&
    forced <= MAX_SWEEP_WORKERS
  )
    return forced;
  const c = Number.isFinite(cores) ? cores : 2;
  return Math.min(MAX_SWEEP_WORKERS, Math.max(1, c - 1));
}
