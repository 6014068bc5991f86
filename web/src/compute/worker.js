// The compute Worker: owns one engine instance; the page never computes on its thread (except in
// the main-thread fallback, main-thread-worker.js, which runs this same file). This file is the
// switchboard (messages, scheduling, the engine's life); the jobs live with what they compute for:
// jobs/ (the run, the d_k sweep, the fixed studies) and a panel's own folder (its *-job.js).
//
// Protocol (all messages carry `session`, so several page instances can share this Worker):
//   in : { type: 'run',   session, id, cfg, sentAt }                → out 'run', then 'runGradients'
//          'run' { result }: the forward's (gradient norms NaN while result.backwardPending);
//          'runGradients' { scalars, workerMs, timing }: every scalar once the backward is done.
//          The backward starts on { type: 'runShown', session, id } (the page drew the forward)
//          and nothing else runs before it; a newer run of the same session drops it.
//        { type: 'sweep', session, id, cfg, dks, scales, part, estimateRows?, sliceMs?, sentAt }
//          → out 'sweepPoints'* { part, dk, points: { [scale]: point }, estimate, sentAt, startedAt },
//            then 'sweepDone' { part }. A page deals one sweep's d_k points to its Workers a task
//            at a time (sweep-tasks.js, dealer.js); each part is its own job, keyed by `part`. With
//            estimateRows the points are estimates from that many query rows; sliceMs overrides
//            SLICE_MS (the foreground Worker's short slices).
//        { type: <a panel's job kind>, session, id, part?, … }: the jobs of the panels'
//          registry (panels/jobs.js), each described in its module; a kind's module is loaded on
//          its first request, and requests that come meanwhile wait for it, in order.
//        { type: 'study', session, id, tasks }                      → out 'studyPoint'*, 'studyDone'
//          A fixed list of measurements (the chapter panels that do not follow the page's setting):
//          task { over: 'dk', cfg, xs, scales } (engine.sweepScalesJob) → { task, x, points };
//          task { over: 'seqLen', cfg, xs } (engine.sweepSeqLenPoints) → { task, x, point }.
//        { type: 'prepare', session, kinds }: load those kinds' modules now (a panel whose job's
//          data must not wait for a download, such as the report's model, asks as it mounts)
//        { type: 'cancel', session, kind } (every part of that kind)
//        { type: 'close', session }
//   out: { type: 'ready', info, schema, trainSchema, defaults } once, or { type: 'fatal', message }
//        every message of a job carries `job`: its kind (the client delivers it while the job is
//        the session's latest of that kind)
//        { type: 'error', session, id, kind, name, message, memory, cfg? } — `memory`: the engine
//        could not get the memory this request needs (the page keeps its last good charts and
//        says so); `cfg`: the config of a failed run.
// Scheduling: a single-run request always goes first (the current setting reaches the screen
// fast); a sweep advances in slices of about SLICE_MS (engine.sweepScalesJob keeps its work
// between slices) and every other job one slice at a time, yielding to the event loop in between,
// so a cancel or a newer request is seen within one slice. A kind whose requests must be carried
// out in order (`ordered`: the training panel's) has a queue, served before the sliced jobs.
// Typed arrays are transferred, not copied.
import { createEngine } from '../engine/engine.js';
// `self` is the Worker's global scope, or its stand-in on the page's thread (main-thread-worker.js).
import { workerSelf as self } from './worker-scope.js';
import { isMemoryFailure, isModuleAbort } from './memory-failure.js';
import { runBackwardSlice, runForward } from './jobs/run.js';
import { jobKinds } from './job-kinds.js';
import { isValidLocale } from '../pure/locale.js';

// A renderer loads a locale's number and date formats once, for all its threads: the first
// Intl.NumberFormat costs 15–55 ms (more on a phone). Made here while the page is still parsing,
// the page's charts find the formats loaded instead of blocking the reader's thread for them. A
// language Intl rejects ('C' under a C locale) is read as English, as the charts read it.
if (typeof Intl === 'object' && typeof navigator === 'object') {
  new Intl.NumberFormat(isValidLocale(navigator.language) ? navigator.language : 'en');
  new Intl.DateTimeFormat().resolvedOptions();
}

