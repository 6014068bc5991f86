// Chart 2 — σ of the logits fed to the softmax vs d_k (log–log) for the three scalings, measured
// (solid, points) and theory (dashed: the engine's rawLogitStdTheory × scale factor, which follows
// the mean/std/correlation the reader sets). The current setting is marked.
import { panelFrame } from '../../charts/panel-frame.js';
import { log2Axis, logYAxis } from '../../charts/uplot-chart.js';
import { createSweepCharts } from '../../charts/sweep-chart.js';
import { fmt } from '../../ui/format.js';
import { scaleLabel, scalingsOf } from '../../state/choices.js';
import { meta } from './meta.js';

export { meta };

export function mount(el, ctx = {}) {
  let cfg = null,
    result = null;
  const scalings = scalingsOf(ctx.schema);
  const frame = panelFrame(el, {
    name: 'sigma',
    title: 'σ of the logits vs d_k',
    description:
      'Standard deviation of the logits entering the softmax, measured at every power of two of d_k, for each scaling.',
    legend: [
      ...scalings.map((s) => ({ color: `c-${s.value}`, label: `measured, ${s.label}` })),
      { color: 'c-theory', label: 'theory (each scaling)', dash: 'dashed' },
      { color: 'c-current', label: 'current d_k (dot: its value)', kind: 'vline' },
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
        for (const [s, p] of store.points())
          rows.push([s, p.dk, p.logitStd, p.rawLogitStd, p.rawLogitStdTheory, p.scaleFactor]);
        return { rows };
      },
      gif: () => ({ mount, schema: ctx.schema, client: ctx.client, cfg, points: store.points() }),
    },
  });

  const sweep = createSweepCharts(el, frame, {
    name: 'sigma',
    ctx,
    gapValue: (p) => p.logitStd,
    onDone: () => summarize(),
  });
  const { store } = sweep;
  const chart = sweep.chart(frame.body, {
    label: 'Log-log plot of the logit standard deviation against d_k for three scalings',
    scales: { x: { time: false, distr: 3, log: 2 }, y: { distr: 3, log: 10 } },
    axes: [log2Axis('d_k'), logYAxis('σ of logits')],
    layers: [
      {
        name: 'measured',
        value: (p) => p.logitStd,
        se: (p) => p.logitStdSe,
        positive: true,
        width: 2,
        points: true,
      },
      {
        name: 'theory',
        value: (p) => p.rawLogitStdTheory * p.scaleFactor,
        se: () => 0, // from the config: exact in an estimate too
        positive: true,
        width: 1.25,
        dash: [6, 4],
        color: 'theory',
      },
    ],
    marker: { field: 'logitStd' },
  });

  /** Text alternative: the current σ, and σ at the largest d_k swept for each scaling. */
  function summarize() {
    if (!cfg || !result) return;
    const dks = store.stale ? [] : store.dks();
    const last = dks[dks.length - 1];
    const ends = last
      ? scalings
          .map(
            (s) =>
              `${s.label} ${fmt(store.column(s.value, [last], (p) => p.logitStd, { estimate: false })[0] ?? NaN, 3)}`,
          )
          .join(', ')
      : '';
    frame.setSummary(
      `σ of the logits fed to the softmax: ${fmt(result.logitStd, 3)} at d_k = ${cfg.dk} with scaling ${scaleLabel(cfg.scale, ctx.schema)}.` +
        (ends ? ` At d_k = ${last}: ${ends}.` : ''),
    );
  }

  return {
    update(r, c) {
      result = r;
      cfg = c;
      frame.setStats(r);
      frame.caption.textContent =
        `Current: d_k = ${c.dk}, scaling ${scaleLabel(c.scale, ctx.schema)}: σ = ${fmt(r.logitStd, 3)} ` +
        `(raw ${fmt(r.rawLogitStd, 3)}, theory ${fmt(r.rawLogitStdTheory, 3)}). Sweep at T = ${c.seqLen}, mean ${c.mean}, std ${c.std}, correlation ${c.correlation}.`;
      sweep.setCurrent(r, c);
      summarize();
    },
    sweepReset: sweep.sweepReset,
    sweepPoints: sweep.sweepPoints,
    sweepDone: sweep.sweepDone,
    sweepFailed: sweep.failed,
    reveal: sweep.reveal,
    redraw: sweep.redraw,
    destroy: sweep.destroy,
  };
}
