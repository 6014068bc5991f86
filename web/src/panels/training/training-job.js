// The training panel's Worker side: one trainer (engine.train) per session, driven by 'train'
// requests in order (a step after a reset must run after it). Its arrays are transferred.

/** The trainers of one engine: { handle(m), close(session), clear() }. */
function createTrainers(getEngine, post) {
  const trainers = new Map(); // session → Trainer

  /**
   * { copy: trainer[method](copy) } for every copy the trainer trains ('attention' or 'qk'): the
   * chosen ones, or the training schema's default copies (and 'custom' for a custom multiplier).
   */
  function perCopy(trainer, method) {
    const { copies, scale } = trainer.config;
    const defaults = () => getEngine().trainSchema.find((f) => f.name === 'copies').default;
    const names = copies?.map((c) => c.name) ?? [
      ...defaults(),
      ...(typeof scale === 'number' ? ['custom'] : []),
    ];
    return Object.fromEntries(names.map((c) => [c, trainer[method](c)]));
  }

  function close(session) {
    trainers.get(session)?.delete();
    trainers.delete(session);
  }

  /** Carries out one request: op 'create' | 'step' | 'reset' | 'attention' | 'qk' | 'delete'. */
  function handle(m) {
    const { session, id, tag, op } = m;
    if (op === 'create') {
      close(session);
      trainers.set(session, getEngine().train(m.cfg));
    } else if (op === 'delete') {
      close(session);
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
    } else if (op === 'qk') {
      out.qk = perCopy(t, 'qk');
      for (const { q, k } of Object.values(out.qk)) transfer.push(q.buffer, k.buffer);
    } else if (op !== 'attention' && op !== 'create') {
      throw new Error(`unknown training op ${op}`);
    }
    out.total = t.steps;
    if (m.attention || op === 'attention') {
      out.attention = perCopy(t, 'attention');
      for (const a of Object.values(out.attention)) transfer.push(a.buffer);
    }
    post(out, transfer);
  }

  return { handle, close, clear: () => trainers.clear() };
}

/**
 * { type: 'train', session, id, tag, op, … } → 'train' (same id, op, tag); the requests of a
 * session are carried out in the order they came (`ordered`: compute/worker.js keeps a queue).
 *   op 'create' { cfg, attention? }: a new trainer (engine.train) replaces the session's one
 *   op 'step' { n, attention? }: n steps of every copy → { step, copies, ms, total }
 *   op 'reset' { attention? } | 'attention' | 'delete'
 *   op 'qk': { qk: { copy: trainer.qk(copy) } }, the q and k of every copy
 *   (attention: true adds { attention: { copy: Float32Array(T²) } } of the fixed example)
 */
export const workerJobs = { train: { ordered: createTrainers } };
