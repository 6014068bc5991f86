// The LR sweep's two charts: each copy's final loss against the learning rate (log x, the loss at
// initialisation dashed: a run that ends above it gained nothing), and each copy's largest |logit|
// against the step at one chosen rate (log y): the logit growth of Wortsman et al.
import { axis, createChart, logYAxis } from '../../charts/uplot-chart.js';
import { drawHLine } from '../../charts/plot-marks.js';
import { h } from '../../ui/dom.js';
import { fmt } from '../../ui/format.js';

const SUPERSCRIPT = {
  '-': '⁻',
  0: '⁰',
  1: '¹',
  2: '²',
  3: '³',
  4: '⁴',
  5: '⁵',
  6: '⁶',
  7: '⁷',
  8: '⁸',
  9: '⁹',
};
/** 0.3, 0.01, 3·10⁻⁴: a rate as an axis label. */
export function rateText(r) {
  if (r >= 0.01) return String(Number(r.toPrecision(6)));
  const [m, e] = r.toExponential().split('e');
  const exp = [...String(Number(e))].map((ch) => SUPERSCRIPT[ch]).join('');
  return `${m === '1' ? '' : `${Number(Number(m).toPrecision(6))}·`}10${exp}`;
}
const finite = (v, positive) => (Number.isFinite(v) && (!positive || v > 0) ? v : null);

const copySeries = (copies, points) =>
  copies.map((c) => ({
    label: c.label,
    stroke: (u) => u.pal[c.name],
    width: 2,
    points: points ? { show: true, size: 6, fill: (u) => u.pal[c.name] } : { show: false },
    spanGaps: false,
  }));

/**
 * createLrCharts(host, copies) → { lossChart, logitChart, draw({ rates, runs, logitRate }) }:
 * `copies` [{ name, label }] every copy a sweep can have (series with no run stay empty).
 */
export function createLrCharts(host, copies) {
  const cell = (title) => {
    const d = h('div', { class: 'lr-chart' }, h('h4', { class: 'subchart', text: title }));
    host.append(d);
    return d;
  };
  let initialLoss = NaN;
  const lossChart = createChart(cell('Final loss against the learning rate'), {
    label: 'Final loss of each copy against the learning rate, log scale, with the loss at initialisation',
    aspect: 0.62,
    makeOpts: () => ({
      scales: {
        x: { time: false, distr: 3, log: 10 },
        y: { range: (u, lo, hi) => [0, Math.max(hi, initialLoss || 0, 1) * 1.15] },
      },
      axes: [
        axis({ label: 'learning rate', values: (u, s) => s.map((v) => (v == null ? '' : rateText(v))) }),
        axis({ label: 'final loss (nats)', size: 50 }),
      ],
      series: [{}, ...copySeries(copies, true)],
    }),
    data: [[1e-3, 1e-1], ...copies.map(() => [null, null])],
    onDraw: (u) => drawHLine(u, initialLoss, `loss at initialisation ${fmt(initialLoss, 3)}`, { left: true }),
  });
  const logitChart = createChart(cell('Largest |logit| against the step'), {
    label:
      'Largest absolute attention logit of each copy against the step at the chosen learning rate, log scale',
    aspect: 0.62,
    makeOpts: () => ({
      scales: { x: { time: false }, y: { distr: 3, log: 10 } },
      axes: [axis({ label: 'step', size: 40 }), logYAxis('max |logit|')],
      series: [{}, ...copySeries(copies, false)],
    }),
    data: [[0, 1], ...copies.map(() => [null, null])],
  });

  function draw({ rates, runs, logitRate }) {
    const byCopyRate = new Map(runs.map((r) => [`${r.copy.name}|${r.rate}`, r]));
    const done = runs.filter((r) => r.done && Number.isFinite(r.initialLoss));
    initialLoss = done.length ? done.reduce((a, r) => a + r.initialLoss, 0) / done.length : NaN;
    lossChart.setData([
      rates,
      ...copies.map((c) => rates.map((r) => finite(byCopyRate.get(`${c.name}|${r}`)?.finalLoss))),
    ]);
    const at = copies.map((c) => byCopyRate.get(`${c.name}|${logitRate}`));
    const n = Math.max(2, ...at.map((r) => r?.maxLogit.length ?? 0));
    const steps = Array.from({ length: n }, (_, i) => i + 1);
    logitChart.setData([steps, ...at.map((r) => steps.map((_, i) => finite(r?.maxLogit[i], true)))]);
  }

  return { lossChart, logitChart, draw };
}
