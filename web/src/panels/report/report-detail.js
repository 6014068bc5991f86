// One head of the report in full: the page's own logit-spread and attention-weight charts driven
// by its real q and k, its rows' entropy and largest weight, and where each format stops being
// finite with and without max subtraction.
import { createChart, axis } from '../../charts/uplot-chart.js';
import { h } from '../../ui/dom.js';
import { fmt } from '../../ui/format.js';
import { scaleLabel } from '../../state/choices.js';
import { formatsByRange, isSink, layerLabel, lnMax, noPreferenceSink } from './report-stats.js';

/**
 * mountDetail(host, idPrefix, mountPanel, schema) → { show(head, cfg), report(r), precision(row),
 * hide(), redraw(), destroy() }. `mountPanel(name, el)` → Promise<panel api>: the page's own
 * panels, from the app (a panel does not import another); `schema` the engine's.
 */
export function mountDetail(host, idPrefix, mountPanel, schema) {
  const view = buildDetailBox(idPrefix);
  host.append(view.box);
  // spread, heatmap and rows are made on the first click; cfg is the chosen head's settings.
  const state = { spread: null, heatmap: null, ready: null, rows: null, cfg: null, precisionRows: [] };
  const renderTable = () => renderPrecisionTable(view.table, state.precisionRows, schema);

  return {
    /** A head was chosen: its title now, its charts when its report comes. */
    show({ layerName, head, kvHead, seqLen, dk }, options) {
      view.box.hidden = false;
      mountPagePanels(state, view, mountPanel);
      state.cfg = { ...options, seqLen, dk };
      view.heading.textContent = `Layer ${layerLabel(layerName)}, head ${head} (key head ${kvHead}): T = ${seqLen}, d_k = ${dk}`;
      view.facts.textContent = 'Computing this head in full…';
      state.precisionRows = [];
      renderTable();
    },
    report(r) {
      state.rows ??= makeRowsChart(view.rowsEl);
      state.rows.setData(rowsData(r, state.cfg.causal));
      const result = { ...r, rawLogitStdTheory: r.iidRawLogitStd };
      const at = state.cfg;
      mountPagePanels(state, view, mountPanel).then(() => {
        state.spread.update(result, at);
        state.heatmap.update(result, at);
      });
      view.facts.textContent = factsText(r, state.cfg, schema);
    },
    precision(row) {
      state.precisionRows.push(row);
      renderTable();
    },
    hide() {
      view.box.hidden = true;
    },
    redraw() {
      state.spread?.redraw();
      state.heatmap?.redraw();
      state.rows?.redraw();
    },
    destroy() {
      state.ready?.then(() => {
        state.spread.destroy();
        state.heatmap.destroy();
      });
      state.rows?.destroy();
    },
  };
}

/** The detail section, hidden until a head is chosen, and the parts of it that change. */
function buildDetailBox(idPrefix) {
  const heading = h('h4', { class: 'subchart', 'data-report-detail-title': '' });
  const facts = h('p', { class: 'caption', 'data-report-detail-facts': '' });
  // The two page panels keep their own frames; their data-panel is taken off so that the page's
  // selectors for its charts (one spread, one heatmap, each drawn on load) do not find these copies.
  const spreadEl = h('div', { id: `${idPrefix}spread` });
  const heatmapEl = h('div', { id: `${idPrefix}heatmap` });
  const rowsEl = h(
    'div',
    { class: 'report-rows' },
    h('h4', { class: 'subchart', text: 'Each query row: entropy ÷ ln n (blue) and largest weight (orange)' }),
  );
  const table = h('table', { class: 'report-precision table-scroll', 'data-report-precision': '' });
  const box = h(
    'section',
    { class: 'report-detail', 'data-report-detail': '', hidden: true, 'aria-live': 'polite' },
    heading,
    facts,
    h('div', { class: 'charts two' }, spreadEl, heatmapEl),
    rowsEl,
    h('h4', { class: 'subchart', text: 'Where each format stops being finite, on this head' }),
    table,
  );
  return { box, heading, facts, spreadEl, heatmapEl, rowsEl, table };
}

/** The page's spread and heatmap panels, mounted once (until then the page holds one of each). */
function mountPagePanels(state, view, mountPanel) {
  return (state.ready ??= Promise.all(
    [
      ['spread', view.spreadEl],
      ['heatmap', view.heatmapEl],
    ].map(([part, e]) =>
      mountPanel(part, e).then((api) => {
        delete e.dataset.panel;
        e.dataset.reportPart = part;
        return api;
      }),
    ),
  ).then(([s, hm]) => {
    state.spread = s;
    state.heatmap = hm;
  }));
}

