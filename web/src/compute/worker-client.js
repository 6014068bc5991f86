// Client of the compute Workers, shared by every session in this JS realm: the page, and later
// several embedded components, each open their own session.
//
// Workers, one engine each: a foreground one for the current setting, and background ones for
// sweeps and variants (sweep-pool.js): a sweep's d_k points are split over up to 4 sweep Workers
// (one per spare core; ?sweepWorkers=N in the page's URL forces N, for tests). A sweep at large T
// and d_k takes seconds; in Workers of their own it never delays the answer to a slider move.
//
// Coalescing: a session has at most one run in flight. While one is computing, newer requests
// overwrite a single pending slot; when the result arrives it is delivered (the screen follows
// the drag) and the pending config is sent. So a slider drag never queues up stale work.
// Background jobs (sweeps, variants) are latest-wins too: a new one cancels the previous one.

import workerUrl from './worker.js?worker&url';
import { createMainThreadWorker } from './main-thread-worker.js';
import { hasWebAssembly, NO_WEBASSEMBLY } from '../engine/support.js';
import { watchWorkerPolicy, blobShimSource } from './worker-policy.js';
import { createSweepPool } from './sweep-pool.js';
import { sweepWorkerCount } from './sweep-partition.js';

let shared = null;

/**
 * A module Worker running `href` (the engine Worker by default). When this script was loaded from
 * another origin (a blog using attn-scale-demo.js from this site), `new Worker(url)` is refused
 * (Chromium and WebKit throw a SecurityError, Firefox fires an error event later); a same-origin
 * blob Worker that imports the script by URL works instead (the host serves the module with CORS,
 * as any cross-origin module script needs). CSP: the host's worker-src must allow blob:, its
 * script-src that origin (worker-policy.js).
 */
export function startModuleWorker(href = workerUrl) {
  const url = new URL(href, import.meta.url);
  if (url.origin === location.origin) return new Worker(url, { type: 'module' });
  const shim = new Blob([blobShimSource(url.href)], { type: 'text/javascript' });
  return new Worker(URL.createObjectURL(shim), { type: 'module' });
}

const defaultWorker = () => startModuleWorker();

/**
 * The shared client (created on first use). `createWorker` lets a build supply its own Worker.
 * Fallbacks: no WebAssembly → a client whose `ready` rejects with a message for the reader (no
 * Worker is started); a Worker that cannot be constructed, or fails before its first message
 * (blocked by a policy such as CSP `worker-src`, its script not loadable) → the engine runs on this
 * thread instead (`mode: 'main-thread'`; see resilientWorker).
 */
export function getEngineClient({ createWorker = defaultWorker, background = true, sweepWorkers = sweepWorkersFromUrl() } = {}) {
  if (shared) return shared;
  if (!hasWebAssembly()) {
    shared = unavailableClient(NO_WEBASSEMBLY);
    return shared;
  }
  // A host policy that refuses the Worker: remembered, so the notice can name the directive.
  const policy = watchWorkerPolicy(new URL(workerUrl || import.meta.url, import.meta.url).href);
  const make = () => resilientWorker(createWorker, policy.note);
  shared = createEngineClient(make(), background ? make : null, { sweepWorkers });
  Object.defineProperty(shared, 'workerRefusal', { get: () => policy.refusal, enumerable: true });
  if (mainThread) shared.mode = 'main-thread';
  return shared;
}

/** Sweep Workers: ?sweepWorkers=1..4 in the page's URL (a debug knob, see README), else by cores. */
function sweepWorkersFromUrl() {
  const search = globalThis.location?.search ?? '';
  return sweepWorkerCount(new URLSearchParams(search).get('sweepWorkers'));
}

// The engine on the page's thread, once any Worker has failed: one instance (main-thread-worker.js),
// whose messages reach the client through the first wrapper that switched to it ("receiver"); the
// others only send to it, so that no message is routed twice. `reason`: why the Worker failed (the
// offline file's stand-in, which cannot run the engine here, reports it; see vite-offline.js).
let mainThread = null;
function switchToMainThread(reason) {
  const first = !mainThread;
  if (first) mainThread = createMainThreadWorker({ reason });
  if (shared) shared.mode = 'main-thread';
  return { port: mainThread, receiver: first };
}

/**
 * A Worker from `create()` behind a Worker-shaped wrapper ({ postMessage, addEventListener }). If
 * the constructor throws, or the Worker's first message is 'fatal' (its engine could not start:
 * e.g. WebKit cannot read a Blob in a blob: Worker of a file:// page), or it reports an error
 * before any message, the wrapper moves to the main-thread engine and re-sends what was posted so
 * far. Later errors are passed on. `notePolicy(m)` receives a 'fatal' message's policy report.
 */
