// The background Workers of the engine client (worker-client.js): `count` sweep Workers, which
// take a sweep's d_k points one at a time (dealer.js); another job goes where its request says.
// The Workers are started by start() or by the first job posted to them (the page starts them
// once its first chart is drawn, so that they are ready before a sweep is asked for).
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

  return {
    start,
    /** A sweep task to Worker `slot` (0 ≤ slot < size). */
    post,
    /** The engine runs on the page's thread (see resilient-worker.js): one Worker serves all. */
    get onMainThread() {
      return !!workers?.some((w) => w.onMainThread);
    },
    /** Another background job ('background' in its panel's meta): on the first Worker. */
    background(m) {
      post(0, m);
    },
    /** A job on Worker `slot`, modulo the Worker count: -1 is the last Worker. */
    study(m, slot = 0) {
      const n = Math.max(1, count);
      post(((slot % n) + n) % n, m);
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
