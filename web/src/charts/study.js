// The part of the chapter-8 panels that measure a fixed setup (not the page's setting): their list
// of sweeps goes to a background Worker once, as one 'study' job (worker.js); the points are kept
// by series (a task and a scaling) and x (d_k or T), and the panel's progress line and stale mark
// follow them, so the page's completion markers work as for the d_k sweeps.
import { createChart, log2Axis } from './uplot-chart.js';
import { whenNear } from '../ui/when-near.js';

/**
 * createStudy(el, frame, { ctx, tasks, slot, onPoints, onDone }) → { get(task, key, x), xs(task), done }.
 * tasks: [{ over: 'dk' | 'seqLen', cfg, xs, scales? }]. For a d_k task `key` is the scaling; a T
 * task has the one key ''. `onPoints()` runs after each point arrives, `onDone()` once all have.
 */
export function createStudy(el, frame, { ctx, tasks, slot = 0, onPoints = () => {}, onDone = () => {} }) {
  frame.status.classList.add('keeps-line'); // its progress comes and goes: the line stays
  const total = tasks.reduce((a, t) => a + t.xs.length, 0);
  const byTask = tasks.map(() => new Map()); // task → `${key}|${x}` → point
  let n = 0;
  let failure = '';
  let done = false;
  let started = false;

  // A failure ends the study: it is said under the charts (what was measured stays drawn), and
  // the panel counts as complete (no progress line, no stale mark), as nothing more will come.
  function progress() {
    frame.status.textContent =
      failure || done
        ? ''
        : started
          ? `Measuring: ${n} of ${total} points…`
          : `Measured when this chart comes into view (${total} points).`;
    frame.gaps.textContent = failure;
    el.classList.toggle('is-stale', !done && !failure);
  }

  // On the page's thread (no Worker) the engine is the page's own: a study of T up to 2048 could
  // exhaust its memory and restart it under the page's charts, so it is not run there.
  const onPage = ctx.client?.mode === 'main-thread';
  const session = onPage
    ? null
    : ctx.client?.openSession({
        studyPoint(m) {
          const map = byTask[m.task];
          if (!map) return;
          if (m.point) map.set(`|${m.x}`, m.point);
          else for (const [key, p] of Object.entries(m.points ?? {})) map.set(`${key}|${m.x}`, p);
          n += 1;
          progress();
          onPoints();
        },
        studyDone() {
          done = true;
          progress();
          onDone();
        },
        onError(m) {
          if (m.kind !== 'study' && m.kind !== 'sweep') return;
          failure = `The measurement stopped after ${n} of ${total} points: ${m.message}`;
          progress();
        },
      });
  const stopWaiting = session
    ? whenNear(el, () => {
        started = true;
        progress();
        session.job('study', { tasks }, { pool: slot });
      })
    : () => {};
  if (!session)
    failure = onPage
      ? 'Not measured: this browser runs the engine on the page’s thread, and these setups need a Worker of their own.'
      : 'No compute engine to measure with.';
  progress();

  return {
    get: (task, key, x) => byTask[task]?.get(`${key}|${x}`) ?? null,
    get done() {
      return done;
    },
    close: () => {
      stopWaiting();
      session?.close();
    },
  };
}

/**
 * One log2-x chart of a study: `series` [{ label, color, dash?, width?, value(x) → number | null }]
 * drawn over `xs`. Returns { c, draw() } (draw re-reads every value).
 */
export function studyChart(host, { label, xLabel, xs, yAxis, yScale, series, aspect = 0.62, onDraw }) {
  const c = createChart(host, {
    label,
    aspect,
    makeOpts: () => ({
      scales: { x: { time: false, distr: 3, log: 2 }, y: yScale },
      axes: [log2Axis(xLabel), yAxis],
      series: [
        {},
        ...series.map((s) => ({
          label: s.label,
          stroke: (u) => u.pal[s.color],
          width: s.width ?? 2,
          ...(s.dash ? { dash: s.dash } : {}),
          points: { show: !s.dash, size: 4, fill: (u) => u.pal[s.color] },
        })),
      ],
    }),
    data: [xs, ...series.map(() => xs.map(() => null))],
    onDraw,
  });
  const log = yScale?.distr === 3; // a log axis draws only positive values
  const finite = (v) => (typeof v === 'number' && Number.isFinite(v) && (!log || v > 0) ? v : null);
  return { c, draw: () => c.setData([xs, ...series.map((s) => xs.map((x) => finite(s.value(x))))]) };
}
