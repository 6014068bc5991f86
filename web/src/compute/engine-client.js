// The engine client over its Workers: sessions (one per page, component or embed in this realm)
// send their requests to a foreground Worker (runs), a pool of sweep Workers (sweeps, variants,
// the thresholds and the fixed studies; sweep-pool.js) and a training Worker, and each Worker's
// answers are routed back to the session that asked.
//
// Coalescing: a session has at most one run in flight. While one is computing, newer requests
// overwrite a single pending slot; when the result arrives it is delivered (the screen follows
// the drag) and the pending config is sent. So a slider drag never queues up stale work. A run's
// result comes in two parts: onRun(forward result) at once, onRunGradients(whole result) when its
// backward is done, unless a newer run came first (worker.js drops the stale backward).
// Background jobs (sweeps, variants) are latest-wins too: a new one cancels the previous one.
import { createSweepPool } from './sweep-pool.js';
import { createSweepDispatch, estimateRowsFor, sweepTasks } from './sweep-dispatch.js';

// A sweep slice on the foreground Worker is short: a run that arrives waits for it to end.
const FOREGROUND_SLICE_MS = 6;

const now = () => performance.timeOrigin + performance.now();

// Once the frame that shows what was just delivered has begun (its animation-frame callbacks), or
// after FRAME_WAIT_MS when no frame comes (a hidden page, Node).
const FRAME_WAIT_MS = 100;
function atNextFrame(fn) {
  let done = false;
  const once = () => {
    if (!done) fn();
    done = true;
  };
  setTimeout(once, FRAME_WAIT_MS);
  if (typeof requestAnimationFrame === 'function') requestAnimationFrame(once);
}

function readyOf(worker) {
  return new Promise((resolve, reject) => {
    worker.addEventListener('message', (e) => {
      if (e.data?.type === 'ready')
        resolve({
          info: e.data.info,
          schema: e.data.schema,
          trainSchema: e.data.trainSchema,
          defaults: e.data.defaults,
          bootMs: e.data.bootMs,
        });
      else if (e.data?.type === 'fatal') reject(new Error(e.data.message));
    });
    worker.addEventListener('error', (e) =>
      reject(new Error(e.message || 'the compute worker failed to start')),
    );
  });
}

const NO_RUN_HANDLERS = { onRun() {}, onRunGradients() {}, onError() {} };

/**
 * The runs of session state `s` (one in flight, the newest request waiting): { run(cfg), busy,
 * receiveRun(m), receiveGradients(m) }.
 */
function runQueue(s) {
  const { fg, h } = s;
  let inFlight = null; // { id, cfg }
  let pending = null; // cfg
  let firstResult = true;
  let awaitingGradients = null; // { id, cfg, result }: the forward delivered last, until its backward's

  const sendRun = (cfg) => {
    inFlight = { id: ++s.seq, cfg };
    fg.postMessage({ type: 'run', session: s.id, id: inFlight.id, cfg, sentAt: now() });
  };
  /** The Worker may compute the backward of run `runId`, whose forward is on its way to the screen. */
  function releaseBackward(runId) {
    // The Worker computes the backward once the forward's frame begins: sooner, it would take
    // a core from the page while the page takes the forward in. Not so for the session's first
    // result: the page is still building its charts, and its frames come late.
    const shown = () => fg.postMessage({ type: 'runShown', session: s.id, id: runId });
    if (firstResult) shown();
    else atNextFrame(shown);
    firstResult = false;
  }
  return {
    /** Request a run; coalesced (latest wins) while one is in flight. */
    run(cfg) {
      if (inFlight) pending = cfg;
      else sendRun(cfg);
    },
    /** A run is computing or waiting to be sent. */
    get busy() {
      return inFlight !== null || pending !== null;
    },
    /** A run's answer (its result or its error): delivered if it is the one in flight, then the pending config goes. */
    receiveRun(m) {
      if (m.type === 'run' && m.result?.timing) m.result.timing.receivedAt = now();
      if (!inFlight || m.id !== inFlight.id) return;
      inFlight = null;
      awaitingGradients = null;
      if (m.type === 'run') {
        h.onRun(m.result, m.cfg);
        if (m.result.backwardPending) {
          awaitingGradients = { id: m.id, cfg: m.cfg, result: m.result };
          releaseBackward(m.id);
        } else h.onRunGradients(m.result, m.cfg);
      } else h.onError(m);
      if (pending) {
        const cfg = pending;
        pending = null;
        sendRun(cfg);
      }
    },
    /** The backward of the forward delivered last: the whole result (or its failure) goes to the session. */
    receiveGradients(m) {
      if (m.timing) m.timing.receivedAt = now();
      if (m.id !== awaitingGradients?.id) return;
      const { result, cfg } = awaitingGradients;
      awaitingGradients = null;
      if (m.type === 'error') h.onError(m);
      else
        h.onRunGradients(
          {
            ...result,
            ...m.scalars,
            backwardPending: false,
            gradientsWorkerMs: m.workerMs,
            gradientsTiming: m.timing,
          },
          cfg,
        );
    },
  };
}

