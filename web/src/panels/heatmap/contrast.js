// The heatmap beside its contrast: the same queries and keys with the other choice of scale (none
// when the page scales the logits, 1/√d_k when it does not), so the rows that collapse to one bright
// cell without the scale are on screen next to the ones that stay spread. Shown where the page's
// element asks for it (data-contrast); measured by the panel's own Worker job (heatmap-job.js).
import { h } from '../../ui/dom.js';
import { fmt } from '../../ui/format.js';
import { scaleLabel } from '../../state/choices.js';

/** The scale the contrast uses for the page's `scale`. */
export const contrastScale = (scale) => (scale === 'none' ? 'sqrt' : 'none');

/** A half's title: its scaling and how peaked its rows are. */
export const halfText = (scale, s, schema) =>
  `${scaleLabel(scale, schema)}\nlargest weight ${fmt(s.maxWeight, 3)} on average, ` +
  `${fmt(100 * s.saturatedFraction, 3)}% of rows saturated`;

/** Two titled halves side by side in `body`: { mine, other }, each { title, host }. */
export function weightPair(body) {
  const half = () => {
    const title = h('p', { class: 'heatmap-half-title', text: '\u00a0' });
    const host = h('div', { class: 'heatmap-half-chart' });
    return { title, host, el: h('div', { class: 'heatmap-half' }, title, host) };
  };
  const mine = half();
  const other = half();
  body.append(h('div', { class: 'heatmap-pair' }, mine.el, other.el));
  return { mine, other };
}

/**
 * The contrast half: mountContrast(half, ctx, { buildChart(host, state), paint(state, chart) }) →
 * { follow(cfg), chart, state, text(), redraw(), destroy() }. follow(cfg) asks for the contrast of
 * the page's `cfg` (again only when it changed).
 */
export function mountContrast(half, ctx, { buildChart, paint }) {
  const state = { result: null, cfg: null, image: null, imgData: null, colors: null, colorKey: '' };
  const chart = buildChart(half.host, state);
  let asked = '';
  let text = '';
  const show = (m) => {
    state.result = { heatmap: m.heatmap };
    state.cfg = m.cfg;
    paint(state, chart);
    chart.setData([
      [0, m.cfg.seqLen],
      [0, m.cfg.seqLen],
    ]);
    text = halfText(m.cfg.scale, m.stats, ctx.schema);
    half.title.textContent = `The other scale: ${text}`;
    half.el.dataset.contrastScale = m.cfg.scale;
  };
  const session = ctx.client?.openSession({
    contrastWeights: show,
    onError: (m) => {
      half.title.textContent = `The other scale: ${scaleLabel(JSON.parse(asked).scale, ctx.schema)}\ncould not be measured (${m.message})`;
    },
  });
  return {
    chart,
    state,
    text: () => text,
    follow(cfg) {
      const other = { ...cfg, scale: contrastScale(cfg.scale) };
      const key = JSON.stringify(other);
      if (key === asked) return;
      asked = key;
      session?.job('heatmapContrast', { cfg: other }, { pool: -1 }); // the last sweep Worker, as the variants'
    },
    redraw() {
      chart.redraw();
      paint(state, chart);
      chart.redrawLayer();
    },
    destroy() {
      session?.close();
      chart.destroy();
    },
  };
}