function resilientWorker(create, notePolicy = () => {}) {
  const listeners = { message: new Set(), error: new Set() };
  const emit = (type, e) => { for (const fn of listeners[type]) fn(e); };
  let target = null;
  let unanswered = []; // messages posted before the Worker first answered (null once it has)
  const fallBack = (reason) => {
    const { port, receiver } = switchToMainThread(reason);
    if (receiver) port.addEventListener('message', (e) => emit('message', e));
    target = port;
    for (const m of unanswered ?? []) port.postMessage(m);
    unanswered = null;
  };
  if (mainThread) fallBack();
  else {
    try {
      const worker = create();
      target = worker;
      worker.addEventListener('message', (e) => {
        if (target === worker && unanswered && e.data?.type === 'fatal') {
          notePolicy(e.data);
          worker.terminate?.();
          fallBack(e.data.message);
          return;
        }
        unanswered = null;
        emit('message', e);
      });
      worker.addEventListener('error', (e) => {
        if (target === worker && unanswered) {
          e.preventDefault?.();
          worker.terminate?.();
          fallBack();
        } else emit('error', e);
      });
    } catch {
      fallBack();
    }
  }
  return {
    postMessage(m, transfer) {
      if (unanswered) unanswered.push(m);
      target.postMessage(m, transfer);
    },
    addEventListener(type, fn) { listeners[type]?.add(fn); },
    /** Runs on the page's thread (several wrappers may share that one engine). */
    get onMainThread() { return target === mainThread; },
  };
}

/** A client for a browser that cannot run the engine at all. */
function unavailableClient(message) {
  const ready = Promise.reject(new Error(message));
  ready.catch(() => {});
  const refuse = () => { throw new Error(message); };
  return { ready, mode: 'unavailable', openSession: refuse, openTraining: refuse, workers: [] };
}

function readyOf(worker) {
  return new Promise((resolve, reject) => {
    worker.addEventListener('message', (e) => {
      if (e.data?.type === 'ready') resolve({ info: e.data.info, schema: e.data.schema, trainSchema: e.data.trainSchema, defaults: e.data.defaults, bootMs: e.data.bootMs });
      else if (e.data?.type === 'fatal') reject(new Error(e.data.message));
    });
    worker.addEventListener('error', (e) => reject(new Error(e.message || 'the compute worker failed to start')));
  });
}

/**
 * createEngineClient(fgWorker, createBackground?, { sweepWorkers }) — the background (sweep)
 * Workers are created by the first background job, or earlier by `startBackground()` (the page
 * calls it as it loads: they boot once the foreground Worker is ready, while the page builds its
 * charts). Without `createBackground`, the foreground Worker does everything.
 */
