// The compute Worker: owns the one engine instance; the page never computes on its thread.
//
// Protocol (all messages carry `session`, so several page instances can share this Worker):
//   in : { type: 'run',   session, id, cfg }                       → out 'run'
//        { type: 'sweep', session, id, cfg, dks, scales }          → out 'sweepPoint'*, 'sweepDone'
//        { type: 'variants', session, id, cfg, variants }          → out 'variantPoint'*, 'variantsDone'
//        { type: 'cancel', session, kind: 'sweep' | 'variants' }
//        { type: 'close', session }
//        { type: 'train', session, id, tag, op, … }                → out 'train' (same id, op, tag)
//          op 'create' { cfg, attention? }: a new trainer (engine.train) replaces the session's one
//          op 'step' { n, attention? }: n steps of every copy → { step, copies, ms, total }
//          op 'reset' { attention? } | 'attention' | 'delete'
//          (attention: true adds { attention: { copy: Float32Array(T²) } } of the fixed example)
//   out: { type: 'ready', info, schema, trainSchema, defaults } once, or { type: 'fatal', message }
//        { type: 'error', session, id, kind, name, message }
// Scheduling: a single-run request always goes first (the current setting reaches the screen
// fast); background jobs (sweeps, variants) advance one point at a time and yield to the event
// loop between points, so a newer request replaces them without waiting for the whole job.
import { createEngine } from './engine.js';
// `self` is the Worker's global scope, or its stand-in on the page's thread (main-thread-worker.js).
import { workerSelf as self } from './worker-scope.js';
import { downsampleAttention } from './compute/heatmap.js';

const HEATMAP_SIDE = 256;
let engine = null;
const runs = new Map(); // session → latest { id, cfg } not yet computed
const jobs = new Map(); // `${session}:${kind}` → { session, id, kind, next() }
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

function errorOut(session, id, kind, err) {
  self.postMessage({ type: 'error', session, id, kind, name: err?.name ?? 'Error', message: String(err?.message ?? err) });
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
  const heat = downsampleAttention(r.attention, T, HEATMAP_SIDE);
  const result = {
    ...scalarsOf(r),
    histogram: { edges: Float64Array.from(r.histogram.edges), counts: Uint32Array.from(r.histogram.counts) },
    rawHistogram: { edges: Float64Array.from(r.rawHistogram.edges), counts: Uint32Array.from(r.rawHistogram.counts) },
    rowEntropy: Float32Array.from(r.rowEntropy),
    rowMaxWeight: Float32Array.from(r.rowMaxWeight),
    rowJacobianNorm: Float32Array.from(r.rowJacobianNorm),
    heatmap: heat,
    workerMs: performance.now() - t0,
    // Epoch timestamps (ms) of the request's trip, for the budgets script.
    timing: { sentAt, startedAt, postedAt: epoch() },
  };
  const transfer = [
    result.histogram.edges.buffer, result.histogram.counts.buffer, result.rawHistogram.edges.buffer,
    result.rawHistogram.counts.buffer, result.rowEntropy.buffer, result.rowMaxWeight.buffer,
    result.rowJacobianNorm.buffer, heat.data.buffer,
  ];
  self.postMessage({ type: 'run', session, id, cfg, result }, transfer);
}

function sweepJob({ session, id, cfg, dks, scales }) {
  // One generator per scaling, advanced round-robin so the curves grow side by side.
  const gens = scales.map((scale) => ({ scale, it: engine.sweepPoints({ ...cfg, scale }, dks), done: false }));
  let turn = 0;
  return {
    session, id, kind: 'sweep',
    next() {
      for (let tries = 0; tries < gens.length; tries++) {
        const g = gens[turn];
        turn = (turn + 1) % gens.length;
        if (g.done) continue;
        const { value, done } = g.it.next();
        if (done) { g.done = true; continue; }
        self.postMessage({ type: 'sweepPoint', session, id, scale: g.scale, point: value });
        return true;
      }
      self.postMessage({ type: 'sweepDone', session, id });
      return false;
    },
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
  };
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
    try { doRun(req); } catch (err) { errorOut(session, req.id, 'run', err); }
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
  // 3. One point of one background job, jobs taken in turn.
  for (const [key, job] of jobs) {
    jobs.delete(key);
    let more = false;
    try { more = job.next(); } catch (err) { errorOut(job.session, job.id, job.kind, err); }
    if (more) jobs.set(key, job); // re-insert at the end: round-robin between jobs
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
    case 'sweep':
    case 'variants':
      if (!engine) { pending.push(m); return; }
      try {
        jobs.set(`${m.session}:${m.type}`, m.type === 'sweep' ? sweepJob(m) : variantsJob(m));
      } catch (err) { errorOut(m.session, m.id, m.type, err); }
      break;
    case 'cancel':
      jobs.delete(`${m.session}:${m.kind}`);
      break;
    case 'train':
      if (!engine) { pending.push(m); return; }
      trainQueue.push(m);
      break;
    case 'close':
      runs.delete(m.session);
      for (const key of [...jobs.keys()]) if (key.startsWith(`${m.session}:`)) jobs.delete(key);
      for (let i = trainQueue.length - 1; i >= 0; i--) if (trainQueue[i].session === m.session) trainQueue.splice(i, 1);
      trainers.get(m.session)?.delete();
      trainers.delete(m.session);
      break;
    default:
      return;
  }
  schedule();
};

const pending = [];
createEngine().then(
  (e) => {
    engine = e;
    // bootMs: Worker start → engine ready (fetch + compile + instantiate), for the budgets script.
    self.postMessage({ type: 'ready', info: { ...e.info }, schema: e.schema.map((f) => ({ ...f })), trainSchema: e.trainSchema, defaults: e.defaults(), bootMs: performance.now() });
    for (const m of pending.splice(0)) self.onmessage({ data: m });
    schedule();
  },
  (err) => self.postMessage({ type: 'fatal', message: String(err?.message ?? err) }),
);
