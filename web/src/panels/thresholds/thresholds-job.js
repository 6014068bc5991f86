// Overflow thresholds per number format (the thresholds panel): for each precision, scaling and
// max subtraction, the smallest d_k at which the attention chain first holds a NaN or an infinity.
// No DOM: given an engine (engine.js's API, or a stand-in in tests), a resumable job sweeps the
// powers of two with sweepScalesJob, then narrows the first failing power of two down to one d_k
// with `run` by bisection. Bisection assumes a single crossing between the last finite power of two
// and the first failing one; where the sampled powers of two are not monotone (finite again after
// a failure) each cell says so (`finiteAfter`). The formats and scalings are the engine's schema's
// (threshold-grid.js).
import { thresholdGrid } from './threshold-grid.js';

const failed = (p) => p.firstNonFiniteStage != null;

/**
 * The bisection as a generator: yields the d_k to test, is sent back whether it fails, returns
 * { lo, hi } with hi − lo = 1 (lo finite, or 0 when nothing below was tested; hi fails).
 * Invariant given: `lo` finite (or 0) and `hi` fails.
 */
export function* bisect(lo, hi) {
  while (hi - lo > 1) {
    const mid = lo + Math.floor((hi - lo) / 2);
    if (yield mid) hi = mid;
    else lo = mid;
  }
  return { lo, hi };
}

/** The same, driven by a predicate: `failsAt(dk) → boolean`. */
export function bisectWith(lo, hi, failsAt) {
  const it = bisect(lo, hi);
  let r = it.next();
  while (!r.done) r = it.next(failsAt(r.value));
  return r.value;
}

/**
 * One scaling's sweep points (any order) → where it first fails among them:
 * { never: true, maxDk } or { never: false, lo, hi, stage, finiteAfter: [dk…] } where `lo` is the
 * sampled d_k just below the first failing one (0 if it is the first sampled), `hi` the first
 * failing d_k and `finiteAfter` the sampled d_k above `hi` where everything was finite again.
 */
export function scanPoints(points) {
  const pts = [...points].sort((a, b) => a.dk - b.dk);
  const i = pts.findIndex(failed);
  if (i < 0) return { never: true, maxDk: pts.length ? pts[pts.length - 1].dk : 0 };
  return {
    never: false,
    lo: i > 0 ? pts[i - 1].dk : 0,
    hi: pts[i].dk,
    stage: pts[i].firstNonFiniteStage,
    finiteAfter: pts
      .slice(i + 1)
      .filter((p) => !failed(p))
      .map((p) => p.dk),
  };
}

/** The slice of a point a cell keeps. */
const brief = (p) =>
  p && {
    dk: p.dk,
    stage: p.firstNonFiniteStage ?? null,
    logitMax: p.logitMax,
    nonFinite: { ...p.nonFinite },
  };

/**
 * createThresholdsJob(engine, cfg, dks) → { advance(budgetMs) → { done, cells: [cell…] }, delete() }.
 * `cfg`: the page's config (dk, scale, precision, subtractMax are set per cell; softmax is the
 * two-pass one). Cells come out row by row (thresholdGrid's order), each:
 * { precision, subtractMax, scale, seqLen, largestFinite, maxDk, never, dk, stage, bracket,
 *   bisected, finiteAfter, at, before } — `dk` the first failing d_k found, `at`/`before` the
 * points at dk and dk − 1 ({ dk, stage, logitMax, nonFinite }), `bracket` the powers of two
 * around it.
 */
export function createThresholdsJob(engine, cfg, dks) {
  const { rows, scales } = thresholdGrid(engine.schema);
  const base = { ...cfg, softmax: 'naive' };
  delete base.dk;
  delete base.scale;
  delete base.blockSize;
  let sweep = null;
  const work = run();
  let finished = false;

  function* run() {
    for (const row of rows) {
      const rowCfg = { ...base, ...row };
      const points = Object.fromEntries(scales.map((s) => [s, []]));
      sweep = engine.sweepScalesJob(rowCfg, dks, scales);
      for (;;) {
        const { done, value } = sweep.advance(yield 'sweep');
        if (value) for (const s of scales) points[s].push(value.points[s]);
        if (done) break;
      }
      sweep.delete();
      sweep = null;
      const cells = [];
      for (const scale of scales) {
        const pts = points[scale];
        const scan = scanPoints(pts);
        const largestFinite = pts[0]?.largestFinite;
        const cell = {
          ...row,
          scale,
          seqLen: base.seqLen,
          largestFinite,
          maxDk: dks[dks.length - 1],
          never: scan.never,
        };
        if (!scan.never) {
          const byDk = new Map(pts.map((p) => [p.dk, p]));
          let at = byDk.get(scan.hi),
            before = byDk.get(scan.lo) ?? null;
          if (scan.hi - scan.lo > 1) {
            const it = bisect(scan.lo, scan.hi);
            let r = it.next();
            while (!r.done) {
              yield 'run';
              const p = { dk: r.value, ...engine.run({ ...rowCfg, scale, dk: r.value }) };
              if (failed(p)) at = p;
              else before = p;
              r = it.next(failed(p));
            }
          }
          Object.assign(cell, {
            dk: at.dk,
            stage: at.firstNonFiniteStage,
            bracket: [scan.lo, scan.hi],
            bisected: scan.hi - scan.lo > 1,
            finiteAfter: scan.finiteAfter,
            at: brief(at),
            before: brief(before),
          });
        }
        cells.push(cell);
      }
      yield cells;
    }
  }

  return {
    /** Works for about `budgetMs` (at least one step); returns the cells completed meanwhile. */
    advance(budgetMs = 16) {
      const cells = [];
      const t0 = performance.now();
      while (!finished) {
        // Each step of `work` is one slice of a sweep (given what is left of the budget) or one run.
        const r = work.next(Math.max(1, budgetMs - (performance.now() - t0)));
        if (r.done) finished = true;
        else if (Array.isArray(r.value)) cells.push(...r.value);
        if (performance.now() - t0 >= budgetMs) break;
      }
      return { done: finished, cells };
    },
    delete() {
      finished = true;
      sweep?.delete();
      sweep = null;
      work.return();
    },
  };
}

/**
 * The job as worker.js runs it: next() works one slice and posts { type: 'thresholdsCells', cells }
 * and finally { type: 'thresholdsDone' } (with the request's session and id); false once done.
 */
function workerJob(engine, { session, id, cfg, dks }, post, sliceMs) {
  const job = createThresholdsJob(engine, cfg, dks);
  return {
    next() {
      const { done, cells } = job.advance(sliceMs);
      if (cells.length) post({ type: 'thresholdsCells', session, id, cells });
      if (done) post({ type: 'thresholdsDone', session, id });
      return !done;
    },
    dispose: () => job.delete(),
  };
}

/** { type: 'thresholds', session, id, cfg, dks } → 'thresholdsCells'* { cells }, 'thresholdsDone'. */
export const workerJobs = { thresholds: workerJob };