/**
 * Sends sweep job `jid` of session state `s` to its Workers: every sweep Worker, then the
 * foreground one (slot pool.size) when it is a Worker of its own; one alone when the engine runs on
 * the page's thread. → the sweep's dispatch (sweep-dispatch.js).
 */
function dispatchSweep(s, jid, cfg, dks, scales) {
  const { fg, pool } = s;
  const sentAt = now();
  const slots = pool.onMainThread ? 1 : pool.size + (s.hasBackground ? 1 : 0);
  const postSweep = (slot, m) => {
    if (slot < pool.size) pool.post(slot, m);
    else fg.postMessage({ ...m, sliceMs: FOREGROUND_SLICE_MS });
  };
  return createSweepDispatch({
    tasks: sweepTasks(dks, {
      slots,
      estimateRows: estimateRowsFor(cfg.seqLen),
      seqLen: cfg.seqLen,
      scalings: scales.length,
    }),
    slots,
    send: (slot, task, index) =>
      postSweep(slot, {
        type: 'sweep',
        session: s.id,
        id: jid,
        cfg,
        dks: task.dks,
        scales,
        estimateRows: task.estimateRows,
        part: index,
        sentAt,
      }),
  });
}

/**
 * Where a job's message goes: 'foreground'; 'background' (the pool's first Worker); 'variants' (its
 * last); { pool: n } (the pool's Worker n, modulo its size); { slot: n }: one of `slots` Workers
 * that compute, slot 0 the foreground one (a job spread over every Worker, as a model report's
 * layers). A session of its own Worker sends everything there.
 */
function poster(s) {
  const { fg, pool, own } = s;
  const slots = () => (s.hasBackground ? 1 + pool.size : 1);
  return {
    slots,
    post(m, where) {
      if (own) own().postMessage(m);
      else if (where === 'foreground') fg.postMessage(m);
      else if (where === 'background') pool.background(m);
      else if (where === 'variants') pool.variants(m);
      else if (where?.pool !== undefined) pool.study(m, where.pool);
      else if (where?.slot % slots() === 0) fg.postMessage(m);
      else pool.study(m, (where.slot % slots()) - 1);
    },
    /** To every Worker the session may have used. */
    broadcast(m) {
      if (own) own().postMessage(m);
      else {
        fg.postMessage(m);
        if (s.hasBackground) pool.broadcast(m);
      }
    },
  };
}

/**
 * openSession's session. Runs go to the foreground Worker (coalesced); jobs where their request
 * says (poster). A job's messages are given to the handler named by their type (handlers.sweepPoints,
 * handlers.reportHead, …), or else to handlers.onJob, while it is the session's latest of its kind;
 * an ordered kind's (request()) always, in order.
 */
