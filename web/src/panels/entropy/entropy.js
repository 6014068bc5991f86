// Chart 3 — softmax entropy vs d_k for the three scalings (left axis, nats) with the ceiling
// ln T (mean ln of visible keys: entropyMax) and the floor its logit range puts under it (thin,
// from the exact points: compute/jobs/sweep.js), and on the right axis (0..1) the mean largest
// weight per row and the fraction of saturated rows.
import { log2Axis, axis } from '../../charts/uplot-chart.js';
import { mountSweepPanel } from '../../frame/sweep-panel.js';
import { fmt } from '../../ui/format.js';
import { scaleLabel } from '../../state/choices.js';
import { meta } from './meta.js';

export { meta };

/** The chart: entropy on the left axis, max weight and saturated rows on the right, the ceiling ln T. */
function entropyChartSpec() {
  return {
    label: 'Softmax entropy, max weight and saturated-row fraction against d_k for three scalings',
    scales: {
      x: { time: false, distr: 3, log: 2 },
      y: { range: (u, lo, hi) => [0, Math.max(hi, 0.1) * 1.06] },
      p: { range: [0, 1.02] },
    },
    axes: [
      log2Axis('d_k'),
      axis({ label: 'entropy, floor (nats)', scale: 'y', size: 50 }),
      axis({ label: 'max weight, saturated', scale: 'p', side: 1, size: 50, grid: { show: false } }),
    ],
    layers: [
      {
        name: 'entropy',
        value: (p) => p.entropy,
        se: (p) => p.entropySe,
        width: 2,
        scale: 'y',
        points: true,
      },
      {
        name: 'floor',
        value: (p) => p.entropyFloor ?? null,
        width: 1,
        dash: [6, 3, 1, 3],
        scale: 'y',
      },
      {
        name: 'max weight',
        value: (p) => p.maxWeight,
        se: (p) => p.maxWeightSe,
        width: 1.5,
        dash: [7, 4],
        scale: 'p',
      },
      {
        name: 'saturated',
        value: (p) => p.saturatedFraction,
        se: (p) => p.saturatedFractionSe,
        width: 1.5,
        dash: [2, 3],
        scale: 'p',
      },
    ],
    // ln T does not depend on the scaling: take it from whichever scaling has the point.
    extra: [
      {
        series: {
          label: 'ln T',
          stroke: (u) => u.pal.theory,
          width: 1.25,
          dash: [6, 4],
          scale: 'y',
          points: { show: false },
        },
        column: (st, dks) =>
          dks.map(
            (dk) =>
              st.scales.map((s) => st.column(s, [dk], (p) => p.entropyMax)[0]).find((v) => v !== null) ??
              null,
          ),
      },
    ],
    marker: { field: 'entropy' },
  };
}

export function mount(el, ctx = {}) {
  const scaling = (c) => scaleLabel(c.scale, ctx.schema);
  const pct = (v) => (Number.isFinite(v) ? `${fmt(100 * v, 3)}%` : 'undefined');
  return mountSweepPanel(el, ctx, {
    name: 'entropy',
    title: 'Softmax entropy and saturation vs d_k',
    description:
      'Left axis, in nats: how spread out each attention row is (its entropy, at most ln T) and its floor, the lowest entropy a row can have at this spread of logits. Right axis, from 0 to 1: how concentrated the rows are (the largest weight of a row, and the share of rows that give more than 0.99 to one key).',
    legend: (scalings) => [
      ...scalings.map((s) => ({ color: `c-${s.value}`, label: s.label })),
      { color: 'fg', label: 'entropy (left)' },
      { color: 'fg', label: 'floor (left)', dash: 'dashdot' },
      { color: 'fg', label: 'mean max weight (right)', dash: 'dashed' },
      { color: 'fg', label: 'saturated rows (right)', dash: 'dotted' },
      { color: 'c-theory', label: 'ceiling ln T (left)', dash: 'dashed' },
      { color: 'c-current', label: 'current d_k', kind: 'vline' },
    ],
    readouts: [
      { stat: 'entropy', label: 'entropy (nats)' },
      { stat: 'entropyMax', label: 'ceiling ln T' },
      { stat: 'maxWeight', label: 'mean max weight' },
      { stat: 'saturatedFraction', label: 'saturated rows' },
    ],
    csv: {
      header: ['scale', 'dk', 'entropy', 'entropyMax', 'entropyFloor', 'maxWeight', 'saturatedFraction'],
      row: (s, p) => [s, p.dk, p.entropy, p.entropyMax, p.entropyFloor, p.maxWeight, p.saturatedFraction],
    },
    gapValue: (p) => p.entropy,
    chart: entropyChartSpec(),
    // The text alternative ends with the saturated rows at the largest d_k swept, for each scaling.
    end: { value: (p) => p.saturatedFraction, text: pct },
    summary: (result, cfg, ends, last) =>
      `Softmax entropy ${fmt(result.entropy, 3)} of at most ${fmt(result.entropyMax, 3)} nats at d_k = ${cfg.dk} with scaling ${scaling(cfg)}; ` +
      `${pct(result.saturatedFraction)} of rows saturated.` +
      (ends ? ` Saturated rows at d_k = ${last}: ${ends}.` : ''),
    caption: (r, c) =>
      Number.isFinite(r.entropy)
        ? `Current: d_k = ${c.dk}, scaling ${scaling(c)}: entropy ${fmt(r.entropy, 3)} of at most ${fmt(r.entropyMax, 3)} nats; ` +
          `the largest weight of a row averages ${fmt(r.maxWeight, 3)}; ${fmt(100 * r.saturatedFraction, 3)}% of rows are saturated.`
        : `Current: d_k = ${c.dk}, scaling ${scaling(c)}: the weights contain NaN or infinite values, so entropy and saturation are undefined (see the precision panel).`,
  });
}
