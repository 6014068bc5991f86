// How one sweep's d_k points are cut into tasks for the Workers that compute (the sweep Workers
// and the foreground one), and how many sweep Workers there are. The session deals the tasks
// (dealer.js, with sweepDeal's options), the costliest first, and each Worker gets another when it reports one done: the
// longest task starts first (list scheduling), and the foreground Worker, which serves the page's
// runs before any sweep slice, simply takes fewer tasks while the reader drags a slider.
//
// A task is a run of consecutive d_k computed by one job, which extends its products QKᵀ, GVᵀ (and
// the Gram matrices) from one point to the next instead of starting over: a task's cost is its
// products to its largest d_k plus each point's own work (jobCost). The runs are chosen so that
// the queue ends soonest on `slots` Workers (every split of the sorted d_k into runs is tried). A
// short sweep (no estimate) is one task per Worker (groupDks).
//
// At large T every d_k is first estimated from ESTIMATE_ROWS query rows (engine.sweepEstimateJob),
// and those tasks come before any exact one: the whole curve is drawn early, then replaced point
// by point. Every point, estimate or exact, is a pure function of (config, d_k, rows), whatever
// other points its job computes, so no split changes a number.
const ESTIMATE_ROWS = 128;
// Below this T the exact sweep is short (under a second) and an estimate would only add to it.
const ESTIMATE_FROM_SEQ_LEN = 512;
// Each scaling's softmax with its row statistics and the rest of a point's element-wise work, in
// the unit of jobCost (the work of one column of the products, 4·T² flops, also ∝ T²).
const POINT_OVERHEAD = 120;
// The backward's products (dS K and dSᵀ Q, 4·T²·d_k flops) run about 1.5× slower per flop than
// the forward's in the wasm builds.
const DIRECT_BACKWARD = 1.5;
// What a task costs beyond its work: its job's start, and the trip of its request and of its answer
// through the page's thread, which may be busy drawing.
const TASK_OVERHEAD = 150;
// Splits are tried exhaustively up to this many d_k (2^(n−1) splits); beyond, each d_k alone.
const MAX_SPLIT_SEARCH = 16;
// Two splits whose queues end within this share of each other count as equal; the one with less
// work in all wins (it leaves more of the cores to the page).
const MAKESPAN_TOLERANCE = 0.01;

/** The sampled rows of a sweep at this T: ESTIMATE_ROWS from ESTIMATE_FROM_SEQ_LEN on, else 0 (exact only). */
export function estimateRowsFor(seqLen) {
  return Number(seqLen) >= ESTIMATE_FROM_SEQ_LEN ? ESTIMATE_ROWS : 0;
}

/**
 * The cost of one exact job over the ascending d_k `dks` at sequence length `seqLen`, in units of
 * one column of the products (4·T² flops): QKᵀ and GVᵀ to the largest d_k, with the Gram
 * matrices' lower triangles (1.5× the columns) when it reaches T; then per point and scaling the
 * backward (4·T²·d_k flops, or 2·T³ in the Gram form from d_k >= T) and the softmax's share;
 * and the task's own overhead.
 * Fitted to the CPU time of the page's tasks at T = 2048 (docs/performance.md).
 */
export function jobCost(dks, { seqLen = 2048, scalings = 3 } = {}) {
  const T = Math.max(1, Number(seqLen) || 1);
  const top = dks[dks.length - 1] ?? 0;
  const products = top >= T ? 1.5 * top : top;
  const backward = (dk) => (dk >= T ? T / 2 : DIRECT_BACKWARD * dk);
  const points = dks.reduce((a, dk) => a + backward(dk) + POINT_OVERHEAD, 0);
  return TASK_OVERHEAD + products + scalings * points;
}

/** When the last of `costs` (sorted in place), taken costliest first by whichever of `slots` Workers is free, ends. */
function makespan(costs, slots) {
  const free = new Array(Math.max(1, slots)).fill(0);
  for (const c of costs.sort((a, b) => b - a)) {
    let i = 0;
    for (let s = 1; s < free.length; s++) if (free[s] < free[i]) i = s;
    free[i] += c;
  }
  return Math.max(...free);
}

