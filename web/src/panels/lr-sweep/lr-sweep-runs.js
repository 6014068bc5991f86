// The runs of one learning-rate sweep: a training run per (rate, copy), dealt to the Workers one
// at a time by the session (session.deal: each Worker takes its next run when it reports the last
// one done), each a `part` of one 'lrSweep' job (lr-sweep-job.js), so a cancel stops them all. No DOM.

/**
 * createSweepRuns(client, { onProgress(run), onDone(run), onFinished(), onError(message) })
 * → { start(plan), cancel(), close(), runs, get running }. plan: { copies: [copy spec], rates,
 * steps, base: the trainer's config without copies and learningRate }. A run: { part, copy, rate,
 * step, loss: [], maxLogit: [], done, finalLoss, initialLoss, largestLogit, ms }.
 */
export function createSweepRuns(client, { onProgress, onDone, onFinished, onError }) {
  let runs = [];
  let running = false;

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
    onError(m) {
      if (m.kind !== 'lrSweep' || !running) return;
      cancel();
      onError(m.message);
    },
  });

  /** A run's last message: its figures; once every run is done, the sweep is. */
  function runDone(m) {
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
  }

  function cancel() {
    if (running) session?.cancel('lrSweep');
    running = false;
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
      runs = p.rates.flatMap((rate) =>
        p.copies.map((copy) => ({ copy, rate, step: 0, loss: [], maxLogit: [], done: false })),
      );
      runs.forEach((r, part) => (r.part = part));
      running = true;
      session.deal('lrSweep', runs, {
        message: (run) => ({
          cfg: { ...p.base, learningRate: run.rate, copies: [run.copy] },
          steps: p.steps,
        }),
        partDone: runDone,
        finished() {
          running = false;
          onFinished();
        },
      });
    },
    cancel,
    close() {
      cancel();
      session?.close();
    },
  };
}