/** Each query row's entropy ÷ ln n and largest weight; made on the first report, since a chart
 * image before then would have nothing to describe. */
function makeRowsChart(rowsEl) {
  return createChart(rowsEl, {
    label: 'Entropy divided by ln n and largest weight of each query row of the chosen head',
    makeOpts: () => ({
      scales: { x: { time: false }, y: { range: [0, 1.02] } },
      axes: [axis({ label: 'query row', size: 40 }), axis({ label: 'fraction', size: 50 })],
      series: [
        {},
        { label: 'entropy ÷ ln n', stroke: (u) => u.pal.sqrt, width: 1.25, points: { show: false } },
        { label: 'largest weight', stroke: (u) => u.pal.none, width: 1.25, points: { show: false } },
      ],
    }),
    data: [[0], [null], [null]],
  });
}

function rowsData(r, causal) {
  const n = r.rowEntropy.length;
  const xs = Array.from({ length: n }, (_, i) => i);
  // A causal row i sees i + 1 keys: its ceiling is ln(i + 1) (row 0 has one key, entropy 0).
  const ceiling = (i) => Math.log(causal ? i + 1 : n);
  return [
    xs,
    Array.from(r.rowEntropy, (e, i) => (ceiling(i) > 0 ? e / ceiling(i) : null)),
    Array.from(r.rowMaxWeight),
  ];
}

/** Key 0's share of the weight and, for a sink, what a sink is. */
function sinkText(r, { seqLen, causal }) {
  const even = noPreferenceSink(seqLen, !!causal);
  const share = `Key 0 takes ${fmt(r.sinkWeight, 3)} of a row's weight on average (${fmt(even, 3)} if every row spread its weight evenly).`;
  if (!isSink(r.sinkWeight, seqLen, !!causal)) return ` ${share}`;
  return (
    ` ${share} This head is an attention sink: its rows park their weight on the first key, whatever the query, ` +
    'as Xiao et al. (2023, “Efficient Streaming Language Models with Attention Sinks”, arXiv 2309.17453) found in trained ' +
    'language models: a head with nothing to look at still has to give its weight somewhere, and the first token, seen by every row, takes it.'
  );
}

function factsText(r, cfg, schema) {
  const { scale } = cfg;
  return (
    `q: mean ${fmt(r.qMean, 3)}, σ ${fmt(r.qStd, 3)}; k: mean ${fmt(r.kMean, 3)}, σ ${fmt(r.kStd, 3)}. ` +
    `σ of q·k ${fmt(r.rawLogitStd, 3)}, against ${fmt(r.iidRawLogitStd, 3)} for independent components with these moments; ` +
    `scaled ${scaleLabel(scale, schema)}: σ ${fmt(r.logitStd, 3)}, largest ${fmt(r.logitMax, 3)}. ` +
    `${fmt(100 * r.saturatedFraction, 3)}% of rows saturated, mean largest weight ${fmt(r.maxWeight, 3)}.` +
    sinkText(r, cfg)
  );
}

/** Each format's ln(max), the head's largest logit against it, and its non-finite counts with and
 * without max subtraction ('…' until that run's row arrives). */
function renderPrecisionTable(table, precisionRows, schema) {
  const byKey = new Map(precisionRows.map((r) => [`${r.precision}|${r.subtractMax}`, r]));
  const cell = (p, sub) => {
    const r = byKey.get(`${p}|${sub}`);
    if (!r) return h('td', { text: '…' });
    const bad = r.nonFinite.weights + r.nonFinite.logits + r.nonFinite.exp;
    return h('td', {
      class: bad ? 'is-bad' : null,
      'data-precision': p,
      'data-subtract-max': String(sub),
      'data-nonfinite': String(bad),
      text: bad ? `${fmt(bad)} non-finite (from ${r.firstNonFiniteStage})` : 'all finite',
    });
  };
  table.replaceChildren(
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        h('th', { text: 'format' }),
        h('th', { text: 'ln(max)' }),
        h('th', { text: 'largest logit ÷ ln(max)' }),
        h('th', { text: 'max not subtracted' }),
        h('th', { text: 'max subtracted' }),
      ),
    ),
    h(
      'tbody',
      {},
      formatsByRange(schema).map((format) => {
        const p = format.value;
        const r = byKey.get(`${p}|true`) ?? byKey.get(`${p}|false`);
        return h(
          'tr',
          {},
          h('th', { text: p }),
          h('td', { text: fmt(lnMax(format), 4) }),
          h('td', { text: r ? fmt(r.logitMax / lnMax(format), 3) : '…' }),
          cell(p, false),
          cell(p, true),
        );
      }),
    ),
  );
}
