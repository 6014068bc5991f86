// The compute Worker: owns one engine instance; the page never computes on its thread (except in
// the main-thread fallback, main-thread-worker.js, which runs this same file).
//
// Protocol (all messages carry `session`, so several page instances can share this Worker):
//   in : { type: 'run',   session, id, cfg, sentAt }                → out 'run'
//        { type: 'sweep', session, id, cfg, dks, scales, part, sentAt }
//          → out 'sweepPoints'* { part, dk, points: { [scale]: point }, sentAt, startedAt }, then
//            'sweepDone' { part }. A page may split one sweep's d_k points into parts (one per
//            sweep Worker); each part is its own job, keyed by `part`.
//        { type: 'variants', session, id, cfg, variants }           → out 'variantPoint'*, 'variantsDone'
//        { type: 'thresholds', session, id, cfg, dks }               → out 'thresholdsCells'* { cells },
//          'thresholdsDone' (compute/thresholds.js, loaded on first use: the overflow thresholds)
//        { type: 'study', session, id, tasks }                      → out 'studyPoint'*, 'studyDone'
//          A fixed list of measurements (the chapter panels that do not follow the page's setting):
//          task { over: 'dk', cfg, xs, scales } (engine.sweepScalesJob) → { task, x, points };
//          task { over: 'seqLen', cfg, xs } (engine.sweepSeqLenPoints) → { task, x, point }.
//        { type: 'cancel', session, kind: 'sweep' | 'variants' | 'thresholds' | 'study' }
//          (every part of that kind)
//        { type: 'close', session }
//        { type: 'train', session, id, tag, op, … }                 → out 'train' (same id, op, tag)
//          op 'create' { cfg, attention? }: a new trainer (engine.train) replaces the session's one
//          op 'step' { n, attention? }: n steps of every copy → { step, copies, ms, total }
//          op 'reset' { attention? } | 'attention' | 'delete'
//          (attention: true adds { attention: { copy: Float32Array(T²) } } of the fixed example)
//   out: { type: 'ready', info, schema, trainSchema, defaults } once, or { type: 'fatal', message }
//        { type: 'error', session, id, kind, name, message, memory, cfg? } — `memory`: the engine
//        could not get the memory this request needs (the page keeps its last good charts and
//        says so); `cfg`: the config of a failed run.
// Scheduling: a single-run request always goes first (the current setting reaches the screen
// fast); a sweep advances in slices of about SLICE_MS (engine.sweepScalesJob keeps its work
// between slices) and a variants job one run at a time, yielding to the event loop in between, so
// a cancel or a newer request is seen within one slice. Typed arrays are transferred, not copied.
import { createEngine } from '../engine/engine.js';
// `self` is the Worker's global scope, or its stand-in on the page's thread (main-thread-worker.js).
import { workerSelf as self } from './worker-scope.js';
import { downsampleAttention } from '../panels/heatmap/heatmap-job.js';
import { isMemoryFailure, isModuleAbort } from './memory-failure.js';

const HEATMAP_SIDE = 256;
const SLICE_MS = 20;
let engine = null;
const runs = new Map(); // session → latest { id, cfg } not yet computed
const URGENT = new Set(['sweep', 'variants']); // job kinds that follow the page's current setting
const jobs = new Map(); // `${session}:${kind}:${part}` → { session, id, kind, next(), dispose() }
const pending = []; // requests that came before the engine was ready
let scheduled = false;

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
  self.postMessage({ type: 'error', session, id, kind, name: err?.name ?? 'Error', message: String(err?.message ?? err), memory, cfg });
  if (isModuleAbort(err)) restartEngine();
}

/** Plain scalars of a run result (numbers, strings, null) plus the nonFinite counts. */
function scalarsOf(r) {
  const out = {};
  for (const [k, v] of Object.entries(r)) {
    if (v === null || typeof v === 'number' || typeof v === 'string' || typeof v === 'boolean') out[k] = v;
  }
  if (r.nonFinite) out.nonFinite = { ...r.nonFinite };
  return out;
}

const epoch = () => performance.timeOrigin + performance.now();

function doRun({ session, id, cfg, sentAt }) {
  const t0 = performance.now();
  const startedAt = epoch();
  const r = engine.run(cfg);
  const T = cfg.seqLen ?? engine.defaults().seqLen;
  // The engine's arrays are the Worker's own copies: they move to the page (transfer), never copied.
  const heat = downsampleAttention(r.attention, T, HEATMAP_SIDE);
  const result = {
    ...scalarsOf(r),
    histogram: r.histogram,
    rawHistogram: r.rawHistogram,
    rowEntropy: r.rowEntropy,
    rowMaxWeight: r.rowMaxWeight,
    rowJacobianNorm: r.rowJacobianNorm,
    heatmap: heat,
    workerMs: performance.now() - t0,
    // Epoch timestamps (ms) of the request's trip, for the budgets script.
    timing: { sentAt, startedAt, postedAt: epoch() },
  };
  const transfer = [...new Set([
    r.histogram.edges.buffer, r.histogram.counts.buffer, r.rawHistogram.edges.buffer, r.rawHistogram.counts.buffer,
    r.rowEntropy.buffer, r.rowMaxWeight.buffer, r.rowJacobianNorm.buffer, heat.data.buffer,
  ])];
  self.postMessage({ type: 'run', session, id, cfg, result }, transfer);
}

