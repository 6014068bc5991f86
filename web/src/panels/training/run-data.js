// The training panel's copy of a run: every metric the Worker measured, per copy and step, as
// received (for the table and the CSV) and as drawn (non-finite values, and values ≤ 0 on the
// log-scale charts, become gaps). No DOM.
import { METRICS, copiesOf, copyLabel, describeRun, stepReaching } from './train-state.js';

const LOG_SCALE = new Set(['loss', 'gradNormWq', 'gradNormWk']);
const perCopy = (copies, make) => Object.fromEntries(copies.map((c) => [c, make(c)]));
const perMetric = () => Object.fromEntries(METRICS.map((m) => [m, []]));

/** The page's fields that the trainer uses. */
export const pageFieldsOf = (c) => ({
  dk: c.dk,
  seqLen: c.seqLen,
  precision: c.precision,
  saturate: c.saturate,
  scale: typeof c.scale === 'number' ? c.scale : null,
});

/** An empty run of trainer config `cfg` (`trainSchema`: the engine's): { cfg, steps, copies, draw, reached, reachState }. */
export function newRun(cfg, trainSchema) {
  const copies = copiesOf(cfg, trainSchema);
  return {
    cfg,
    steps: [],
    copies: perCopy(copies, perMetric),
    draw: perCopy(copies, perMetric),
    reached: perCopy(copies, () => null),
    reachState: perCopy(copies, () => ({ sum: 0, at: null, next: 0 })),
  };
}

/** Appends a 'step' answer's steps (m.step, m.copies) to the run. */
export function appendSteps(run, m) {
  const n = m.step.length;
  for (let i = 0; i < n; i++) run.steps.push(m.step[i]);
  for (const c of Object.keys(run.copies)) {
    const src = m.copies[c];
    for (const k of METRICS) {
      const raw = run.copies[c][k],
        dr = run.draw[c][k],
        a = src[k];
      const positive = LOG_SCALE.has(k);
      for (let i = 0; i < n; i++) {
        const v = a[i];
        raw.push(v);
        dr.push(Number.isFinite(v) && (!positive || v > 0) ? v : null);
      }
    }
    run.reached[c] = stepReaching(run.steps, run.copies[c].accuracy, run.reachState[c]);
  }
}

/** The run as CSV rows: a comment naming the run, a header, one row per step (`trainSchema`, `schema`: the engine's). */
export function csvRows(run, trainSchema, schema) {
  if (!run) return [['# no steps yet']];
  const copies = Object.keys(run.copies);
  const labels = copies.map((c) => copyLabel(c, run.cfg.scale, trainSchema));
  const rows = [[`# ${describeRun(run.cfg, schema)}; copies ${labels.join(', ')}`]];
  rows.push(['step', ...copies.flatMap((c) => METRICS.map((m) => `${c}.${m}`))]);
  for (let i = 0; i < run.steps.length; i++)
    rows.push([run.steps[i], ...copies.flatMap((c) => METRICS.map((m) => run.copies[c][m][i]))]);
  return rows;
}
