// The training panel's heatmaps: the attention weights of one fixed example under each copy, in
// the heatmap panel's colours, redrawn from the Worker's latest maps.
import { createChart, axis, readPalette } from '../../charts/uplot-chart.js';
import { drawImageInPlot } from '../../charts/plot-marks.js';
import { FLOOR, rampRgb, tOf, cssRgb } from '../../charts/weight-colors.js';
import { h } from '../../ui/dom.js';
import { axisNum } from '../../ui/format.js';
import { copyLabel } from './train-state.js';

const WAITING = 'Press Play or Step: the copies’ attention patterns appear here.';

/** One canvas of n × n pixels from the weights `w` (non-finite ones in the palette's colour). */
function paintWeights(w, n, nonFinite) {
  const canvas = document.createElement('canvas');
  canvas.width = n;
  canvas.height = n;
  const g = canvas.getContext('2d');
  const img = g.createImageData(n, n);
  for (let i = 0; i < n * n; i++) {
    const v = w[i];
    const rgb = Number.isFinite(v) ? rampRgb(tOf(v)) : nonFinite;
    img.data[4 * i] = rgb[0];
    img.data[4 * i + 1] = rgb[1];
    img.data[4 * i + 2] = rgb[2];
    img.data[4 * i + 3] = 255;
  }
  g.putImageData(img, 0, 0);
  return canvas;
}

/**
 * createTrainingHeat(body, el, T) appends the heatmaps' title, grid and caption to `body`; `el`
 * is the panel (its palette), `T()` the run's sequence length.
 * → { charts, build(copies, scale, trainSchema), paint(heat), clear() }; heat: { T, maps: { copy:
 * weights }, step }.
 */
export function createTrainingHeat(body, el, T) {
  const title = h('h4', {
    class: 'subchart',
    text: 'Attention of one fixed example (row = query, column = key; colour = weight, log scale)',
  });
  const grid = h('div', { class: 'train-heat' });
  const caption = h('p', { class: 'caption', text: WAITING });
  body.append(title, grid, caption);
  let charts = [];
  let copiesKey = '';

  function heatChart(copy, scale, trainSchema) {
    const label = copyLabel(copy, scale, trainSchema);
    const box = h('div', { class: 'train-heat-cell' }, h('p', { class: 'train-heat-label', text: label }));
    grid.append(box);
    let image = null;
    const chart = createChart(box, {
      label: `Attention weights of the fixed example under the ${label} copy`,
      aspect: (w) => w - 4,
      minH: 180,
      maxH: 280,
      maxW: 280,
      makeOpts: () => ({
        padding: [4, 6, 0, 0],
        scales: { x: { time: false, range: () => [0, T()] }, y: { range: () => [0, T()], dir: -1 } },
        axes: [
          axis({ side: 2, size: 26, values: (u, s) => s.map(axisNum) }),
          axis({ side: 3, size: 30, scale: 'y', values: (u, s) => s.map(axisNum) }),
        ],
        series: [{}, { stroke: 'transparent', points: { show: false } }],
      }),
      data: [
        [0, 1],
        [0, 1],
      ],
      onDraw: (u) => {
        if (!image) return;
        drawImageInPlot(u, image);
      },
    });
    return {
      copy,
      label,
      chart,
      setImage(img) {
        image = img;
      },
    };
  }

  return {
    get charts() {
      return charts;
    },
    /** One heatmap per copy (kept while the copies and the custom scale stay the same). */
    build(copies, scale, trainSchema) {
      const key = copies.join(',') + (typeof scale === 'number' ? `:${scale}` : '');
      if (key === copiesKey) return;
      copiesKey = key;
      for (const c of charts) c.chart.destroy();
      grid.replaceChildren();
      charts = copies.map((copy) => heatChart(copy, scale, trainSchema));
    },
    paint(heat) {
      if (!heat) return;
      for (const hc of charts) {
        const w = heat.maps[hc.copy];
        if (!w) continue;
        const n = heat.T;
        hc.setImage(paintWeights(w, n, cssRgb(readPalette(el).nonfinite)));
        hc.chart.setData([
          [0, n],
          [0, n],
        ]);
      }
      caption.textContent = `At step ${heat.step}. The same ${heat.T} × ${heat.T} example for every copy; colours from ${FLOOR} (dark) to 1 (yellow) on a log scale, as in the attention weights panel. A trained copy puts each row’s weight on the one key its query asks for.`;
    },
    /** No maps yet: empty plots and the waiting caption. */
    clear() {
      for (const hc of charts) {
        hc.setImage(null);
        hc.chart.redraw();
      }
      caption.textContent = WAITING;
    },
  };
}
