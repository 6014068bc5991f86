// Chart 4 — gradient health. Three views:
//  (a) per-row softmax Jacobian norm vs d_k: median (solid) and mean (dashed), three scalings;
//  (b) RMS gradient reaching Q and K vs d_k, three scalings;
//  (c) every row of the current setting, sorted by its Jacobian norm, with the mean and median:
//      the honest view — a mean can sit well above what most rows get.
import { panelFrame } from '../../frame/panel-frame.js';
import { createChart, log2Axis, logYAxis, axis, scaleColorKey, alpha } from '../../charts/uplot-chart.js';
import { createSweepCharts } from '../../charts/sweep-chart.js';
import { uPlot } from '../../charts/uplot-chart.js';
import { fmt } from '../../ui/format.js';
import { scaleLabel, scalingsOf } from '../../state/choices.js';
import { meta } from './meta.js';

export { meta };

export function mount(el, ctx = {}) {
  // What the exports and the row chart read: the last whole result, its settings and the charts.
  const state = { cfg: null, result: null, store: null, jac: null, grad: null, rows: null };
  const frame = panelFrame(el, {
    name: 'gradients',
    title: 'Gradient health',
    description:
      'How much gradient gets through the softmax: the norm of its Jacobian per row, and the gradient that reaches Q and K.',
    legend: [
      ...scalingsOf(ctx.schema).map((s) => ({ color: `c-${s.value}`, label: s.label })),
      { color: 'fg', label: 'median row / ∂L/∂Q' },
      { color: 'fg', label: 'mean row / ∂L/∂K', dash: 'dashed' },
      { color: 'c-current', label: 'current d_k (dot: its value)', kind: 'vline' },
    ],
    readouts: [
      { stat: 'jacobianNormMedian', label: 'Jacobian norm, median row' },
      { stat: 'jacobianNormMean', label: 'Jacobian norm, mean' },
      { stat: 'saturatedFraction', label: 'saturated rows' },
      { stat: 'gradNormQ', label: 'RMS ∂L/∂Q' },
      { stat: 'gradNormK', label: 'RMS ∂L/∂K' },
    ],
    exports: gradientExports(state, ctx),
  });

  const sweep = createSweepCharts(el, frame, {
    name: 'gradients',
    ctx,
    gapValue: (p) => p.jacobianNormMedian,
    estimateNote:
      'The median Jacobian norm and the gradients to Q and K wait for the exact points: ∂L/∂K sums over ' +
      'every query row, and a row’s ∂L/∂Q is heavy-tailed (a few sharp rows carry the RMS), so a sample of ' +
      'rows gives neither with an honest error.',
  });
  state.store = sweep.store;
  Object.assign(state, buildSweepViews(frame, sweep));
  subTitle(frame.body, 'Every row of the current setting, sorted by its Jacobian norm');
  state.rows = buildRowsChart(frame, state);

  return {
    // The forward alone holds no gradient norms: the panel keeps the last whole result until the
    // backward's (data-backward says which it shows).
    update() {
      el.dataset.backward = 'pending';
    },
    updateGradients(r, c) {
      el.dataset.backward = 'done';
      state.result = r;
      state.cfg = c;
      frame.setStats(r);
      showGradients(frame, state.rows, r, c, ctx);
      sweep.setCurrent(r, c);
    },
    sweepReset: sweep.sweepReset,
    sweepPoints: sweep.sweepPoints,
    sweepDone: sweep.sweepDone,
    sweepFailed: sweep.failed,
    reveal: sweep.reveal,
    redraw: () => {
      sweep.redraw();
      state.rows.redraw();
    },
    destroy: () => {
      sweep.destroy();
      state.rows.destroy();
    },
  };
}

// PNG of the three charts, CSV of the sweep points and of the current setting's rows, and the GIF's
// off-screen re-mount of this panel.
function gradientExports(state, ctx) {
  return {
    png: () => [
      { u: state.jac.u, title: 'Softmax Jacobian norm per row vs d_k' },
      { u: state.grad.u, title: 'RMS gradient to Q and K vs d_k' },
      { u: state.rows.u, title: 'Rows of the current setting, sorted' },
    ],
    csv: () => ({ rows: csvRows(state.store.points(), state.result) }),
    gif: () => ({
      mount,
      schema: ctx.schema,
      client: ctx.client,
      cfg: state.cfg,
      points: state.store.points(),
      gradients: true,
    }),
  };
}

