// Chart 1 — logit spread: histograms of the raw logits q·k and of the scaled logits fed to the
// softmax, as densities on one axis, with ±σ marks and, when they are in view, the format's
// largest finite value and the exp-overflow threshold ln(max).
import { panelFrame } from '../../frame/panel-frame.js';
import { createChart, axis, alpha, scaleColorKey, uPlot } from '../../charts/uplot-chart.js';
import { drawVLine } from '../../charts/plot-marks.js';
import { fmt } from '../../ui/format.js';
import { scaleLabel } from '../../state/choices.js';
import { meta } from './meta.js';

export { meta };

function density({ edges, counts }) {
  let n = 0;
  for (const c of counts) n += c;
  const e = [],
    d = [];
  for (let i = 0; i < counts.length; i++) {
    const lo = edges[i],
      hi = edges[i + 1];
    if (!Number.isFinite(lo) || !Number.isFinite(hi) || hi <= lo) continue;
    e.push(lo, hi);
    d.push(n ? counts[i] / (n * (hi - lo)) : 0);
  }
  return { e, d };
}

/** Step function of a histogram, sampled at the points `xs` (0 outside its bins). */
function sample(edges, counts, xs) {
  const { d } = density({ edges, counts });
  const lo = edges[0],
    hi = edges[edges.length - 1];
  const n = counts.length;
  return xs.map((x) => {
    if (!(x >= lo && x < hi)) return 0;
    let i = Math.min(n - 1, Math.floor(((x - lo) / (hi - lo)) * n));
    while (i > 0 && x < edges[i]) i--;
    while (i < n - 1 && x >= edges[i + 1]) i++;
    return d[i] ?? 0;
  });
}

// The legend names what is drawn: the thresholds only when their marks are on the chart.
const THRESHOLD_KEYS = [
  { color: 'c-warn', label: 'ln(largest finite): exp overflows above it', dash: 'dotted', mark: 'warn' },
  { color: 'c-nonfinite', label: '± largest finite value of the format', mark: 'nonfinite' },
  { color: 'c-theory', label: '± soft-cap c', dash: 'dashed', mark: 'theory' },
];
const legendFor = (key, markers = []) => [
  { color: 'c-raw', label: 'raw logits q·k', kind: 'box' },
  { color: `c-${key}`, label: 'scaled logits (fed to softmax)', kind: 'box' },
  { color: 'fg', label: 'mean ± σ of each', dash: 'dashed' },
  ...THRESHOLD_KEYS.filter((t) => markers.some((m) => m.color === t.mark)),
];

export function mount(el, ctx = {}) {
  // The current result and settings, the vertical marks and x range drawn for them, and the
  // scaling colour the legend shows.
  const state = { result: null, cfg: null, markers: [], xRange: [0, 1], legendKey: '' };
  const currentKey = () => (state.cfg ? scaleColorKey(state.cfg.scale) : 'sqrt');
  const frame = panelFrame(el, {
    name: 'spread',
    title: 'Logit spread',
    description: 'Distribution of every query–key logit of the current setting: raw q·k and after the scale.',
    legend: legendFor('sqrt'),
    readouts: [
      { stat: 'rawLogitStd', label: 'σ raw (measured)' },
      { stat: 'rawLogitStdTheory', label: 'σ raw (theory)' },
      { stat: 'scaleFactor', label: 'scale factor' },
      { stat: 'logitStd', label: 'σ scaled' },
      { stat: 'logitMin', label: 'min scaled' },
      { stat: 'logitMax', label: 'max scaled' },
      // The format's largest finite value, where it is not fp32's (far off every logit).
      { stat: 'largestFinite', label: 'largest finite', when: () => state.cfg?.precision !== 'fp32' },
    ],
    exports: {
      png: () => [{ u: chart.u }],
      legend: () => legendFor(currentKey(), state.markers),
      csv: () => ({ rows: csvRows(state.result) }),
      gif: () => ({ mount, schema: ctx.schema, client: ctx.client, cfg: state.cfg }),
    },
  });
  const chart = buildSpreadChart(frame, state, currentKey, ctx);

  function update(r, c) {
    state.result = r;
    state.cfg = c;
    const raw = r.rawHistogram,
      sc = r.histogram;
    const xs = [...new Set([...raw.edges, ...sc.edges].filter(Number.isFinite))].sort((a, b) => a - b);
    const { markers, off, xRange } = placeMarkers(r, c, xs, currentKey());
    state.markers = markers;
    state.xRange = xRange;
    const legend = legendFor(currentKey(), markers);
    const legendKey = legend.map((it) => it.color).join();
    if (legendKey !== state.legendKey) {
      state.legendKey = legendKey;
      frame.setLegend(legend);
    }
    const xsAll = [xRange[0], ...xs, xRange[1]];
    chart.setData([xsAll, sample(raw.edges, raw.counts, xsAll), sample(sc.edges, sc.counts, xsAll)]);
    frame.setStats(r);
    describeSpread(frame, r, c, off, ctx.schema);
  }

  return { update, redraw: () => chart.redraw(), destroy: () => chart.destroy() };
}

// Both histograms' bins, raw then scaled.
function csvRows(result) {
  const rows = [['series', 'bin_low', 'bin_high', 'count']];
  if (result) {
    for (const [name, hst] of [
      ['raw', result.rawHistogram],
      ['scaled', result.histogram],
    ]) {
      for (let i = 0; i < hst.counts.length; i++)
        rows.push([name, hst.edges[i], hst.edges[i + 1], hst.counts[i]]);
    }
  }
  return rows;
}

