// One head of the report in full: the page's own logit-spread and attention-weight charts driven
// by its real q and k, its rows' entropy and largest weight, and where each format stops being
// finite with and without max subtraction.
import { createChart, axis } from '../../charts/uplot-chart.js';
import { h } from '../../ui/dom.js';
import { fmt } from '../../ui/format.js';
import { scaleLabel } from '../../state/choices.js';
import { formatsByRange, layerLabel, lnMax } from './report-stats.js';

/**
 * mountDetail(host, idPrefix, mountPanel, schema) → { show(head, cfg), report(r), precision(row),
 * hide(), redraw(), destroy() }. `mountPanel(name, el)` → Promise<panel api>: the page's own
 * panels, from the app (a panel does not import another); `schema` the engine's.
 */
export function mountDetail(host, idPrefix, mountPanel, schema) {
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
  const table = h('table', { class: 'report-precision', 'data-report-precision': '' });
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
  host.append(box);
  // Mounted on the first click: until then the page holds one spread and one heatmap panel.
  let spread = null;
  let heatmap = null;
  let ready = null;
  const mountPanels = () =>
    (ready ??= Promise.all(
      [
        ['spread', spreadEl],
        ['heatmap', heatmapEl],
      ].map(([part, e]) =>
        mountPanel(part, e).then((api) => {
          delete e.dataset.panel;
          e.dataset.reportPart = part;
          return api;
        }),
      ),
    ).then(([s, hm]) => {
      spread = s;
      heatmap = hm;
    }));
  // Also made on the first click: a chart image before then would have nothing to describe.
  let rows = null;
  const rowsChart = () =>
    (rows ??= createChart(rowsEl, {
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
    }));
  let cfg = null;
  let precisionRows = [];

  function renderTable() {
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

  return {
    /** A head was chosen: its title now, its charts when its report comes. */
    show({ layerName, head, kvHead, seqLen, dk }, options) {
      box.hidden = false;
      mountPanels();
      cfg = { ...options, seqLen, dk };
      heading.textContent = `Layer ${layerLabel(layerName)}, head ${head} (key head ${kvHead}): T = ${seqLen}, d_k = ${dk}`;
      facts.textContent = 'Computing this head in full…';
      precisionRows = [];
      renderTable();
    },
    report(r) {
      const n = r.rowEntropy.length;
      const xs = Array.from({ length: n }, (_, i) => i);
      // A causal row i sees i + 1 keys: its ceiling is ln(i + 1) (row 0 has one key, entropy 0).
      const ceiling = (i) => Math.log(cfg.causal ? i + 1 : n);
      const rowsData = [
        xs,
        Array.from(r.rowEntropy, (e, i) => (ceiling(i) > 0 ? e / ceiling(i) : null)),
        Array.from(r.rowMaxWeight),
      ];
      rowsChart().setData(rowsData);
      const result = { ...r, rawLogitStdTheory: r.iidRawLogitStd };
      const at = cfg;
      mountPanels().then(() => {
        spread.update(result, at);
        heatmap.update(result, at);
      });
      facts.textContent =
        `q: mean ${fmt(r.qMean, 3)}, σ ${fmt(r.qStd, 3)}; k: mean ${fmt(r.kMean, 3)}, σ ${fmt(r.kStd, 3)}. ` +
        `σ of q·k ${fmt(r.rawLogitStd, 3)}, against ${fmt(r.iidRawLogitStd, 3)} for independent components with these moments; ` +
        `scaled ${scaleLabel(cfg.scale, schema)}: σ ${fmt(r.logitStd, 3)}, largest ${fmt(r.logitMax, 3)}. ` +
        `${fmt(100 * r.saturatedFraction, 3)}% of rows saturated, mean largest weight ${fmt(r.maxWeight, 3)}.`;
    },
    precision(row) {
      precisionRows.push(row);
      renderTable();
    },
    hide() {
      box.hidden = true;
    },
    redraw() {
      spread?.redraw();
      heatmap?.redraw();
      rows?.redraw();
    },
    destroy() {
      ready?.then(() => {
        spread.destroy();
        heatmap.destroy();
      });
      rows?.destroy();
    },
  };
}