function csvRows(points, result) {
  const out = [
    ['scale', 'dk', 'jacobianNormMedian', 'jacobianNormMean', 'saturatedFraction', 'gradNormQ', 'gradNormK'],
  ];
  for (const [s, p] of points)
    out.push([
      s,
      p.dk,
      p.jacobianNormMedian,
      p.jacobianNormMean,
      p.saturatedFraction,
      p.gradNormQ,
      p.gradNormK,
    ]);
  if (result) {
    out.push([]);
    out.push(['row', 'rowJacobianNorm', 'rowEntropy', 'rowMaxWeight']);
    for (let i = 0; i < result.rowJacobianNorm.length; i++)
      out.push([i, result.rowJacobianNorm[i], result.rowEntropy[i], result.rowMaxWeight[i]]);
  }
  return out;
}

function subTitle(host, title) {
  const d = document.createElement('h4');
  d.className = 'subchart';
  d.textContent = title;
  host.append(d);
}

/** A cell of a grid of charts that sits side by side where the panel is wide enough. */
function gridCell(grid) {
  const cell = document.createElement('div');
  grid.append(cell);
  return cell;
}

// The two sweep charts against d_k, each with its subtitle: the Jacobian norm, and the gradient to Q and K.
function buildSweepViews(frame, sweep) {
  const logLog = () => ({ x: { time: false, distr: 3, log: 2 }, y: { distr: 3, log: 10 } });
  // Solid with points, and dashed: two measures per scaling on one chart.
  const pair = (a, b) => [
    { ...a, positive: true, width: 2, points: true },
    { ...b, positive: true, width: 1.5, dash: [7, 4] },
  ];
  const grid = document.createElement('div');
  grid.className = 'chart-grid';
  frame.body.append(grid);
  const jacCell = gridCell(grid);
  subTitle(jacCell, 'Softmax Jacobian norm per row vs d_k (median solid, mean dashed)');
  const jac = sweep.chart(jacCell, {
    label: 'Median and mean softmax Jacobian norm per row against d_k for three scalings',
    aspect: 0.45,
    scales: logLog(),
    axes: [log2Axis('d_k'), logYAxis('‖J‖ per row')],
    layers: pair(
      { name: 'median', value: (p) => p.jacobianNormMedian },
      { name: 'mean', value: (p) => p.jacobianNormMean, se: (p) => p.jacobianNormMeanSe },
    ),
    marker: { field: 'jacobianNormMedian' },
  });
  const gradCell = gridCell(grid);
  subTitle(gradCell, 'RMS gradient reaching Q (solid) and K (dashed) vs d_k');
  const grad = sweep.chart(gradCell, {
    label: 'Root-mean-square gradient to Q and to K against d_k for three scalings',
    aspect: 0.45,
    scales: logLog(),
    axes: [log2Axis('d_k'), logYAxis('RMS gradient')],
    layers: pair({ name: 'dL/dQ', value: (p) => p.gradNormQ }, { name: 'dL/dK', value: (p) => p.gradNormK }),
    marker: { field: 'gradNormQ' },
  });
  return { jac, grad };
}

// Every query row of the current setting as a step, sorted, with the mean (dashed) and median lines.
function buildRowsChart(frame, state) {
  const rowColor = (u) => u.pal[state.cfg ? scaleColorKey(state.cfg.scale) : 'sqrt'];
  return createChart(frame.body, {
    label: 'Jacobian norm of every query row of the current setting, sorted, with mean and median',
    aspect: 0.3,
    makeOpts: () => ({
      scales: { x: { time: false }, y: { range: (u, lo, hi) => [0, Math.max(hi, 1e-6) * 1.08] } },
      axes: [
        axis({
          label: 'rows, sorted (fraction)',
          values: (u, s) => s.map((v) => (v == null ? '' : fmt(v, 2))),
        }),
        axis({
          label: '‖J‖ of the row',
          size: 56,
          values: (u, s) => s.map((v) => (v == null ? '' : fmt(v, 2))),
        }),
      ],
      series: [
        {},
        {
          label: 'row',
          stroke: rowColor,
          fill: (u) => alpha(rowColor(u), 0.2),
          width: 2,
          paths: uPlot.paths.stepped({ align: 1 }),
          points: { show: false },
        },
        { label: 'mean', stroke: (u) => u.pal.fg, width: 1.5, dash: [7, 4], points: { show: false } },
        { label: 'median', stroke: (u) => u.pal.fg, width: 1.5, points: { show: false } },
      ],
    }),
    data: [
      [0, 1],
      [null, null],
      [null, null],
      [null, null],
    ],
    onDraw: (u) => {
      if (state.result) drawRowLabels(u, state.result);
    },
  });
}

