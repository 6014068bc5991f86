// The app's background requests: the d_k sweep (for the panels whose meta says `sweep`) and each
// mounted panel's own job (its meta's `job`: the precision panel's softmax variants, the overflow
// thresholds; panels/index.js). They are sent once the foreground result for the same change is
// on screen, so they never compete with the answer to a slider move; each is sent again only when
// what it depends on changed (a sweep ignores d_k and the scaling; a job, what its request leaves
// out).
import { keyOf } from '../state/state.js';
import { scalingsOf } from '../state/choices.js';
import { PANELS } from '../panels/index.js';

const SWEEP_OMIT = ['dk', 'scale'];

/** The jobs of the mounted panels `names`: [{ panel, job }] (meta.js `job`). */
export const panelJobs = (names) =>
  names.filter((name) => PANELS[name]?.meta.job).map((name) => ({ panel: name, job: PANELS[name].meta.job }));

/**
 * createBackgroundJobs({ session, schema, dks, names, jobs, delivery, counters, waitForMount })
 * → { due(), near(panel), flush(config) }. `names`: the panels, `jobs` their panelJobs(names);
 * `waitForMount`: a panel's job, and the sweep, go only once `near(panel)` says their panel is
 * mounted (for the sweep, any panel that draws it);
 * `delivery` (panel-delivery.js) tells the panels:
 * every panel of the sweep, the owner of a job its reset (jobReset(request)); `counters` counts
 * the requests sent.
 */
export function createBackgroundJobs({
  session,
  schema,
  dks,
  names,
  jobs,
  delivery,
  counters,
  waitForMount = false,
}) {
  const wantsSweep = names.some((name) => PANELS[name]?.meta.sweep);
  const scales = scalingsOf(schema).map((c) => c.value); // a sweep measures every named scaling
  // Each job with the key of its last request and whether it may go yet.
  const tracked = jobs.map((j) => ({ ...j, key: null, near: !waitForMount && !j.job.startsNear }));
  let lastSweepKey = null;
  let due = false;
  // Where jobs wait for their panel, the sweep waits for a panel that draws it (a phone's load
  // draws none: its cores go to the first chart).
  let sweepNear = !waitForMount;

  function sweep(config) {
    const k = keyOf(config, schema, SWEEP_OMIT);
    if (k === lastSweepKey) return;
    lastSweepKey = k;
    const cfg = { ...config };
    for (const o of SWEEP_OMIT) delete cfg[o];
    delivery.each('sweepReset', dks.length * scales.length, { seqLen: cfg.seqLen });
    session.sweep(cfg, dks, scales);
    counters.sweepRequests += 1;
  }
  function panelJob(j, config) {
    const request = j.job.request(config, { dks });
    const k = JSON.stringify(request);
    if (k === j.key) return;
    j.key = k;
    delivery.one(j.panel, 'jobReset', request);
    session.job(j.job.kind, request, j.job.worker);
    const counter = j.job.counter ?? `${j.job.kind}Requests`;
    counters[counter] = (counters[counter] ?? 0) + 1;
  }

  return {
    /** A new run went out: its background jobs follow once its result is in. */
    due() {
      due = true;
    },
    /** The panel's job that starts near the viewport (or the sweep, for a sweep panel) may go now. */
    near(panel) {
      for (const j of tracked) if (j.panel === panel) j.near = true;
      if (PANELS[panel]?.meta.sweep) sweepNear = true;
      due = true;
    },
    /** Sends what is due (if the foreground Worker is free); false when nothing was due. */
    flush(config) {
      if (!due || session.busy) return false;
      due = false;
      if (wantsSweep && sweepNear) sweep(config);
      for (const j of tracked) if (j.near) panelJob(j, config);
      return true;
    },
  };
}
