// Chart 2 — σ of the logits fed to the softmax vs d_k (log–log) for the three scalings, measured
// (solid, points) and theory (dashed: the engine's rawLogitStdTheory × scale factor, which follows
// the mean/std/correlation the reader sets). The current setting is marked.
import { panelFrame, createChart, log2Axis, logYAxis, drawVLine, drawDot, createSweepStore, gapText, SWEEP_SCALES, SCALE_NAMES, scaleColorKey } from './common.js';
import { fmt, scaleLabel } from '../format.js';

export const meta = { name: 'sigma', title: 'σ of the logits vs d_k', sweep: true };

export function mount(el, ctx = {}) {
  const store = createSweepStore(SWEEP_SCALES);
  let cfg = null, result = null, total = 0;
  const frame = panelFrame(el, {
    name: 'sigma',
    title: 'σ of the logits vs d_k',
    description: 'Standard deviation of the logits entering the softmax, measured at every power of two of d_k, for each scaling.',
    legend: [
      ...SWEEP_SCALES.map((s) => ({ color: `c-${s}`, label: `measured, ${SCALE_NAMES[s]}` })),
      { color: 'c-theory', label: 'theory (each scaling)', dash: 'dashed' },
      { color: 'c-current', label: 'current d_k (dot: current value)', dash: 'dotted' },
    ],
    readouts: [
      { stat: 'rawLogitStd', label: 'σ raw (measured)' },
      { stat: 'rawLogitStdTheory', label: 'σ raw (theory)' },
      { stat: 'logitStd', label: 'σ after scale' },
      { stat: 'scaleFactor', label: 'scale factor' },
    ],
    exports: {
      png: () => [{ u: chart.u }],
      csv: () => {
        const rows = [['scale', 'dk', 'logitStd', 'rawLogitStd', 'rawLogitStdTheory', 'scaleFactor']];
        for (const [s, p] of store.points()) rows.push([s, p.dk, p.logitStd, p.rawLogitStd, p.rawLogitStdTheory, p.scaleFactor]);
        return { rows };
      },
    },
  });

  const series = [{}];
  for (const s of SWEEP_SCALES) {
    series.push({ label: `${s} measured`, stroke: (u) => u.pal[s], width: 2, points: { show: true, size: 5, fill: (u) => u.pal[s] } });
  }
  for (const s of SWEEP_SCALES) {
    series.push({ label: `${s} theory`, stroke: (u) => u.pal.theory, width: 1.25, dash: [6, 4], points: { show: false } });
  }
  const chart = createChart(frame.body, {
    label: 'Log-log plot of the logit standard deviation against d_k for three scalings',
    makeOpts: () => ({
      scales: { x: { time: false, distr: 3, log: 2 }, y: { distr: 3, log: 10 } },
      axes: [log2Axis('d_k'), logYAxis('σ of logits')],
      series,
    }),
    data: [[1, 4096], ...series.slice(1).map(() => [null, null])],
    onDraw: (u) => {
      if (!cfg || !result) return;
      const color = u.pal[scaleColorKey(cfg.scale)];
      drawVLine(u, cfg.dk, { color: u.pal.current, dash: [2, 3], label: `d_k = ${cfg.dk}` });
      drawDot(u, cfg.dk, result.logitStd, { color });
      if (store.count()) ctx.onDrawn?.('sigma');
    },
  });

  function draw() {
    const dks = store.dks();
    if (!dks.length) return;
    const data = [dks];
    for (const s of SWEEP_SCALES) data.push(store.column(s, dks, (p) => p.logitStd, { positive: true }));
    for (const s of SWEEP_SCALES) data.push(store.column(s, dks, (p) => p.rawLogitStdTheory * p.scaleFactor, { positive: true }));
    chart.setData(data);
    frame.gaps.textContent = gapText(store.nonFiniteScales((p) => p.logitStd));
  }

  /** Text alternative: the current σ, and σ at the largest d_k swept for each scaling. */
  function summarize() {
    if (!cfg || !result) return;
    const dks = store.stale ? [] : store.dks();
    const last = dks[dks.length - 1];
    const ends = last ? SWEEP_SCALES.map((s) => `${SCALE_NAMES[s]} ${fmt(store.column(s, [last], (p) => p.logitStd)[0] ?? NaN, 3)}`).join(', ') : '';
    frame.setSummary(`σ of the logits fed to the softmax: ${fmt(result.logitStd, 3)} at d_k = ${cfg.dk} with scaling ${scaleLabel(cfg.scale)}.`
      + (ends ? ` At d_k = ${last}: ${ends}.` : ''));
  }

  function progress() {
    const n = store.stale ? 0 : store.count();
    frame.status.textContent = n < total ? `Sweep: ${n} of ${total} points computed…` : '';
    el.classList.toggle('is-stale', store.stale);
  }

  return {
    update(r, c) {
      result = r;
      cfg = c;
      frame.setStats(r);
      frame.caption.textContent = `Current: d_k = ${c.dk}, scaling ${scaleLabel(c.scale)}: σ = ${fmt(r.logitStd, 3)} `
        + `(raw ${fmt(r.rawLogitStd, 3)}, theory ${fmt(r.rawLogitStdTheory, 3)}). Sweep at T = ${c.seqLen}, mean ${c.mean}, std ${c.std}, correlation ${c.correlation}.`;
      chart.redraw();
      summarize();
    },
    sweepReset(n) { total = n; store.reset(); progress(); },
    sweepPoint(scale, p) { store.add(scale, p); draw(); progress(); },
    sweepDone() { progress(); summarize(); },
    redraw: () => chart.redraw(),
    destroy: () => chart.destroy(),
  };
}