const SLICE_MS = 20;
// A pending backward is worked on in short slices: a newer run waits at most one for its forward.
const BACKWARD_SLICE_MS = 4;
let engine = null;
const runs = new Map(); // session → latest { id, cfg } not yet computed
let backward = null; // the engine's pending backward (jobs/run.js runForward), or null
const jobs = new Map(); // `${session}:${kind}:${part}` → { session, id, kind, urgent, next(), dispose() }
const ordered = []; // requests of the ordered kinds, oldest first
const handlers = new Map(); // ordered kind → its handler (made on first use)
const pending = []; // requests that came before the engine was ready
let scheduled = false;
const post = (...args) => self.postMessage(...args);

const yieldChannel = new MessageChannel();
yieldChannel.port1.onmessage = () => {
  scheduled = false;
  step();
};
function schedule() {
  if (scheduled || !engine) return;
  scheduled = true;
  yieldChannel.port2.postMessage(0);
}

function errorOut(session, id, kind, err, cfg) {
  const memory = isMemoryFailure(err);
  self.postMessage({
    type: 'error',
    session,
    id,
    kind,
    name: err?.name ?? 'Error',
    message: String(err?.message ?? err),
    memory,
    cfg,
  });
  if (isModuleAbort(err)) restartEngine();
}

const kinds = jobKinds({
  replay: (m) => self.onmessage({ data: m }),
  fail: (m, err) => errorOut(m.session, m.id, m.type, err),
});
/** A job's messages carry its kind (`job`), by which the client routes them. */
const postOf = (kind) => (msg, transfer) => self.postMessage({ ...msg, job: kind }, transfer);

let jobSeq = 0;
const startJob = (m, entry) => ({
  session: m.session,
  id: m.id,
  kind: m.type,
  urgent: !!entry.urgent,
  seq: ++jobSeq,
  ...entry.start(engine, m, postOf(m.type), SLICE_MS),
});

/** Drops the jobs whose key starts with `prefix`, freeing what they hold in the engine. */
function dropJobs(prefix) {
  for (const [key, job] of jobs) {
    if (!key.startsWith(prefix)) continue;
    jobs.delete(key);
    try {
      job.dispose();
    } catch {
      /* a job of an engine that was restarted */
    }
  }
}

/** Takes a job request: its kind's module may still load, an ordered kind's waits its turn. */
function receiveJob(m) {
  const entry = kinds.entry(m);
  if (!entry) return; // replayed once its module has loaded
  if (entry.ordered) {
    if (!handlers.has(m.type))
      handlers.set(
        m.type,
        entry.ordered(() => engine, postOf(m.type)),
      );
    ordered.push(m);
    return;
  }
  const key = `${m.session}:${m.type}:${m.part ?? 0}`;
  dropJobs(key);
  try {
    jobs.set(key, startJob(m, entry));
  } catch (err) {
    errorOut(m.session, m.id, m.type, err);
  }
}

/** Everything of `session` (of `kind` only, when given): its jobs, its waiting requests. */
function forgetSession(session, kind) {
  dropJobs(kind === undefined ? `${session}:` : `${session}:${kind}:`);
  kinds.forget(session, kind);
  const drop = (list) => {
    for (let i = list.length - 1; i >= 0; i--)
      if (list[i].session === session && (kind === undefined || list[i].type === kind)) list.splice(i, 1);
  };
  drop(pending);
  drop(ordered);
}

/** A slice of the pending backward (all of it when `whole`); its failure is the run's. */
function backwardSlice(whole) {
  const b = backward;
  try {
    if (runBackwardSlice(engine, b, post, whole ? Infinity : BACKWARD_SLICE_MS)) backward = null;
  } catch (err) {
    backward = null;
    errorOut(b.session, b.id, 'gradients', err, b.cfg);
  }
}

