// The background Workers of the engine client (worker-client.js): sweeps are split by d_k points
// over `count` sweep Workers (compute/sweep-partition.js); the variants job runs on the last one.
// The Workers are started by start() or by the first job posted to them (the page starts them
// while it loads, so that they boot beside the foreground Worker).
import { partitionDks } from './sweep-partition.js';

/**
 * createSweepPool({ create, count, route, onFail }) — `create()` makes one Worker-like object
 * (null: `shared` serves everything); `route(e)` receives their messages; `onFail(message)` is
 * told when one of them fails.
 */
export function createSweepPool({ create, count = 1, shared = null, route, onFail }) {
  let workers = shared ? [shared] : null;
  const queued = [];

  function start() {
    if (workers) return;
    workers = Array.from({ length: Math.max(1, count) }, () => {
      const w = create();
      w.addEventListener('message', route);
      w.addEventListener('error', (e) => onFail(e.message || 'a background compute worker failed'));
      w.addEventListener('message', (e) => {
        if (e.data?.type === 'fatal') onFail(e.data.message);
      });
      return w;
    });
    for (const [i, m] of queued.splice(0)) post(i, m);
  }

  function post(i, m) {
    if (!workers) start();
    workers[Math.min(i, workers.length - 1)].postMessage(m);
  }

  /** How many parts a sweep is split into: one per Worker, one when the engine is on this thread. */
  const parts = () =>
    workers?.some((w) => w.onMainThread) ? 1 : workers ? workers.length : Math.max(1, count);

  return {
    start,
    /** Posts one sweep message per part (each with its `part` and its share of `dks`); → the number of parts. */
    sweep(m) {
      const split = partitionDks(m.dks, parts());
      split.forEach((dks, part) => post(part, { ...m, dks, part }));
      return split.length;
    },
    variants(m) {
      post(count - 1, m);
    },
    /** Another background job (the overflow thresholds): on the first Worker. */
    background(m) {
      post(0, m);
    },
    /** A study (a chapter panel's fixed measurements) on Worker `slot` (modulo the Worker count). */
    study(m, slot = 0) {
      post(slot % Math.max(1, count), m);
    },
    /** To every Worker (cancel, close). */
    broadcast(m) {
      if (!workers) {
        for (let i = 0; i < count; i++) queued.push([i, m]);
        return;
      }
      for (const w of new Set(workers)) w.postMessage(m);
    },
    get workers() {
      return workers ?? [];
    },
    /** How many distinct Workers the pool has (or will have once started). */
    get size() {
      return workers ? new Set(workers).size : Math.max(1, count);
    },
  };
}