/**
 * The d_k of one sweep as tasks for `slots` Workers: ascending runs of consecutive d_k, the
 * costliest first. A `short` sweep (small T, where sampling the inputs weighs as much as the
 * products and one job over consecutive d_k samples each column once) is one task per Worker: the
 * slots − 1 largest d_k alone, every smaller one in the last task. Otherwise the split whose queue
 * ends soonest by jobCost.
 */
export function groupDks(dks, slots = 1, { short = false, seqLen = 2048, scalings = 3 } = {}) {
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
  if (!asc.length) return [];
  const key = [slots, seqLen, scalings, ...asc].join();
  if (!bestSplits.has(key)) {
    if (bestSplits.size >= SPLIT_CACHE_SIZE) bestSplits.clear();
    bestSplits.set(
      key,
      bestSplit(asc, slots, (g) => jobCost(g, { seqLen, scalings })),
    );
  }
  return bestSplits.get(key).map((g) => [...g]);
}

// The split of each recent sweep shape: it is a pure function of the shape, and the search takes
// milliseconds of the page's thread.
const SPLIT_CACHE_SIZE = 32;
const bestSplits = new Map();

/**
 * The runs of `asc` whose queue ends soonest on `slots` Workers by `cost`, the costliest first;
 * at least one run per Worker, so that each starts on an estimate (their tasks are the same runs)
 * rather than one Worker's exact task taking a core from the estimates.
 */
function bestSplit(asc, slots, cost) {
  const n = asc.length;
  const byCost = (groups) => groups.sort((a, b) => cost(b) - cost(a));
  if (n > MAX_SPLIT_SEARCH) return byCost(asc.map((dk) => [dk]));
  // runCost[i][j]: the cost of the run asc[i … j].
  const runCost = asc.map((_, i) => asc.map((__, j) => (j >= i ? cost(asc.slice(i, j + 1)) : 0)));
  let best = null;
  const costs = [];
  // Bit i of `cuts` set: a new run starts after asc[i].
  for (let cuts = 0; cuts < 2 ** (n - 1); cuts++) {
    costs.length = 0;
    let total = 0;
    for (let i = 0, start = 0; i < n; i++)
      if (i === n - 1 || cuts & (1 << i)) {
        costs.push(runCost[start][i]);
        total += runCost[start][i];
        start = i + 1;
      }
    if (costs.length < Math.min(slots, n)) continue;
    const end = makespan(costs, slots);
    const better =
      !best ||
      end < best.end * (1 - MAKESPAN_TOLERANCE) ||
      (end <= best.end * (1 + MAKESPAN_TOLERANCE) && total < best.total);
    if (better) best = { cuts, end: Math.min(end, best?.end ?? end), total };
  }
  const groups = [[]];
  asc.forEach((dk, i) => {
    groups[groups.length - 1].push(dk);
    if (i < n - 1 && best.cuts & (1 << i)) groups.push([]);
  });
  return byCost(groups);
}

/** The tasks of one sweep, in the order they are taken: [{ dks, estimateRows }]. */
export function sweepTasks(dks, { slots = 1, estimateRows = 0, seqLen = 2048, scalings = 3 } = {}) {
  const groups = groupDks(dks, slots, { short: !estimateRows, seqLen, scalings });
  const exact = groups.map((g) => ({ dks: g, estimateRows: 0 }));
  return estimateRows ? [...groups.map((g) => ({ dks: g, estimateRows })), ...exact] : exact;
}

/**
 * The sweep of `cfg` over `dks` for each of `scales` as the session deals it (dealer.js) to `slots`
 * Workers: { tasks, opts }, its tasks and the deal's options. Each task's message carries the
 * config, its d_k, the scalings, its sampled rows and `sentAt`; `finished(m)` is called once every
 * task is done.
 */
export function sweepDeal(cfg, dks, scales, { slots, sentAt, finished }) {
  const tasks = sweepTasks(dks, {
    slots,
    estimateRows: estimateRowsFor(cfg.seqLen),
    seqLen: cfg.seqLen,
    scalings: scales.length,
  });
  const opts = {
    // A Worker holds up to two estimate tasks but one exact task: those take seconds, and one
    // given too early to a Worker would wait there while another Worker runs out of work.
    holds: (task) => (task.estimateRows ? 2 : 1),
    message: (task) => ({ cfg, dks: task.dks, scales, estimateRows: task.estimateRows, sentAt }),
    finished,
  };
  return { tasks, opts };
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
