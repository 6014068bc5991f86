// The LR sweep's Worker job (web/src/panels/lr-sweep/lr-sweep-job.js) called directly with a Node
// engine, as compute/worker.js calls it: its messages, that its curves are the trainer's own bits,
// its final loss, and its errors.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { bothEngines } from '../../helpers.js';
import { workerJobs } from '../../../../web/src/panels/lr-sweep/lr-sweep-job.js';
import { finalLoss } from '../../../../web/src/panels/lr-sweep/lr-sensitivity.js';

const COPY = { name: 'layer_sqrt', scale: 'sqrt', qkNorm: 'layer' };
const CFG = { dk: 16, seqLen: 8, batchSize: 4, learningRate: 3e-2, copies: [COPY] };

/** Runs a job to its end: its messages and how many next() calls it took. */
function runJob(engine, m, sliceMs) {
  const messages = [];
  const job = workerJobs.lrSweep(engine, m, (msg, transfer) => messages.push({ msg, transfer }), sliceMs);
  let calls = 0;
  try {
    while (job.next()) calls++;
  } finally {
    job.dispose();
  }
  return { messages, calls: calls + 1 };
}

const concat = (arrays) => Float64Array.from(arrays.flatMap((a) => [...a]));

test('lrSweep: progress slices then one done message, the trainer’s own bits', async () => {
  const { simd, scalar } = await bothEngines();
  const steps = 60;
  for (const engine of [simd, scalar]) {
    const { messages, calls } = runJob(
      engine,
      { type: 'lrSweep', session: 's', id: 4, part: 2, cfg: CFG, steps },
      1,
    );
    const progress = messages.filter((x) => x.msg.type === 'lrSweepProgress').map((x) => x.msg);
    const done = messages.at(-1).msg;
    assert.equal(done.type, 'lrSweepDone');
    assert.equal(messages.length, progress.length + 1);
    assert.equal(calls, progress.length);
    let step = 0;
    for (const p of progress) {
      assert.deepEqual([p.session, p.id, p.part], ['s', 4, 2]);
      assert.ok(p.loss instanceof Float64Array && p.maxLogit instanceof Float64Array);
      assert.equal(p.loss.length, p.step - step);
      assert.equal(p.maxLogit.length, p.loss.length);
      step = p.step;
    }
    assert.equal(step, steps);
    for (const { msg, transfer } of messages.slice(0, -1))
      assert.deepEqual(transfer, [msg.loss.buffer, msg.maxLogit.buffer], 'the arrays are transferred');
    // the same run straight from the trainer: warmup-cosine over `steps`, the same bits
    const t = engine.train({ ...CFG, schedule: 'warmup-cosine', scheduleSteps: steps });
    const want = t.step(steps).copies[COPY.name];
    t.delete();
    const loss = concat(progress.map((p) => p.loss));
    assert.deepEqual(loss, want.loss);
    assert.deepEqual(concat(progress.map((p) => p.maxLogit)), want.maxLogit);
    assert.deepEqual(
      [done.session, done.id, done.part, done.copy, done.learningRate, done.steps],
      ['s', 4, 2, COPY.name, 3e-2, steps],
    );
    assert.equal(done.initialLoss, want.loss[0]);
    assert.ok(Math.abs(done.finalLoss - finalLoss(want.loss)) < 1e-15);
    assert.equal(done.largestLogit, Math.max(...want.maxLogit));
    assert.ok(done.ms > 0);
  }
});

test('lrSweep: slices grow to fill sliceMs; a given schedule is kept', async () => {
  const { simd } = await bothEngines();
  const m = { type: 'lrSweep', session: 's', id: 1, part: 0, cfg: CFG, steps: 400 };
  const long = runJob(simd, m, 200).messages.length;
  const short = runJob(simd, m, 0.01).messages.length;
  assert.ok(long < short, `${long} slices of 200 ms, ${short} of 0.01 ms`);
  assert.equal(short, 401, 'at least one step a slice');
  const constant = { ...m, steps: 30, cfg: { ...CFG, schedule: 'constant' } };
  const got = concat(
    runJob(simd, constant, 5)
      .messages.slice(0, -1)
      .map((x) => x.msg.loss),
  );
  const t = simd.train({ ...CFG });
  assert.deepEqual(got, t.step(30).copies[COPY.name].loss);
  t.delete();
});

test('lrSweep: bad requests throw errors naming the field and its range', async () => {
  const { simd } = await bothEngines();
  const start = (over) =>
    workerJobs.lrSweep(
      simd,
      { type: 'lrSweep', session: 's', id: 1, part: 0, cfg: CFG, steps: 10, ...over },
      () => {},
    );
  for (const [over, type, re] of [
    [
      { cfg: { ...CFG, learningRate: 30 } },
      RangeError,
      /learningRate must be a finite number in \[.*10\], got 30/,
    ],
    [{ cfg: { ...CFG, learningRate: 0 } }, RangeError, /learningRate must be a finite number/],
    [{ cfg: { ...CFG, copies: undefined } }, RangeError, /cfg\.copies must list exactly one copy, got none/],
    [{ cfg: { ...CFG, copies: [COPY, { ...COPY, name: 'b' }] } }, RangeError, /exactly one copy, got 2/],
    [{ cfg: null }, TypeError, /cfg must be a training config object/],
    [{ steps: 0 }, RangeError, /steps must be an integer in \[1, 1000000\], got 0/],
    [{ steps: 2.5 }, RangeError, /steps must be an integer/],
    [{ cfg: { ...CFG, scheduleSteps: 0 } }, RangeError, /scheduleSteps must be an integer in \[1, 1000000\]/],
  ]) {
    assert.throws(
      () => start(over),
      (e) => e instanceof type && re.test(e.message),
      JSON.stringify(over),
    );
  }
});