// The mean and median written beside their lines, or a note when the weights hold NaN or infinities.
function drawRowLabels(u, result) {
  const { ctx: c, bbox } = u;
  if (!Number.isFinite(result.jacobianNormMean)) {
    c.save();
    c.fillStyle = u.pal.muted;
    c.font = `${12 * devicePixelRatio}px system-ui, sans-serif`;
    c.textAlign = 'center';
    c.textBaseline = 'middle';
    c.fillText(
      'NaN or infinite weights: no Jacobian to show',
      bbox.left + bbox.width / 2,
      bbox.top + bbox.height / 2,
    );
    c.restore();
    return;
  }
  c.save();
  c.fillStyle = u.pal.fg;
  c.font = `${11 * devicePixelRatio}px system-ui, sans-serif`;
  c.textBaseline = 'bottom';
  const yMean = u.valToPos(result.jacobianNormMean, 'y', true);
  const yMed = u.valToPos(result.jacobianNormMedian, 'y', true);
  // Labels at the left end, clear of the axis: mean above its line, median below its own.
  const x = bbox.left + 8 * devicePixelRatio;
  c.textAlign = 'left';
  const above = yMean <= yMed;
  c.textBaseline = above ? 'bottom' : 'top';
  c.fillText(
    `mean ${fmt(result.jacobianNormMean, 3)}`,
    x,
    above
      ? Math.max(bbox.top + 14 * devicePixelRatio, yMean - 3 * devicePixelRatio)
      : yMean + 3 * devicePixelRatio,
  );
  c.textBaseline = above ? 'top' : 'bottom';
  c.fillText(
    `median ${fmt(result.jacobianNormMedian, 3)}`,
    x,
    above
      ? Math.min(bbox.top + bbox.height - 14 * devicePixelRatio, yMed + 3 * devicePixelRatio)
      : yMed - 3 * devicePixelRatio,
  );
  c.restore();
}

// The sorted rows into their chart, and the summary and caption that say how many rows sit below the mean.
function showGradients(frame, rowsChart, r, c, ctx) {
  const T = r.rowJacobianNorm.length;
  const sorted = Float64Array.from(r.rowJacobianNorm, (v) => (Number.isFinite(v) ? v : 0)).sort();
  const xs = Array.from({ length: T + 1 }, (_, i) => i / T);
  const ys = [...sorted, sorted[T - 1] ?? 0];
  rowsChart.setData([xs, ys, xs.map(() => r.jacobianNormMean), xs.map(() => r.jacobianNormMedian)]);
  const below = sorted.filter((v) => v < r.jacobianNormMean).length;
  if (!Number.isFinite(r.jacobianNormMean)) {
    frame.caption.textContent =
      'Current setting: the weights contain NaN or infinite values, so the Jacobian norms are undefined (non-finite rows are drawn as 0; see the precision panel).';
    frame.setSummary(
      `Gradient health at d_k = ${c.dk}: the weights contain NaN or infinite values, so the Jacobian norms are undefined.`,
    );
    return;
  }
  frame.setSummary(
    `Gradient health at d_k = ${c.dk}, scaling ${scaleLabel(c.scale, ctx.schema)}: softmax Jacobian norm ${fmt(r.jacobianNormMedian, 3)} for the median row, ` +
      `${fmt(r.jacobianNormMean, 3)} on average; ${fmt(100 * r.saturatedFraction, 3)}% of rows saturated; RMS gradient to Q ${fmt(r.gradNormQ, 3)}, to K ${fmt(r.gradNormK, 3)}.`,
  );
  frame.caption.textContent =
    `Current setting: ${below} of ${T} rows (${fmt((100 * below) / T, 3)}%) have a Jacobian norm below the mean ${fmt(r.jacobianNormMean, 3)}; ` +
    `the median row has ${fmt(r.jacobianNormMedian, 3)}. ${fmt(100 * r.saturatedFraction, 3)}% of rows are saturated.`;
}
