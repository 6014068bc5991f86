// Chart 2 — σ of the logits fed to the softmax vs d_k (log–log) for the three scalings, measured
// (solid, points) and theory (dashed: the engine's rawLogitStdTheory × scale factor, which follows
// the mean/std/correlation the reader sets). The current setting is marked.
import { log2Axis, logYAxis } from '../../charts/uplot-chart.js';
import { mountSweepPanel } from '../../frame/sweep-panel.js';
import { fmt } from '../../ui/format.js';
import { scaleLabel } from '../../state/choices.js';
import { meta } from './meta.js';

export { meta };

export function mount(el, ctx = {}) {
  const scaling = (c) => scaleLabel(c.scale, ctx.schema);
  return mountSweepPanel(el, ctx, {
    name: 'sigma',
    title: 'σ of the logits vs d_k',
    description:
      'Standard deviation of the logits entering the softmax, measured at every power of two of d_k, for each scaling.',
    legend: (scalings) => [
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
    csv: {
      header: ['scale', 'dk', 'logitStd', 'rawLogitStd', 'rawLogitStdTheory', 'scaleFactor'],
      row: (s, p) => [s, p.dk, p.logitStd, p.rawLogitStd, p.rawLogitStdTheory, p.scaleFactor],
    },
    gapValue: (p) => p.logitStd,
    chart: {
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
    },
    // The text alternative ends with σ at the largest d_k swept, for each scaling.
    end: { value: (p) => p.logitStd, text: (v) => fmt(v, 3) },
    summary: (result, cfg, ends, last) =>
      `σ of the logits fed to the softmax: ${fmt(result.logitStd, 3)} at d_k = ${cfg.dk} with scaling ${scaling(cfg)}.` +
      (ends ? ` At d_k = ${last}: ${ends}.` : ''),
    caption: (r, c) =>
      `Current: d_k = ${c.dk}, scaling ${scaling(c)}: σ = ${fmt(r.logitStd, 3)} ` +
      `(raw ${fmt(r.rawLogitStd, 3)}, theory ${fmt(r.rawLogitStdTheory, 3)}). Sweep at T = ${c.seqLen}, mean ${c.mean}, std ${c.std}, correlation ${c.correlation}.`,
  });
}
