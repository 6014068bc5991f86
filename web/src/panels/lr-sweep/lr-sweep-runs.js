// The runs of one learning-rate sweep: a training run per (rate, copy), dealt to the Workers one
// at a time (session.slots of them: each Worker takes its next run when it reports the last one
// done), each a `part` of one 'lrSweep' job (lr-sweep-job.js), so a cancel stops them all. No DOM.

/**
 * createSweepRuns(client, { onProgress(run), onDone(run), onFinished(), onError(message) })
 * → { start(plan), cancel(), close(), runs, get running }. plan: { copies: [copy spec], rates,
 * steps, base: the trainer's config without copies and learningRate }. A run: { part, copy, rate,
 * step, loss: [], maxLogit: [], done, finalLoss, initialLoss, largestLogit, ms }.
 */
export function createSweepRuns(client, { onProgress, onDone, onFinished, onError }) {
  let runs = [];
  let queue = [];
  let plan = null;
  let running = false;
  const slotOf = new Map(); // part → the slot computing it

  const session = client?.openSession({
    lrSweepProgress(m) {
      const run = runs[m.part];
      if (!run) return;
      for (let i = 0; i < m.loss.length; i++) {
        run.loss.push(m.loss[i]);
        run.maxLogit.push(m.maxLogit[i]);
      }
      run.step = m.step;
      onProgress(run);
    },
    lrSweepDone(m) {
      const run = runs[m.part];
      if (!run) return;
      Object.assign(run, {
        done: true,
        finalLoss: m.finalLoss,
        initialLoss: m.initialLoss,
        largestLogit: m.largestLogit,
        ms: m.ms,
      });
      onDone(run);
      const slot = slotOf.get(m.part);
      slotOf.delete(m.part);
      if (runs.every((r) => r.done)) {
        running = false;
        onFinished();
      } else send(slot);
    },
    onError(m) {
      if (m.kind !== 'lrSweep' || !running) return;
      cancel();
      onError(m.message);
    },
  });

  function send(slot) {
    const run = queue.shift();
    if (!run) return;
    slotOf.set(run.part, slot);
    const cfg = { ...plan.base, learningRate: run.rate, copies: [run.copy] };
    session.post('lrSweep', { part: run.part, cfg, steps: plan.steps }, { slot });
  }

  function cancel() {
    if (running) session?.cancel('lrSweep');
    running = false;
    queue = [];
    slotOf.clear();
  }

  return {
    get runs() {
      return runs;
    },
    get running() {
      return running;
    },
    /** Starts a sweep (the last one stops): every rate with every copy, the small rates first. */
    start(p) {
      if (!session) throw new Error('no compute engine to train with');
      cancel();
      plan = p;
      runs = p.rates.flatMap((rate) =>
        p.copies.map((copy) => ({ copy, rate, step: 0, loss: [], maxLogit: [], done: false })),
      );
      runs.forEach((r, part) => (r.part = part));
      queue = [...runs];
      running = true;
      session.start('lrSweep');
      for (let slot = 0; slot < session.slots; slot++) send(slot);
    },
    cancel,
    close() {
      cancel();
      session?.close();
    },
  };
}
