// The learning-rate sweep's Worker job: one training run of one copy at one learning rate, the
// unit a page deals to its Workers (one `part` per rate and copy). It trains in slices of about
// `sliceMs` (one trainer.step call each), so a cancel or a newer request is seen between them.
//
// In:  { type: 'lrSweep', session, id, part, cfg, steps }
//   cfg    an engine.train config with exactly one copy (`copies: [spec]`) and its learningRate;
//          `schedule` and `scheduleSteps` default to 'warmup-cosine' and `steps` (the paper's
//          shape, scaled to the run). Anything the trainer refuses throws engine.train's error,
//          which names the field and its range (a learningRate outside [1e-6, 10] included): the
//          Worker reports it as { type: 'error', … }.
//   steps  the run's length, an integer in [1, 1000000].
// Out, in this order (each also carries `job: 'lrSweep'`, added by the Worker):
//   { type: 'lrSweepProgress', session, id, part, step, loss, maxLogit }   one per slice
//       step: the steps done so far; loss, maxLogit: Float64Array of the steps of this slice only,
//       steps step − loss.length + 1 … step (their buffers are transferred)
//   { type: 'lrSweepDone', session, id, part, copy, learningRate, steps, initialLoss, finalLoss,
//     largestLogit, ms }                                                    once, after the last
//       copy: the copy's name; initialLoss: the loss at step 1 (ℓ₀, measured before any update);
//       finalLoss: the mean loss of the last round(5 % of steps) steps, at least 1 (lr-sensitivity.js
//       finalLoss; not finite if the run diverged); largestLogit: the largest maxLogit of the run
//       (NaN once a logit was not finite); ms: the time spent training.
// lrSensitivity (lr-sensitivity.js) turns a grid's lrSweepDone messages into the paper's number.
import { finalWindow } from './lr-sensitivity.js';

const MAX_STEPS = 1000000;
const MAX_CALL = 10000; // trainer.step's largest n

function checkRequest(cfg, steps) {
  if (!Number.isInteger(steps) || steps < 1 || steps > MAX_STEPS)
    throw new RangeError(`steps must be an integer in [1, ${MAX_STEPS}], got ${steps}`);
  if (cfg === null || typeof cfg !== 'object') throw new TypeError('cfg must be a training config object');
  if (!Array.isArray(cfg.copies) || cfg.copies.length !== 1)
    throw new RangeError(
      `cfg.copies must list exactly one copy, got ${Array.isArray(cfg.copies) ? cfg.copies.length : 'none'}`,
    );
}

function lrSweepJob(engine, { session, id, part, cfg, steps }, post, sliceMs = 20) {
  checkRequest(cfg, steps);
  const trainer = engine.train({ schedule: 'warmup-cosine', scheduleSteps: steps, ...cfg });
  const copy = trainer.config.copies[0].name;
  const tailFrom = steps - finalWindow(steps) + 1; // first step of the final-loss window
  let done = 0;
  let msPerStep = 0; // measured; 0 until the first slice
  let ms = 0;
  let initialLoss = NaN;
  let tailSum = 0;
  let largestLogit = 0;

  function slice() {
    const fits = msPerStep > 0 ? Math.floor(sliceMs / msPerStep) : 1;
    const n = Math.min(steps - done, MAX_CALL, Math.max(1, fits));
    const t0 = performance.now();
    const r = trainer.step(n);
    const dt = performance.now() - t0;
    ms += dt;
    msPerStep = dt / n;
    const { loss, maxLogit } = r.copies[copy];
    if (done === 0) initialLoss = loss[0];
    for (let i = 0; i < n; i++) {
      if (done + i + 1 >= tailFrom) tailSum += loss[i];
      const m = maxLogit[i];
      largestLogit = Number.isNaN(largestLogit) || m <= largestLogit ? largestLogit : m;
    }
    done += n;
    post({ type: 'lrSweepProgress', session, id, part, step: done, loss, maxLogit }, [
      loss.buffer,
      maxLogit.buffer,
    ]);
  }

  return {
    next() {
      if (done < steps) slice();
      if (done < steps) return true;
      post({
        type: 'lrSweepDone',
        session,
        id,
        part,
        copy,
        learningRate: trainer.config.learningRate,
        steps,
        initialLoss,
        finalLoss: tailSum / (steps - tailFrom + 1),
        largestLogit,
        ms,
      });
      return false;
    },
    dispose() {
      trainer.delete();
    },
  };
}

/** { type: 'lrSweep', session, id, part, cfg, steps } → 'lrSweepProgress'* , 'lrSweepDone' (above). */
export const workerJobs = { lrSweep: lrSweepJob };
