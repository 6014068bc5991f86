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

/**
 * openTraining's session: { id, send(op, payload) → id, close(), fail, receive }. Replies ('train'
 * messages, see worker.js) and errors of kind 'train' come back in request order.
 */
function trainingSession(id, handlers, { worker, openWorker, forget }) {
  let seq = 0;
  const h = { onMessage() {}, onError() {}, ...handlers };
  return {
    id,
    send(op, payload = {}) {
      const mid = ++seq;
      openWorker().postMessage({ type: 'train', session: id, id: mid, op, ...payload });
      return mid;
    },
    close() {
      worker()?.postMessage({ type: 'close', session: id });
      forget(id);
    },
    fail(kind, message) {
      if (kind === 'train') h.onError({ type: 'error', session: id, id: 0, kind, name: 'Error', message });
    },
    receive(m) {
      if (m.type === 'train') h.onMessage(m);
      else if (m.type === 'error' && m.kind === 'train') h.onError(m);
    },
  };
}

const NO_HANDLERS = {
  onRun() {},
  onRunGradients() {},
  onSweepPoints() {},
  onSweepDone() {},
  onVariantPoint() {},
  onVariantsDone() {},
  onThresholdsCells() {},
  onThresholdsDone() {},
  onStudyPoint() {},
  onStudyDone() {},
  onReportHead() {},
  onReportLayerDone() {},
  onReportDetail() {},
  onReportPrecision() {},
  onReportDetailDone() {},
  onError() {},
};

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

