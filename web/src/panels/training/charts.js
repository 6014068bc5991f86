// The training panel's line charts: loss, accuracy, the gradient norms of W_q and W_k, attention
// entropy and saturated rows, each copy's curve against the step, with the lines of reference
// (chance, the ceiling ln T) drawn in.
import { createChart, axis, logYAxis } from '../../charts/uplot-chart.js';
import { drawHLine } from '../../charts/plot-marks.js';
import { h } from '../../ui/dom.js';
import { fmt } from '../../ui/format.js';
import { VALUE_TOKENS, copyLabel } from './train-state.js';

/** The key to the colours: one entry per copy (labelled as `trainSchema` says), then the line styles. */
export function legendFor(copies, scale, trainSchema) {
  return [
    ...copies.map((c) => ({ color: `c-${c}`, label: copyLabel(c, scale, trainSchema) })),
    { color: 'fg', label: 'W_q (gradient chart)' },
    { color: 'fg', label: 'W_k (gradient chart)', dash: 'dashed' },
    { color: 'fg', label: 'entropy floor (entropy chart)', dash: 'dotted' },
    { color: 'c-theory', label: 'chance / ceiling', dash: 'dashed' },
  ];
}

// One series per possible copy (the training schema's and 'custom'); copies not in the run have no
// data. RMS- and layer-norm copies often run on the same curve: the RMS one is drawn wider, beneath.
const copySeries = (copies, suffix = '', dash) =>
  copies.map((c) => ({
    label: `${c}${suffix}`,
    stroke: (u) => u.pal[c],
    width: (dash ? 1.5 : 2) * (c === 'rms_sqrt' ? 2.2 : 1),
    dash,
    points: { show: false },
    spanGaps: false,
  }));
const fractionAxis = (label) =>
  axis({ label, size: 46, values: (u, s) => s.map((v) => (v == null ? '' : fmt(v, 2))) });

/**
 * createTrainingCharts(grid, T, copies) adds the five charts to `grid`; `T()` is the run's sequence
 * length (the entropy ceiling), `copies` every copy a run can have (train-state.js: copyNames).
 * → { charts: [{ title, chart, nSeries }], draw(run) }.
 */
export function createTrainingCharts(grid, T, copies) {
  const charts = [];
  function addChart(title, label, scaleY, yAxis, series, onDraw) {
    const box = h('div', { class: 'train-chart' }, h('h4', { class: 'subchart', text: title }));
    grid.append(box);
    const chart = createChart(box, {
      label,
      aspect: 0.55,
      minH: 170,
      maxH: 260,
      makeOpts: () => ({
        scales: { x: { time: false, range: (u, lo, hi) => [0, Math.max(10, hi ?? 10)] }, y: scaleY },
        axes: [axis({ label: 'step', size: 40 }), yAxis],
        series: [{}, ...series],
      }),
      data: [[0, 1], ...series.map(() => [null, null])],
      onDraw,
    });
    const entry = { title, chart, nSeries: series.length };
    charts.push(entry);
    return entry;
  }
  const hline = (y, text) => (u) => drawHLine(u, typeof y === 'function' ? y() : y, text);
  const lossChart = addChart(
    'Loss (cross-entropy, nats; log scale)',
    'Training loss of each copy against the step, log scale',
    { distr: 3, log: 10 },
    logYAxis('loss'),
    copySeries(copies),
    hline(Math.log(VALUE_TOKENS), `chance: ln ${VALUE_TOKENS}`),
  );
  const accChart = addChart(
    'Accuracy',
    'Accuracy of each copy against the step',
    { range: [0, 1] },
    fractionAxis('accuracy'),
    copySeries(copies),
    hline(1 / VALUE_TOKENS, `chance: 1/${VALUE_TOKENS}`),
  );
  const gradChart = addChart(
    'Gradient norm of W_q (solid) and W_k (dashed); log scale',
    'Frobenius norm of the gradient of W_q and of W_k for each copy against the step, log scale',
    { distr: 3, log: 10 },
    logYAxis('‖∇W‖'),
    [...copySeries(copies, ' W_q'), ...copySeries(copies, ' W_k', [6, 4])],
  );
  // The floor (Zhai et al., Theorem 3.1; docs/science.md): no row of the step's batch can have a
  // lower entropy than B(T, σ_max), σ_max the largest centred row norm of its logits.
  const entChart = addChart(
    'Attention entropy (nats): mean (solid), floor B(T, σ_max) (dotted)',
    'Mean attention entropy of each copy against the step, with the ceiling ln T and, dotted, the lower bound that the largest centred row norm of the logits puts on every row’s entropy',
    { range: () => [0, Math.log(T()) * 1.06] },
    fractionAxis('entropy (nats)'),
    [...copySeries(copies), ...copySeries(copies, ' floor', [2, 3])],
    (u) => drawHLine(u, Math.log(T()), `ceiling ln T = ${fmt(Math.log(T()), 3)} (uniform)`),
  );
  const satChart = addChart(
    'Saturated rows (largest weight > 0.99)',
    'Fraction of attention rows whose largest weight is above 0.99, each copy, against the step',
    { range: [0, 1] },
    fractionAxis('fraction of rows'),
    copySeries(copies),
  );

  /** Every curve from the run's drawable values; false when there is no step to draw yet. */
  function draw(run) {
    const x = run ? run.steps : [];
    const nulls = new Array(x.length).fill(null);
    const col = (c, m) => run?.draw[c]?.[m] ?? nulls;
    const data = (m) => [x, ...copies.map((c) => col(c, m))];
    grid.dataset.empty = String(!x.length); // before a run the grid says what it will show
    if (!x.length) {
      for (const ch of charts)
        ch.chart.setData([[0, 1], ...Array.from({ length: ch.nSeries }, () => [null, null])]);
      return false;
    }
    lossChart.chart.setData(data('loss'));
    accChart.chart.setData(data('accuracy'));
    gradChart.chart.setData([
      x,
      ...copies.map((c) => col(c, 'gradNormWq')),
      ...copies.map((c) => col(c, 'gradNormWk')),
    ]);
    entChart.chart.setData([
      x,
      ...copies.map((c) => col(c, 'entropy')),
      ...copies.map((c) => col(c, 'entropyFloor')),
    ]);
    satChart.chart.setData(data('saturatedFraction'));
    return true;
  }

  return { charts, draw };
}

/** What the charts will show, with a button that starts the run: in their place before the first step. */
export function emptyChartsNote(start) {
  return h(
    'div',
    { class: 'train-empty' },
    h('p', {
      text:
        'Once the copies train, five charts follow them step by step: the loss, the accuracy, the gradients ' +
        'reaching W_q and W_k, the entropy of their attention, and the share of rows that have saturated.',
    }),
    h('button', {
      type: 'button',
      class: 'btn',
      'data-start-training': '',
      text: 'Start training',
      onclick: start,
    }),
  );
}