function sweepJob({ session, id, cfg, dks, scales, part = 0, sentAt }) {
  // One job for every scaling: the inputs are sampled and QKᵀ, GVᵀ accumulated once.
  const job = engine.sweepScalesJob(cfg, dks, scales);
  const startedAt = epoch();
  return {
    session, id, kind: 'sweep',
    next() {
      const { done, value } = job.advance(SLICE_MS);
      if (value) self.postMessage({ type: 'sweepPoints', session, id, part, dk: value.dk, points: value.points, sentAt, startedAt });
      if (done) self.postMessage({ type: 'sweepDone', session, id, part });
      return !done;
    },
    dispose: () => job.delete(),
  };
}

function variantsJob({ session, id, cfg, variants }) {
  let i = 0;
  return {
    session, id, kind: 'variants',
    next() {
      if (i >= variants.length) {
        self.postMessage({ type: 'variantsDone', session, id });
        return false;
      }
      const index = i++;
      const r = engine.run({ ...cfg, ...variants[index] });
      self.postMessage({ type: 'variantPoint', session, id, index, point: scalarsOf(r) });
      return true;
    },
    dispose() {},
  };
}

// The thresholds job's code is fetched the first time it is asked for (a chunk of its own).
let thresholdsModule = null;
const latestThresholds = new Map(); // session → id of the thresholds request still wanted
const thresholdsJob = (m) => ({ session: m.session, id: m.id, kind: 'thresholds', ...thresholdsModule.workerJob(engine, m, (out) => self.postMessage(out), SLICE_MS) });

function studyJob({ session, id, tasks }) {
  let t = 0;
  let current = null; // { advance() → { done, x?, points?/point? }, dispose() } of tasks[t]
  const open = (task) => {
    if (task.over === 'seqLen') {
      const it = engine.sweepSeqLenPoints(task.cfg, task.xs);
      return {
        advance() {
          const { done, value } = it.next();
          return done ? { done: true } : { done: false, x: value.seqLen, point: value };
        },
        dispose: () => it.return?.(),
      };
    }
    const job = engine.sweepScalesJob(task.cfg, task.xs, task.scales);
    return {
      advance() {
        const { done, value } = job.advance(SLICE_MS);
        return done ? { done: true } : value ? { done: false, x: value.dk, points: value.points } : { done: false };
      },
      dispose: () => job.delete(),
    };
  };
  return {
    session, id, kind: 'study',
    next() {
      if (t >= tasks.length) {
        self.postMessage({ type: 'studyDone', session, id });
        return false;
      }
      current ??= open(tasks[t]);
      const step = current.advance();
      if (step.done) {
        current.dispose();
        current = null;
        t += 1;
      } else if (step.x !== undefined) {
        self.postMessage({ type: 'studyPoint', session, id, task: t, x: step.x, points: step.points, point: step.point });
      }
      return true;
    },
    dispose() { current?.dispose(); current = null; },
  };
}

/** Drops the jobs whose key starts with `prefix`, freeing what they hold in the engine. */
function dropJobs(prefix) {
  for (const [key, job] of jobs) {
    if (!key.startsWith(prefix)) continue;
    jobs.delete(key);
    try { job.dispose(); } catch { /* a job of an engine that was restarted */ }
  }
}

// Training (the training panel; see web/src/panels/training.js). Requests are kept in order: a
// step after a reset must run after it. The page normally gives training its own Worker.
const trainers = new Map(); // session → Trainer
const trainQueue = [];

function attentionOf(trainer) {
  const names = trainer.config.copies?.map((c) => c.name)
    ?? ['none', 'sqrt', 'linear', ...(typeof trainer.config.scale === 'number' ? ['custom'] : [])];
  return Object.fromEntries(names.map((c) => [c, trainer.attention(c)]));
}

