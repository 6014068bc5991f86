// Chart 6 — precision: how many values became non-finite at each stage of the attention
// (logits → exp → weights → output), for the current setting and for three reference softmax
// variants run on the same inputs (two-pass without max subtraction, two-pass with it, online),
// plus the first stage that broke and how far the online softmax is from the two-pass one.
import { panelFrame } from '../../frame/panel-frame.js';
import { createChart, axis } from '../../charts/uplot-chart.js';
import { uPlot } from '../../charts/uplot-chart.js';
import { h } from '../../ui/dom.js';
import { fmt } from '../../ui/format.js';
import { meta, PRECISION_VARIANTS } from './meta.js';

const STAGES = ['logits', 'exp', 'weights', 'output'];
const VARIANTS = PRECISION_VARIANTS;
const SERIES = [
  { key: 'current', label: 'current setting', color: 'current' },
  ...VARIANTS.map((v, i) => ({ key: v.id, label: v.label, color: `v${i}` })),
];
const GROUP = SERIES.length + 1; // x slots per stage (one gap)

// The engine reports NaN for the online-vs-two-pass difference when the online softmax is not run.
const diffText = (v) => (typeof v === 'number' && Number.isNaN(v) ? 'n/a (two-pass)' : fmt(v));

export { meta };

export function mount(el, ctx = {}) {
  // The current setting's result, its settings, and the reference variants' results as they arrive.
  const state = { result: null, cfg: null, variantPoints: [] };
  const frame = panelFrame(el, {
    name: 'precision',
    title: 'Precision: where values stop being finite',
    description:
      'Count of NaN or infinite values at each stage, for the current setting and for three softmax variants on the same inputs.',
    legend: SERIES.map((s) => ({
      color: s.color === 'current' ? 'c-current' : `c-${s.color}`,
      label: s.label,
      kind: 'box',
    })),
    readouts: [
      { stat: 'nonFinite.logits', label: 'non-finite logits' },
      { stat: 'nonFinite.exp', label: 'non-finite exp' },
      { stat: 'nonFinite.weights', label: 'non-finite weights' },
      { stat: 'nonFinite.output', label: 'non-finite outputs' },
      { stat: 'firstNonFiniteStage', label: 'first stage to break', format: (v) => v ?? 'none' },
      { stat: 'onlineMaxAbsDiff', label: 'online vs two-pass, max |Δ|', format: (v) => diffText(v) },
      { stat: 'nonFiniteRows', label: 'rows with a non-finite value' },
      // Not at fp32, whose largest finite value is far off every logit (the caption still gives it).
      { stat: 'largestFinite', label: 'largest finite value', when: () => state.cfg?.precision !== 'fp32' },
    ],
    exports: {
      png: () => [{ u: chart.u }],
      csv: () => ({ rows: csvRows(state) }),
      gif: () => ({ mount, schema: ctx.schema, client: ctx.client, cfg: state.cfg, variants: meta.variants }),
    },
  });

  const chart = buildStageChart(frame, state, ctx);
  // Focusable: on a phone the table scrolls sideways, and a keyboard must be able to scroll it too.
  const table = h('table', { class: 'variants', tabindex: '0' });
  frame.body.append(table);
  const draw = () => {
    const sources = [state.result, ...VARIANTS.map((_, i) => state.variantPoints[i])];
    chart.setData(stageColumns(sources));
    renderVariantsTable(table, sources);
  };

  const api = {
    update(r, c) {
      state.result = r;
      state.cfg = c;
      frame.setStats(r);
      describeCurrent(frame, r, c);
      draw();
    },
    variantsReset() {
      state.variantPoints = [];
      el.classList.add('is-stale');
      draw();
    },
    variantPoint(i, p) {
      state.variantPoints[i] = p;
      el.classList.remove('is-stale');
      draw();
    },
    variantsDone() {
      el.classList.remove('is-stale');
    },
    // The page's job (meta.js): its reset and its messages.
    jobReset() {
      api.variantsReset();
    },
    jobMessage(m) {
      if (m.type === 'variantPoint') api.variantPoint(m.index, m.point);
      else if (m.type === 'variantsDone') api.variantsDone();
    },
    redraw: () => chart.redraw(),
    destroy: () => chart.destroy(),
  };
  return api;
}

// One CSV row per softmax that has a result: its non-finite counts per stage and how it broke.
function csvRows({ result, variantPoints }) {
  const rows = [
    ['variant', ...STAGES.map((s) => `nonFinite_${s}`), 'firstNonFiniteStage', 'onlineMaxAbsDiff', 'entropy'],
  ];
  const all = [[SERIES[0].label, result], ...VARIANTS.map((v, i) => [v.label, variantPoints[i]])];
  for (const [label, p] of all)
    if (p)
      rows.push([
        label,
        ...STAGES.map((s) => p.nonFinite?.[s]),
        p.firstNonFiniteStage ?? 'none',
        p.onlineMaxAbsDiff,
        p.entropy,
      ]);
  return rows;
}