function step() {
  // 1. The latest single run of each session (oldest session first): its forward. The engine
  // holds one pending backward: another session's is finished first, the same session's is stale.
  const [session, req] = runs.entries().next().value ?? [];
  if (req) {
    if (backward && backward.session !== session) backwardSlice(true);
    runs.delete(session);
    backward = null;
    try {
      backward = runForward(engine, req, post);
    } catch (err) {
      errorOut(session, req.id, 'run', err, req.cfg);
    }
    schedule();
    return;
  }
  // 1b. The backward of the run just posted, before any other work, once its forward is shown.
  if (backward) {
    if (!backward.shown) return; // ('runShown' schedules the next step)
    backwardSlice(false);
    schedule();
    return;
  }
  // 2. One request of an ordered kind (the training panel's), in the order they came.
  if (ordered.length) {
    const m = ordered.shift();
    try {
      handlers.get(m.type).handle(m);
    } catch (err) {
      errorOut(m.session, m.id, m.type, err);
    }
    schedule();
    return;
  }
  // 3. One slice of one background job, jobs taken in turn; a sweep's estimates first (they draw
  // every sweep chart at once), then the sweeps and the urgent jobs that follow the reader's current
  // setting, and the other jobs (chapter 8's fixed studies, a table) when none is left (they would otherwise halve
  // the speed of the charts the reader is looking at).
  // A session's sweep tasks (a Worker may hold two estimates: sweep-tasks.js) run one after the
  // other, the oldest first, so that their memory is not held at once.
  const rankOf = (job) => (job.estimate ? 2 : job.urgent ? 1 : 0);
  let next = null;
  for (const entry of jobs) if (!next || rankOf(entry[1]) > rankOf(next[1])) next = entry;
  if (next?.[1].kind === 'sweep')
    for (const entry of jobs) {
      const [, job] = entry;
      if (job.kind === 'sweep' && job.session === next[1].session && rankOf(job) === rankOf(next[1]))
        if (job.seq < next[1].seq) next = entry;
    }
  if (next) {
    const [key, job] = next;
    jobs.delete(key);
    let more = false;
    try {
      more = job.next();
    } catch (err) {
      errorOut(job.session, job.id, job.kind, err);
    }
    if (more)
      jobs.set(key, job); // re-insert at the end: round-robin between jobs
    else if (engine) {
      try {
        job.dispose();
      } catch {
        /* already freed */
      }
    }
    schedule();
    return;
  }
}

self.onmessage = (e) => {
  const m = e.data;
  if (!m || typeof m !== 'object') return;
  switch (m.type) {
    case 'run':
      runs.set(m.session, m);
      break;
    case 'cancel':
      forgetSession(m.session, m.kind);
      break;
    case 'prepare':
      for (const kind of m.kinds ?? []) kinds.prepare(kind);
      return;
    case 'runShown':
      if (backward?.session === m.session && backward.id === m.id) backward.shown = true;
      break;
    case 'close':
      runs.delete(m.session);
      if (backward?.session === m.session) backward = null;
      forgetSession(m.session);
      for (const handler of handlers.values()) handler.close(m.session);
      break;
    default:
      if (!kinds.has(m.type)) return;
      if (!engine) {
        pending.push(m);
        return;
      }
      receiveJob(m);
  }
  schedule();
};

function boot() {
  return createEngine().then((e) => {
    engine = e;
    for (const m of pending.splice(0)) self.onmessage({ data: m });
    schedule();
    return e;
  });
}

/**
 * After the module aborted (a failed allocation), its heap and stack cannot be trusted: start a
 * fresh engine. The jobs and ordered requests (trainers) of the old one are gone; their sessions are told.
 */
function restartEngine() {
  if (!engine) return;
  engine = null;
  backward = null;
  for (const [key, job] of jobs) {
    jobs.delete(key);
    self.postMessage({
      type: 'error',
      session: job.session,
      id: job.id,
      kind: job.kind,
      name: 'Error',
      memory: true,
      message: 'the engine ran out of memory and was restarted, which stopped this computation',
    });
  }
  for (const handler of handlers.values()) handler.clear();
  boot().catch((err) => self.postMessage({ type: 'fatal', message: String(err?.message ?? err) }));
}

boot().then(
  (e) => {
    // bootMs: Worker start → engine ready (fetch + compile + instantiate), for the budgets script.
    self.postMessage({
      type: 'ready',
      info: { ...e.info },
      schema: e.schema.map((f) => ({ ...f })),
      trainSchema: e.trainSchema,
      defaults: e.defaults(),
      bootMs: performance.now(),
    });
  },
  (err) => self.postMessage({ type: 'fatal', message: String(err?.message ?? err) }),
);