function doTrain(m) {
  const { session, id, tag, op } = m;
  if (op === 'create') {
    trainers.get(session)?.delete();
    trainers.delete(session);
    trainers.set(session, engine.train(m.cfg));
  } else if (op === 'delete') {
    trainers.get(session)?.delete();
    trainers.delete(session);
    return;
  }
  const t = trainers.get(session);
  if (!t) throw new Error('no trainer for this session (create one first)');
  const out = { type: 'train', session, id, tag, op, config: t.config };
  const transfer = [];
  if (op === 'step') {
    const t0 = performance.now();
    const r = t.step(m.n);
    out.ms = performance.now() - t0;
    out.step = r.step;
    out.copies = r.copies;
    transfer.push(r.step.buffer);
    for (const c of Object.values(r.copies)) for (const a of Object.values(c)) transfer.push(a.buffer);
  } else if (op === 'reset') {
    t.reset();
  } else if (op !== 'attention' && op !== 'create') {
    throw new Error(`unknown training op ${op}`);
  }
  out.total = t.steps;
  if (m.attention || op === 'attention') {
    out.attention = attentionOf(t);
    for (const a of Object.values(out.attention)) transfer.push(a.buffer);
  }
  self.postMessage(out, transfer);
}

function step() {
  // 1. The latest single run of each session (oldest session first).
  for (const [session, req] of runs) {
    runs.delete(session);
    try { doRun(req); } catch (err) { errorOut(session, req.id, 'run', err, req.cfg); }
    schedule();
    return;
  }
  // 2. One training request (in order).
  if (trainQueue.length) {
    const m = trainQueue.shift();
    try { doTrain(m); } catch (err) { errorOut(m.session, m.id, 'train', err); }
    schedule();
    return;
  }
  // 3. One slice of one background job, jobs taken in turn; the sweeps and variants of the reader's
  // current setting first, chapter 8's fixed studies and thresholds table when none is left (they
  // would otherwise halve the speed of the charts the reader is looking at).
  let next = null;
  for (const entry of jobs) if (URGENT.has(entry[1].kind)) { next = entry; break; }
  next ??= jobs.entries().next().value;
  if (next) {
    const [key, job] = next;
    jobs.delete(key);
    let more = false;
    try { more = job.next(); } catch (err) { errorOut(job.session, job.id, job.kind, err); }
    if (more) jobs.set(key, job); // re-insert at the end: round-robin between jobs
    else if (engine) { try { job.dispose(); } catch { /* already freed */ } }
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
    case 'thresholds':
      latestThresholds.set(m.session, m.id);
      if (!thresholdsModule) {
        import('../panels/thresholds/thresholds-job.js').then((mod) => {
          thresholdsModule = mod;
          if (latestThresholds.get(m.session) === m.id) self.onmessage({ data: m });
        }, (err) => errorOut(m.session, m.id, 'thresholds', err));
        return;
      }
    // falls through
    case 'sweep':
    case 'variants':
    case 'study': {
      if (!engine) { pending.push(m); return; }
      const key = `${m.session}:${m.type}:${m.part ?? 0}`;
      dropJobs(key);
      try {
        jobs.set(key, { sweep: sweepJob, variants: variantsJob, thresholds: thresholdsJob, study: studyJob }[m.type](m));
      } catch (err) { errorOut(m.session, m.id, m.type, err); }
      break;
    }
    case 'cancel':
      if (m.kind === 'thresholds') latestThresholds.delete(m.session);
      dropJobs(`${m.session}:${m.kind}:`);
      for (let i = pending.length - 1; i >= 0; i--) if (pending[i].session === m.session && pending[i].type === m.kind) pending.splice(i, 1);
      break;
    case 'train':
      if (!engine) { pending.push(m); return; }
      trainQueue.push(m);
      break;
    case 'close':
      runs.delete(m.session);
      latestThresholds.delete(m.session);
      dropJobs(`${m.session}:`);
      for (let i = trainQueue.length - 1; i >= 0; i--) if (trainQueue[i].session === m.session) trainQueue.splice(i, 1);
      for (let i = pending.length - 1; i >= 0; i--) if (pending[i].session === m.session) pending.splice(i, 1);
      trainers.get(m.session)?.delete();
      trainers.delete(m.session);
      break;
    default:
      return;
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
 * fresh engine. The jobs and trainers of the old one are gone; their sessions are told.
 */
function restartEngine() {
  if (!engine) return;
  engine = null;
  for (const [key, job] of jobs) {
    jobs.delete(key);
    self.postMessage({ type: 'error', session: job.session, id: job.id, kind: job.kind, name: 'Error', memory: true,
      message: 'the engine ran out of memory and was restarted, which stopped this computation' });
  }
  trainers.clear();
  boot().catch((err) => self.postMessage({ type: 'fatal', message: String(err?.message ?? err) }));
}

boot().then(
  (e) => {
    // bootMs: Worker start → engine ready (fetch + compile + instantiate), for the budgets script.
    self.postMessage({ type: 'ready', info: { ...e.info }, schema: e.schema.map((f) => ({ ...f })), trainSchema: e.trainSchema, defaults: e.defaults(), bootMs: performance.now() });
  },
  (err) => self.postMessage({ type: 'fatal', message: String(err?.message ?? err) }),
);