/** A background job's messages, by type: delivered while the job is the session's latest of its kind. */
function jobMessages(s) {
  const { h, jobIds } = s;
  return {
    sweepPoints: (m) => m.id === jobIds.sweep && h.onSweepPoints(m.points, m),
    sweepDone: (m) => m.id === jobIds.sweep && s.dispatch.done(m.part) && h.onSweepDone(m.id),
    variantPoint: (m) => m.id === jobIds.variants && h.onVariantPoint(m.index, m.point, m.id),
    variantsDone: (m) => m.id === jobIds.variants && h.onVariantsDone(m.id),
    thresholdsCells: (m) => m.id === jobIds.thresholds && h.onThresholdsCells(m.cells, m.id),
    thresholdsDone: (m) => m.id === jobIds.thresholds && h.onThresholdsDone(m.id),
    studyPoint: (m) => m.id === jobIds.study && h.onStudyPoint(m),
    studyDone: (m) => m.id === jobIds.study && h.onStudyDone(m.id),
    reportHead: (m) => m.id === jobIds.report && h.onReportHead(m),
    reportLayerDone: (m) => m.id === jobIds.report && h.onReportLayerDone(m),
    reportDetail: (m) => m.id === jobIds.reportDetail && h.onReportDetail(m),
    reportPrecision: (m) => m.id === jobIds.reportDetail && h.onReportPrecision(m),
    reportDetailDone: (m) => m.id === jobIds.reportDetail && h.onReportDetailDone(m),
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

/** openSession's session: runs on the foreground Worker (coalesced), background jobs on the pool. */
function computeSession(id, handlers, { fg, pool, hasBackground, forget }) {
  const h = { ...NO_HANDLERS, ...handlers };
  const s = {
    id,
    fg,
    pool,
    hasBackground,
    h,
    seq: 0, // the last id given to a run or a job
    jobIds: { sweep: 0, variants: 0, thresholds: 0, study: 0, report: 0, reportDetail: 0 },
    dispatch: null, // the current sweep's tasks (sweep-dispatch.js)
  };
  const { jobIds } = s;
  const runs = runQueue(s);
  let failedJob = 0;
  /** A background job's error: once per job (each part of a sweep may report the same failure). */
  function receiveJobError(m) {
    if (m.id === jobIds[m.kind] && failedJob !== m.id) {
      failedJob = m.id;
      h.onError(m);
    }
  }
  const JOB_MESSAGES = jobMessages(s);
  // A model report's layers go to every Worker that computes: slot 0 the foreground one, the
  // others the pool's (worker.js 'report'); without background Workers, all to the one Worker.
  const reportSlots = () => (hasBackground ? 1 + pool.size : 1);
  const postReport = (m, slot) => {
    if (slot % reportSlots() === 0) fg.postMessage(m);
    else pool.study(m, (slot % reportSlots()) - 1);
  };
  /** A new background job of `kind`: the session's latest (its id wins over the older ones). */
  const newJob = (kind) => (jobIds[kind] = ++s.seq);

  return {
    id,
    /** Request a run; coalesced (latest wins) while one is in flight. */
    run: runs.run,
    /** A run is computing or waiting to be sent. */
    get busy() {
      return runs.busy;
    },
    /**
     * The sweep of `cfg` over `dks` for each of `scales`: at large T an estimate of every point
     * first (its sweepPoints carry `estimate: true`), then the exact points; latest wins.
     */
    sweep(cfg, dks, scales) {
      if (s.dispatch?.left) this.cancel('sweep'); // its tasks may sit on other Workers than the new ones
      const jid = newJob('sweep');
      s.dispatch = dispatchSweep(s, jid, cfg, dks, scales);
      return jid;
    },
    variants(cfg, variants) {
      const jid = newJob('variants');
      pool.variants({ type: 'variants', session: id, id: jid, cfg, variants });
      return jid;
    },
    /** The overflow thresholds (worker.js 'thresholds'), on a background Worker. */
    thresholds(cfg, dks) {
      const jid = newJob('thresholds');
      pool.background({ type: 'thresholds', session: id, id: jid, cfg, dks: Array.from(dks) });
      return jid;
    },
    /** A fixed list of measurements (worker.js 'study'), on background Worker `slot`; latest wins. */
    study(tasks, slot = 0) {
      const jid = newJob('study');
      pool.study({ type: 'study', session: id, id: jid, tasks }, slot);
      return jid;
    },
    /** A new model report: its layers (reportLayer) replace the session's earlier ones. */
    reportStart() {
      this.reportCancel();
      return newJob('report');
    },
    /** How many Workers a report's layers can be spread over. */
    get reportSlots() {
      return reportSlots();
    },
    /** One layer of the current report on Worker `slot` (see worker.js 'report'). */
    reportLayer(layer, slot = 0) {
      postReport({ type: 'report', session: id, id: jobIds.report, ...layer }, slot);
    },
    /** One head in full (worker.js 'reportDetail'), on the foreground Worker; latest wins. */
    reportDetail(head) {
      const jid = newJob('reportDetail');
      fg.postMessage({ type: 'reportDetail', session: id, id: jid, ...head });
      return jid;
    },
    /** Stops the report's layers on every Worker. */
    reportCancel() {
      jobIds.report = -1;
      fg.postMessage({ type: 'cancel', session: id, kind: 'report' });
      if (hasBackground) pool.broadcast({ type: 'cancel', session: id, kind: 'report' });
    },
    cancel(kind) {
      jobIds[kind] = -1;
      pool.broadcast({ type: 'cancel', session: id, kind });
      if (kind === 'sweep' && hasBackground) fg.postMessage({ type: 'cancel', session: id, kind });
    },
    close() {
      fg.postMessage({ type: 'close', session: id });
      if (hasBackground) pool.broadcast({ type: 'close', session: id });
      forget(id);
    },
    fail(kind, message) {
      h.onError({ type: 'error', session: id, kind, name: 'Error', message });
    },
    receive(m) {
      if (m.type === 'runGradients' || (m.type === 'error' && m.kind === 'gradients'))
        runs.receiveGradients(m);
      else if (m.type === 'error' && m.kind !== 'run') receiveJobError(m);
      else if (m.type === 'run' || m.type === 'error') runs.receiveRun(m);
      else if (Object.hasOwn(JOB_MESSAGES, m.type)) JOB_MESSAGES[m.type](m);
    },
  };
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

  // Training (the training panel) gets a third Worker of its own, started on first use: its
  // chunks of steps then never delay a slider's answer or a sweep. Without a Worker factory it
  // shares the foreground Worker (which serves runs first, then one training request at a time).
  let trainWorker = null;
  function trainingWorker() {
    if (trainWorker) return trainWorker;
    trainWorker = createBackground ? createBackground() : fg;
    if (trainWorker !== fg) {
      trainWorker.addEventListener('message', route);
      const fail = (message) => failAll('train', message);
      trainWorker.addEventListener('error', (e) => fail(e.message || 'the training worker failed'));
      trainWorker.addEventListener('message', (e) => {
        if (e.data?.type === 'fatal') fail(e.data.message);
      });
    }
    return trainWorker;
  }

  const forget = (id) => sessions.delete(id);
  /** Registers a new session made by `make(id)`. */
  function open(make) {
    const session = make(nextSession++);
    sessions.set(session.id, session);
    return session;
  }
  /** openTraining({ onMessage(m), onError(m) }) → { send(op, payload) → id, close() }. */
  const openTraining = (handlers = {}) =>
    open((id) =>
      trainingSession(id, handlers, { worker: () => trainWorker, openWorker: trainingWorker, forget }),
    );
  const openSession = (handlers = {}) =>
    open((id) => computeSession(id, handlers, { fg, pool, hasBackground: !!createBackground, forget }));

  return {
    ready,
    mode: 'worker',
    openSession,
    openTraining,
    startBackground,
    get workers() {
      return [fg, ...pool.workers, trainWorker].filter((w, i, a) => w && a.indexOf(w) === i);
    },
  };
}