const XS = Array.from({ length: STAGES.length * GROUP }, (_, i) => i);

// Grouped bars: one group per stage, one bar per softmax (the current setting first).
function buildStageChart(frame, state, ctx) {
  const series = [{}];
  for (const [k, s] of SERIES.entries()) {
    series.push({
      label: s.label,
      stroke: (u) => u.pal[s.color] ?? u.pal.fg,
      fill: (u) => u.pal[s.color] ?? u.pal.fg,
      width: 0,
      paths: uPlot.paths.bars({ size: [0.92, 40], align: 0 }),
      points: { show: false },
      _slot: k,
    });
  }
  return createChart(frame.body, {
    label:
      'Bar chart of non-finite value counts per attention stage, for the current setting and three softmax variants',
    aspect: 0.3,
    makeOpts: () => ({
      scales: {
        x: { time: false, range: [-1, STAGES.length * GROUP - 1] },
        y: { range: (u, lo, hi) => [0, Math.max(1, hi) * 1.1] },
      },
      axes: [
        axis({
          label: 'stage',
          size: 40,
          splits: () => STAGES.map((_, i) => i * GROUP + (SERIES.length - 1) / 2),
          values: () => STAGES,
          grid: { show: false },
        }),
        axis({
          label: 'non-finite values',
          size: 56,
          values: (u, s) => s.map((v) => (v == null ? '' : fmt(v, 3))),
        }),
      ],
      series,
    }),
    data: [XS, ...SERIES.map(() => XS.map(() => null))],
    onDraw: (u) => {
      if (!state.result) return;
      const all = [state.result, ...state.variantPoints].filter(Boolean);
      if (all.every((p) => STAGES.every((st) => !p.nonFinite?.[st]))) drawAllFinite(u, all.length);
      ctx.onDrawn?.('precision');
    },
  });
}

// Nothing to plot is itself the finding: say it inside the plot.
function drawAllFinite(u, computed) {
  const { ctx: c, bbox } = u;
  c.save();
  c.fillStyle = u.pal.muted;
  const text = `No NaN or infinite value at any stage (${computed} of ${SERIES.length} computed)`;
  let px = 13;
  c.font = `${px * devicePixelRatio}px system-ui, sans-serif`;
  const w = c.measureText(text).width;
  if (w > bbox.width * 0.94) {
    px = Math.max(8, (px * bbox.width * 0.94) / w);
    c.font = `${px * devicePixelRatio}px system-ui, sans-serif`;
  }
  c.textAlign = 'center';
  c.textBaseline = 'middle';
  c.fillText(text, bbox.left + bbox.width / 2, bbox.top + bbox.height / 2);
  c.restore();
}

// The chart's data: each softmax's counts in its own slot of every stage's group.
function stageColumns(sources) {
  const data = [XS];
  SERIES.forEach((s, k) => {
    const col = XS.map(() => null);
    const p = sources[k];
    if (p)
      STAGES.forEach((st, i) => {
        col[i * GROUP + k] = p.nonFinite?.[st] ?? 0;
      });
    data.push(col);
  });
  return data;
}

function renderVariantsTable(table, sources) {
  table.replaceChildren(
    h('caption', { text: 'Same Q, K, V and precision; only the softmax changes.' }),
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        h('th', { scope: 'col', text: 'softmax' }),
        h('th', { scope: 'col', text: 'first stage to break' }),
        h('th', { scope: 'col', text: 'non-finite weights' }),
        h('th', { scope: 'col', text: 'online vs two-pass max |Δ|' }),
      ),
    ),
    h(
      'tbody',
      {},
      ...SERIES.map((s, k) => {
        const p = sources[k];
        return h(
          'tr',
          {},
          h('th', { scope: 'row', text: s.label }),
          h('td', { text: p ? (p.firstNonFiniteStage ?? 'none') : '…' }),
          h('td', { text: p ? fmt(p.nonFinite?.weights) : '…' }),
          h('td', { text: p ? diffText(p.onlineMaxAbsDiff) : '…' }),
        );
      }),
    ),
  );
}

// Caption and summary: where exp overflows in this precision, and the first stage that broke.
function describeCurrent(frame, r, c) {
  const lf = r.largestFinite;
  frame.caption.textContent =
    `${c.precision}: largest finite value ${fmt(lf, 4)}, so exp(x) overflows for x above ln(max) ≈ ${fmt(Math.log(lf), 4)}. ` +
    (r.firstNonFiniteStage
      ? `In the current setting the first non-finite values appear at the ${r.firstNonFiniteStage} stage.`
      : 'In the current setting every value stays finite.');
  frame.setSummary(
    `${c.precision}, ${c.subtractMax ? 'max subtracted' : 'no max subtraction'}, ${c.softmax} softmax: non-finite values ` +
      `${STAGES.map((s) => `${s} ${fmt(r.nonFinite?.[s] ?? 0)}`).join(', ')}; ${r.firstNonFiniteStage ? `first broken stage: ${r.firstNonFiniteStage}.` : 'every value stays finite.'}`,
  );
}
