// The Worker's job kinds: its own (jobs/: the d_k sweep and the fixed studies) and the panels'
// (panels/jobs.js), whose module is loaded the first time one of its kinds is asked for. An entry
// is { start(engine, m, post, sliceMs) → { next() → more?, dispose() }, urgent? } (a job worked on
// in slices; urgent: it follows the page's current setting) or { ordered(getEngine, post) →
// { handle(m), close(session), clear() } } (requests carried out one at a time, in order).
import { JOB_MODULES } from '../panels/jobs.js';
import { sweepJob } from './jobs/sweep.js';
import { studyJob } from './jobs/study.js';

const OWN = { sweep: { start: sweepJob, urgent: true }, study: { start: studyJob } };
const entryOf = (e) => (typeof e === 'function' ? { start: e } : e);

/**
 * jobKinds({ replay(m), fail(m, err) }) → { has(kind), entry(m), prepare(kind), forget(session, kind?) }.
 * entry(m) is m's kind's entry, or null while its module loads: m then waits, in order, and is
 * given back to `replay` once it has loaded (to `fail` if it could not).
 */
export function jobKinds({ replay, fail }) {
  const entries = new Map(Object.entries(OWN));
  const waiting = new Map(); // kind → the messages that came while its module loads

  function load(kind) {
    waiting.set(kind, []);
    const settle = (each) => {
      const list = waiting.get(kind);
      waiting.delete(kind);
      for (const m of list) each(m);
    };
    JOB_MODULES[kind]().then(
      (mod) => {
        for (const [k, e] of Object.entries(mod.workerJobs ?? {})) entries.set(k, entryOf(e));
        if (entries.has(kind)) settle(replay);
        else settle((m) => fail(m, new Error(`the module of job ${kind} does not define it`)));
      },
      (err) => settle((m) => fail(m, err)),
    );
  }

  return {
    has: (kind) => entries.has(kind) || Object.hasOwn(JOB_MODULES, kind),
    entry(m) {
      const e = entries.get(m.type);
      if (e) return e;
      if (!waiting.has(m.type)) load(m.type);
      waiting.get(m.type).push(m);
      return null;
    },
    /** Loads the module of `kind` now, if it is not loaded or loading. */
    prepare(kind) {
      if (!entries.has(kind) && !waiting.has(kind) && Object.hasOwn(JOB_MODULES, kind)) load(kind);
    },
    /** Drops the waiting messages of `session` (of `kind` only, when given). */
    forget(session, kind) {
      for (const [k, list] of waiting)
        if (kind === undefined || k === kind)
          waiting.set(
            k,
            list.filter((m) => m.session !== session),
          );
    },
  };
}