export function createEngineClient(fg, createBackground = null, { sweepWorkers = 1 } = {}) {
  const sessions = new Map();
  let nextSession = 1;
  const ready = readyOf(fg);
  const route = (e) => {
    const m = e.data;
    if (m && m.session !== undefined) sessions.get(m.session)?.receive(m);
  };
  fg.addEventListener('message', route);
  const pool = createSweepPool({
    create: createBackground,
    count: sweepWorkers,
    shared: createBackground ? null : fg,
    route,
    onFail: (message) => { for (const sess of sessions.values()) sess.fail('sweep', message); },
  });
  ready.catch(() => {});
  // Once the foreground Worker has answered: should it have failed, it is the one that moved to the
  // page's thread, and the main-thread engine's messages reach the client through it (see
  // resilientWorker); the sweep Workers created after it only send there.
  const startBackground = () => { ready.then(() => pool.start(), () => {}); };

  // Training (the training panel) gets a third Worker of its own, started on first use: its
  // chunks of steps then never delay a slider's answer or a sweep. Without a Worker factory it
  // shares the foreground Worker (which serves runs first, then one training request at a time).
  let trainWorker = null;
  function trainingWorker() {
    if (trainWorker) return trainWorker;
    trainWorker = createBackground ? createBackground() : fg;
    if (trainWorker !== fg) {
      trainWorker.addEventListener('message', route);
      const fail = (message) => { for (const sess of sessions.values()) sess.fail('train', message); };
      trainWorker.addEventListener('error', (e) => fail(e.message || 'the training worker failed'));
      trainWorker.addEventListener('message', (e) => { if (e.data?.type === 'fatal') fail(e.data.message); });
    }
    return trainWorker;
  }

  /**
   * openTraining({ onMessage(m), onError(m) }) → { send(op, payload) → id, close() }. Replies
   * ('train' messages, see worker.js) and errors of kind 'train' come back in request order.
   */
  function openTraining(handlers = {}) {
    const id = nextSession++;
    let seq = 0;
    const h = { onMessage() {}, onError() {}, ...handlers };
    const session = {
      id,
      send(op, payload = {}) {
        const mid = ++seq;
        trainingWorker().postMessage({ type: 'train', session: id, id: mid, op, ...payload });
        return mid;
      },
      close() {
        if (trainWorker) trainWorker.postMessage({ type: 'close', session: id });
        sessions.delete(id);
      },
      fail(kind, message) { if (kind === 'train') h.onError({ type: 'error', session: id, id: 0, kind, name: 'Error', message }); },
      receive(m) {
        if (m.type === 'train') h.onMessage(m);
        else if (m.type === 'error' && m.kind === 'train') h.onError(m);
      },
    };
    sessions.set(id, session);
    return session;
  }

  function openSession(handlers = {}) {
    const id = nextSession++;
    let seq = 0;
    let inFlight = null; // { id, cfg }
    let pending = null; // cfg
    const jobIds = { sweep: 0, variants: 0, thresholds: 0, study: 0 };
    let sweepPartsLeft = 0; // parts of the current sweep not yet done (one per sweep Worker)
    let failedJob = 0;
    const h = {
      onRun() {}, onSweepPoints() {}, onSweepDone() {}, onVariantPoint() {}, onVariantsDone() {}, onThresholdsCells() {}, onThresholdsDone() {},
      onStudyPoint() {}, onStudyDone() {}, onError() {},
      ...handlers,
    };

    const sendRun = (cfg) => {
      inFlight = { id: ++seq, cfg };
      fg.postMessage({ type: 'run', session: id, id: inFlight.id, cfg, sentAt: performance.timeOrigin + performance.now() });
    };

    const session = {
      id,
      /** Request a run; coalesced (latest wins) while one is in flight. */
      run(cfg) {
        if (inFlight) pending = cfg;
        else sendRun(cfg);
      },
      /** A run is computing or waiting to be sent. */
      get busy() { return inFlight !== null || pending !== null; },
      sweep(cfg, dks, scales) {
        const jid = ++seq;
        jobIds.sweep = jid;
        sweepPartsLeft = pool.sweep({ type: 'sweep', session: id, id: jid, cfg, dks: Array.from(dks), scales, sentAt: performance.timeOrigin + performance.now() });
        return jid;
      },
      variants(cfg, variants) {
        const jid = ++seq;
        jobIds.variants = jid;
        pool.variants({ type: 'variants', session: id, id: jid, cfg, variants });
        return jid;
      },
      /** The overflow thresholds (worker.js 'thresholds'), on a background Worker. */
      thresholds(cfg, dks) {
        const jid = ++seq;
        jobIds.thresholds = jid;
        pool.background({ type: 'thresholds', session: id, id: jid, cfg, dks: Array.from(dks) });
        return jid;
      },
      /** A fixed list of measurements (worker.js 'study'), on background Worker `slot`; latest wins. */
      study(tasks, slot = 0) {
        const jid = ++seq;
        jobIds.study = jid;
        pool.study({ type: 'study', session: id, id: jid, tasks }, slot);
        return jid;
      },
      cancel(kind) {
        jobIds[kind] = -1;
        pool.broadcast({ type: 'cancel', session: id, kind });
      },
      close() {
        fg.postMessage({ type: 'close', session: id });
        if (createBackground) pool.broadcast({ type: 'close', session: id });
        sessions.delete(id);
      },
      fail(kind, message) { h.onError({ type: 'error', session: id, kind, name: 'Error', message }); },
      receive(m) {
        switch (m.type) {
          case 'run':
            if (m.result?.timing) m.result.timing.receivedAt = performance.timeOrigin + performance.now();
          // falls through
          case 'error':
            if (m.type === 'error' && m.kind !== 'run') {
              // Once per job (each part of a sweep may report the same failure).
              if (m.id === jobIds[m.kind] && failedJob !== m.id) {
                failedJob = m.id;
                h.onError(m);
              }
              return;
            }
            if (!inFlight || m.id !== inFlight.id) return;
            inFlight = null;
            if (m.type === 'run') h.onRun(m.result, m.cfg);
            else h.onError(m);
            if (pending) {
              const cfg = pending;
              pending = null;
              sendRun(cfg);
            }
            return;
          case 'sweepPoints':
            if (m.id === jobIds.sweep) h.onSweepPoints(m.points, m);
            return;
          case 'sweepDone':
            if (m.id === jobIds.sweep && --sweepPartsLeft === 0) h.onSweepDone(m.id);
            return;
          case 'variantPoint':
            if (m.id === jobIds.variants) h.onVariantPoint(m.index, m.point, m.id);
            return;
          case 'variantsDone':
            if (m.id === jobIds.variants) h.onVariantsDone(m.id);
            return;
          case 'thresholdsCells':
            if (m.id === jobIds.thresholds) h.onThresholdsCells(m.cells, m.id);
            return;
          case 'thresholdsDone':
            if (m.id === jobIds.thresholds) h.onThresholdsDone(m.id);
            return;
          case 'studyPoint':
            if (m.id === jobIds.study) h.onStudyPoint(m);
            return;
          case 'studyDone':
            if (m.id === jobIds.study) h.onStudyDone(m.id);
            return;
          default:
        }
      },
    };
    sessions.set(id, session);
    return session;
  }

  return { ready, mode: 'worker', openSession, openTraining, startBackground, get workers() { return [fg, ...pool.workers, trainWorker].filter((w, i, a) => w && a.indexOf(w) === i); } };
}
