// The engine client over its Workers: sessions (one per page, component or embed in this realm)
// send their requests to a foreground Worker (runs), a pool of sweep Workers (sweeps, the panels'
// background jobs and the fixed studies; sweep-pool.js) and a training Worker, and each Worker's
// answers are routed back to the session that asked.
//
// Coalescing: a session has at most one run in flight. While one is computing, newer requests
// overwrite a single pending slot; when the result arrives it is delivered (the screen follows
// the drag) and the pending config is sent. So a slider drag never queues up stale work. A run's
// result comes in two parts: onRun(forward result) at once, onRunGradients(whole result) when its
// backward is done, unless a newer run came first (worker.js drops the stale backward).
// Background jobs (sweeps, the panels' jobs) are latest-wins too: a new one cancels the previous one.
import { createSweepPool } from './sweep-pool.js';
import { sweepDeal } from './sweep-tasks.js';
import { createDealer } from './dealer.js';

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
 * The sweep's Workers as the dealer's slots: every sweep Worker, then the foreground one (slot
 * pool.size, with short slices) when it is a Worker of its own; one alone when the engine runs on
 * the page's thread.
 */
function sweepSlots(s) {
  const { fg, pool } = s;
  return {
    slots: pool.onMainThread ? 1 : pool.size + (s.hasBackground ? 1 : 0),
    post(m, slot) {
      if (slot < pool.size) pool.post(slot, m);
      else fg.postMessage({ ...m, sliceMs: FOREGROUND_SLICE_MS });
    },
  };
}

/**
 * Where a job's message goes (a panel's meta says where its job runs: panels/index.js):
 * 'foreground'; 'background' (the pool's first Worker); { pool: n } (the pool's Worker n, modulo
 * its size: { pool: -1 } is its last); { slot: n }: one of `slots` Workers
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
 * says (poster); a job of several parts is dealt to every Worker (deal(), dealer.js). A job's
 * messages are given to the handler named by their type (handlers.sweepPoints,
 * handlers.reportHead, …), or else to handlers.onJob, while it is the session's latest of its kind;
 * an ordered kind's (request()) always, in order; a dealt part's done message to its deal.
 */
function computeSession(id, handlers, env) {
  const h = { ...NO_RUN_HANDLERS, ...handlers };
  const s = { id, h, seq: 0, ...env }; // seq: the last id given to a run or a job
  const jobIds = {}; // kind → the id of the session's latest job of that kind
  const requested = new Set(); // the ordered kinds the session sent requests of
  const deals = {}; // kind → { id, doneType, partDone, finished, dealer } of its latest dealt job
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
    const deal = deals[m.job];
    if (deal?.id === m.id && m.type === deal.doneType) {
      deal.partDone?.(m);
      if (deal.dealer.done(m.part)) deal.finished?.(m);
    } else (h[m.type] ?? h.onJob)?.(m);
  }
  /**
   * A new job of `kind` whose `parts` are dealt to `place`'s slots (dealer.js); its older job
   * stops everywhere first while it still has parts out and was not cancelled. → the job's id.
   */
  function deal(kind, parts, opts, place) {
    // Its parts may sit on other Workers than the new ones (unless it was cancelled already).
    if (deals[kind]?.dealer.left && deals[kind].id === jobIds[kind]) session.cancel(kind);
    const jid = (jobIds[kind] = ++s.seq);
    const { message, holds, doneType = `${kind}Done`, partDone, finished } = opts;
    const d = { id: jid, doneType, partDone, finished };
    deals[kind] = d;
    const send = (slot, fields, part) => {
      if (fields && jobIds[kind] === jid)
        place.post({ ...fields, type: kind, session: id, id: jid, part }, slot);
    };
    d.dealer = createDealer({
      parts,
      slots: place.slots,
      holds,
      send(slot, part, index) {
        const fields = message(part, index);
        if (typeof fields?.then !== 'function') send(slot, fields, index);
        else
          fields.then(
            (f) => send(slot, f, index),
            (err) =>
              jobIds[kind] === jid &&
              receiveJobError({
                type: 'error',
                session: id,
                id: jid,
                kind,
                name: err?.name ?? 'Error',
                message: String(err?.message ?? err),
              }),
          );
      },
    });
    return jid;
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
      const place = sweepSlots(s);
      const { tasks, opts } = sweepDeal(cfg, dks, scales, {
        slots: place.slots,
        sentAt: now(),
        finished: (m) => (h.sweepDone ?? h.onJob)?.(m),
      });
      return deal('sweep', tasks, opts, place);
    },
    /**
     * A new job of `kind` whose `parts` are dealt to the session's Workers (`slots` of them, the
     * foreground one first), the next to whichever Worker reports a part done; the session's
     * latest of its kind. opts: message(part, index) → the part's message fields (or a promise of
     * them; null sends nothing, a rejection is the job's error), sent with `part: index`; holds(part) → how many parts a Worker
     * may hold at once (1); doneType: the message type that ends a part (`${kind}Done`), given to
     * partDone(m) instead of a handler; finished(m) once every part is done. A part's error goes
     * to handlers.onError; cancel(kind) stops the dealing with the job. → the job's id.
     */
    deal(kind, parts, opts) {
      return deal(kind, parts, opts, { slots: to.slots(), post: (m, slot) => to.post(m, { slot }) });
    },
    /** A new job of `kind` in one message to the Worker `where` says (poster); latest wins. → its id. */
    job(kind, payload, where) {
      const jid = (jobIds[kind] = ++s.seq);
      to.post({ ...payload, type: kind, session: id, id: jid }, where);
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
      deals[kind]?.dealer.cancel();
      to.broadcast({ type: 'cancel', session: id, kind });
    },
    close() {
      to.broadcast({ type: 'close', session: id });
      s.forget(id);
    },
    /** The ordered kinds this session sent to a Worker of its own (none without one). */
    get ownKinds() {
      return s.own ? [...requested] : [];
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
 * calls it once its first chart is drawn; they boot once the foreground Worker is ready). Without
 * `createBackground`, the foreground Worker does everything.
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
      // Its failure is that of the kinds its sessions sent it.
      const fail = (message) => {
        const kinds = new Set([...sessions.values()].flatMap((sess) => sess.ownKinds));
        for (const kind of kinds) failAll(kind, message);
      };
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