// Raw and scaled densities as filled steps on one axis, with the marks of `state.markers`.
function buildSpreadChart(frame, state, currentKey, ctx) {
  return createChart(frame.body, {
    label: 'Histogram of raw and scaled attention logits',
    makeOpts: () => ({
      scales: {
        x: { time: false, range: () => state.xRange },
        y: { range: (u, lo, hi) => [0, hi > 0 ? hi * 1.08 : 1] },
      },
      axes: [
        axis({ label: 'logit value', size: 40 }),
        axis({ label: 'density', size: 52, values: (u, s) => s.map((v) => (v == null ? '' : fmt(v, 2))) }),
      ],
      series: [
        {},
        {
          label: 'raw',
          stroke: (u) => u.pal.raw,
          fill: (u) => alpha(u.pal.raw, 0.28),
          width: 1.5,
          paths: uPlot.paths.stepped({ align: 1 }),
          points: { show: false },
        },
        {
          label: 'scaled',
          stroke: (u) => u.pal[currentKey()],
          fill: (u) => alpha(u.pal[currentKey()], 0.35),
          width: 2,
          paths: uPlot.paths.stepped({ align: 1 }),
          points: { show: false },
        },
      ],
    }),
    data: [
      [0, 1],
      [0, 0],
      [0, 0],
    ],
    onDraw: (u) => {
      if (!state.result) return;
      let row = 0;
      for (const m of state.markers)
        drawVLine(u, m.x, {
          color: u.pal[m.color],
          dash: m.dash,
          label: m.label,
          labelRow: m.label ? row++ % 3 : 0,
        });
      ctx.onDrawn?.('spread');
    },
  });
}

/**
 * The ±σ marks of both histograms, plus the thresholds (ln(max), ±largest finite, ±soft-cap) that sit
 * near the data; the x range that holds the histogram edges `xs` and those marks; and the thresholds
 * left off the chart (`off`).
 */
function placeMarkers(r, c, xs, key) {
  let lo = xs[0] ?? -1,
    hi = xs[xs.length - 1] ?? 1;
  const ext = Math.max(Math.abs(lo), Math.abs(hi), 1e-9);
  const lf = r.largestFinite;
  const lnMax = Number.isFinite(lf) && lf > 0 ? Math.log(lf) : NaN;
  const markers = [
    { x: r.rawLogitMean - r.rawLogitStd, color: 'raw', dash: [5, 4] },
    { x: r.rawLogitMean + r.rawLogitStd, color: 'raw', dash: [5, 4] },
    { x: r.logitMean - r.logitStd, color: key, dash: [5, 4] },
    { x: r.logitMean + r.logitStd, color: key, dash: [5, 4] },
  ];
  const extra = [];
  if (Number.isFinite(lnMax))
    extra.push({ x: lnMax, color: 'warn', dash: [3, 3], label: `ln(max) = ${fmt(lnMax, 3)}` });
  if (Number.isFinite(lf)) {
    extra.push({ x: lf, color: 'nonfinite', dash: [], label: `max ${fmt(lf, 3)}` });
    extra.push({ x: -lf, color: 'nonfinite', dash: [], label: `−max` });
  }
  // The soft-cap's bounds: no logit fed to the softmax leaves (−c, c).
  if (c.softcap > 0)
    extra.push(
      { x: c.softcap, color: 'theory', dash: [8, 3], label: `+c = ${fmt(c.softcap, 3)}` },
      { x: -c.softcap, color: 'theory', dash: [8, 3], label: '−c' },
    );
  const off = [];
  for (const m of extra) {
    // Widen the view to show a threshold only when it sits near the data (≤ 1.5× its extent).
    if (Math.abs(m.x) <= 1.5 * ext) {
      lo = Math.min(lo, m.x);
      hi = Math.max(hi, m.x);
      markers.push(m);
    } else off.push(m);
  }
  const pad = (hi - lo) * 0.03 || 1;
  return { markers, off, xRange: [lo - pad, hi + pad] };
}

// Caption (naming the thresholds off the chart to the right) and summary.
function describeSpread(frame, r, c, off, schema) {
  const offText = off
    .filter((m) => m.label && m.x > 0)
    .map((m) =>
      m.color === 'warn'
        ? `ln(max) = ${fmt(m.x, 3)}`
        : m.color === 'theory'
          ? `soft-cap c = ${fmt(m.x, 3)}`
          : `largest finite = ${fmt(m.x, 3)}`,
    );
  frame.caption.textContent =
    `Scaling ${scaleLabel(c.scale, schema)}, ${c.precision}, d_k = ${c.dk}, T = ${c.seqLen}. ` +
    `Measured σ of the raw logits ${fmt(r.rawLogitStd, 3)} (theory ${fmt(r.rawLogitStdTheory, 3)}); after the scale ${fmt(r.logitStd, 3)}.` +
    (offText.length ? ` Off the chart to the right: ${offText.join(', ')}.` : '');
  frame.setSummary(
    `Logit spread at d_k = ${c.dk}, T = ${c.seqLen}, ${c.precision}: σ of the raw logits ${fmt(r.rawLogitStd, 3)} ` +
      `(theory ${fmt(r.rawLogitStdTheory, 3)}); after scaling ${scaleLabel(c.scale, schema)}, σ ${fmt(r.logitStd, 3)}, from ${fmt(r.logitMin, 3)} to ${fmt(r.logitMax, 3)}.`,
  );
}
