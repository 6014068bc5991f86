// A fixed list of measurements (the chapter panels that do not follow the page's setting, see
// charts/study.js): each task a d_k sweep (engine.sweepScalesJob) or a T sweep
// (engine.sweepSeqLenPoints), run one after the other, a slice at a time.

/** The task's resumable cursor: { advance() → { done, x?, points?/point? }, dispose() }. */
function openTask(engine, task, sliceMs) {
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
      const { done, value } = job.advance(sliceMs);
      return done
        ? { done: true }
        : value
          ? { done: false, x: value.dk, points: value.points }
          : { done: false };
    },
    dispose: () => job.delete(),
  };
}

/** A background job: next() advances the current task and posts each point it finished. */
export function studyJob(engine, { session, id, tasks }, post, sliceMs) {
  let t = 0;
  let current = null; // the cursor of tasks[t]
  return {
    next() {
      if (t >= tasks.length) {
        post({ type: 'studyDone', session, id });
        return false;
      }
      current ??= openTask(engine, tasks[t], sliceMs);
      const step = current.advance();
      if (step.done) {
        current.dispose();
        current = null;
        t += 1;
      } else if (step.x !== undefined) {
        post({ type: 'studyPoint', session, id, task: t, x: step.x, points: step.points, point: step.point });
      }
      return true;
    },
    dispose() {
      current?.dispose();
      current = null;
    },
  };
}