function computeSession(id, handlers, env) {
  const h = { ...NO_RUN_HANDLERS, ...handlers };
  const s = { id, h, seq: 0, dispatch: null, ...env }; // seq: the last id given to a run or a job
  const jobIds = {}; // kind → the id of the session's latest job of that kind
  const requested = new Set(); // the ordered kinds the session sent requests of
  const runs = runQueue(s);
  const to = poster(s);
  let failedJob = 0;
  /** A background job's error: once per job (each part of a sweep may report the same failure). */
  function receiveJobError(m) {
    if (requested.has(m.kind)) h.onError(m);
    else if (m.id === jobIds[m.kind] && failedJob !== m.id) {
      failedJob = m.id;
      h.onError(m);
    }
  }
  function receiveJobMessage(m) {
    if (!requested.has(m.job) && m.id !== jobIds[m.job]) return;
    if (m.type === 'sweepDone' && !s.dispatch.done(m.part)) return;
    (h[m.type] ?? h.onJob)?.(m);
  }
  const session = {
    id,
    run: runs.run,
    /** A run is computing or waiting to be sent. */
    get busy() {
      return runs.busy;
    },
    /** How many Workers a job's parts can be spread over ({ slot } requests). */
    get slots() {
      return to.slots();
    },
    /**
     * The sweep of `cfg` over `dks` for each of `scales`: at large T an estimate of every point
     * first (its sweepPoints carry `estimate: true`), then the exact points; latest wins.
     */
    sweep(cfg, dks, scales) {
      if (s.dispatch?.left) session.cancel('sweep'); // its tasks may sit on other Workers than the new ones
      const jid = (jobIds.sweep = ++s.seq);
      s.dispatch = dispatchSweep(s, jid, cfg, dks, scales);
      return jid;
    },
    /** A new job of `kind` (its parts: post()), the session's latest: older ones stop everywhere. */
    start(kind) {
      if (jobIds[kind] > 0) session.cancel(kind);
      return (jobIds[kind] = ++s.seq);
    },
    /** A message of the session's latest job of `kind` (a part of it) to the Worker `where` says. */
    post(kind, payload, where) {
      to.post({ ...payload, type: kind, session: id, id: jobIds[kind] }, where);
    },
    /** A new job of `kind` in one message; latest wins. → its id. */
    job(kind, payload, where) {
      const jid = (jobIds[kind] = ++s.seq);
      session.post(kind, payload, where);
      return jid;
    },
    /** A request of an ordered kind: every reply is delivered, in order. → its id. */
    request(kind, payload, where) {
      requested.add(kind);
      const rid = ++s.seq;
      to.post({ ...payload, type: kind, session: id, id: rid }, where);
      return rid;
    },
    /** Every Worker of the session loads these job kinds' code now (worker.js 'prepare'). */
    prepare(kinds) {
      to.broadcast({ type: 'prepare', session: id, kinds });
    },
    cancel(kind) {
      jobIds[kind] = -1;
      to.broadcast({ type: 'cancel', session: id, kind });
    },
    close() {
      to.broadcast({ type: 'close', session: id });
      s.forget(id);
    },
    fail(kind, message) {
      if (s.own && !requested.has(kind)) return;
      h.onError({ type: 'error', session: id, id: 0, kind, name: 'Error', message });
    },
    receive(m) {
      if (m.type === 'runGradients' || (m.type === 'error' && m.kind === 'gradients'))
        runs.receiveGradients(m);
      else if (m.type === 'error' && m.kind !== 'run') receiveJobError(m);
      else if (m.type === 'run' || m.type === 'error') runs.receiveRun(m);
      else if (m.job) receiveJobMessage(m);
    },
  };
  return session;
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
  const failAll = (kind, message) => {
    for (const sess of sessions.values()) sess.fail(kind, message);
  };
  fg.addEventListener('message', route);
  const pool = createSweepPool({
    create: createBackground,
    count: sweepWorkers,
    shared: createBackground ? null : fg,
    route,
    onFail: (message) => failAll('sweep', message),
  });
  ready.catch(() => {});
  // Once the foreground Worker has answered: should it have failed, it is the one that moved to the
  // page's thread, and the main-thread engine's messages reach the client through it (see
  // resilient-worker.js); the sweep Workers created after it only send there.
  const startBackground = () => {
    ready.then(
      () => pool.start(),
      () => {},
    );
  };

  // A session may ask for a Worker of its own (the training panel's, a third Worker started on
  // first use, shared by every such session): its steps then never delay a slider's answer or a
  // sweep. Without a Worker factory it shares the foreground Worker (which serves runs first,
  // then one ordered request at a time).
  let ownWorker = null;
  function openOwnWorker() {
    if (ownWorker) return ownWorker;
    ownWorker = createBackground ? createBackground() : fg;
    if (ownWorker !== fg) {
      ownWorker.addEventListener('message', route);
      const fail = (message) => failAll('train', message);
      ownWorker.addEventListener('error', (e) => fail(e.message || 'a compute worker failed'));
      ownWorker.addEventListener('message', (e) => {
        if (e.data?.type === 'fatal') fail(e.data.message);
      });
    }
    return ownWorker;
  }

  const forget = (id) => sessions.delete(id);
  /** Registers a new session made by `make(id)`. */
  function open(make) {
    const session = make(nextSession++);
    sessions.set(session.id, session);
    return session;
  }
  /**
   * openSession(handlers, { ownWorker }) → a session (computeSession). handlers: onRun,
   * onRunGradients, onError, and one per message type of the jobs it starts (or onJob for all).
   */
  const openSession = (handlers = {}, { ownWorker: own = false } = {}) =>
    open((id) =>
      computeSession(id, handlers, {
        fg,
        pool,
        hasBackground: !!createBackground,
        own: own ? openOwnWorker : null,
        forget,
      }),
    );

  return {
    ready,
    mode: 'worker',
    openSession,
    startBackground,
    get workers() {
      return [fg, ...pool.workers, ownWorker].filter((w, i, a) => w && a.indexOf(w) === i);
    },
  };
}
