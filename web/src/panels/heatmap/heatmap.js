// Chart 5 — attention heatmap of the current setting: row = query, column = key, colour = weight
// on a log scale. The image is painted into the plot area of a uPlot (its axes give the indices);
// a second small uPlot carries the colour scale. Non-finite weights (NaN/±inf) have their own
// colour; masked (exactly zero) weights another. Large T is max-pooled in the Worker.
import { panelFrame } from '../../frame/panel-frame.js';
import { createChart, axis } from '../../charts/uplot-chart.js';
import { drawImageInPlot } from '../../charts/plot-marks.js';
import { fmt, axisNum } from '../../ui/format.js';
import { scaleLabel } from '../../state/choices.js';
import { meta } from './meta.js';
import { FLOOR, rampRgb, cssRgb, rgbaWord, weightColorTable } from '../../charts/weight-colors.js';
import { weightPair, mountContrast, halfText } from './contrast.js';

export { meta };

export function mount(el, ctx = {}) {
  // The current result and settings, and the painted image with what it is painted from.
  const state = {
    result: null,
    cfg: null,
    image: null, // canvas side×side
    imgData: null,
    colors: null, // weightColorTable for the theme's non-finite colour
    colorKey: '',
  };
  const frame = panelFrame(el, {
    name: 'heatmap',
    title: 'Attention weights',
    description: 'The softmax weights of the current setting: one row per query, one column per key.',
    legend: [
      { color: 'c-nonfinite', label: 'non-finite (NaN or ±inf)', kind: 'box' },
      { color: 'c-masked', label: 'masked (causal)', kind: 'box' },
    ],
    readouts: [
      { stat: 'maxWeight', label: 'mean max weight' },
      { stat: 'entropy', label: 'entropy (nats)' },
      { stat: 'nonFinite.weights', label: 'non-finite weights' },
    ],
    exports: {
      png: () => [
        { u: chart.u },
        ...(other ? [{ u: other.chart.u, title: other.text() }] : []),
        { u: bar.u, title: 'weight (log scale)' },
      ],
      csv: () => ({ rows: csvRows(state) }),
      gif: () => ({ mount, schema: ctx.schema, client: ctx.client, cfg: state.cfg }),
    },
  });

  // The page's heatmap may stand beside its contrast, the other choice of scale (contrast.js).
  const pair = el.hasAttribute('data-contrast') ? weightPair(frame.body) : null;
  const compact = !!pair;
  const chart = buildWeightChart(pair?.mine.host ?? frame.body, state, ctx, { compact });
  const other = pair
    ? mountContrast(pair.other, ctx, {
        buildChart: (host, st) => buildWeightChart(host, st, ctx, { compact }),
        paint: paintWeights,
      })
    : null;
  const bar = buildColourBar(frame);
  const paint = () => paintWeights(state, chart);

  return {
    update(r, c) {
      state.result = r;
      state.cfg = c;
      paint();
      frame.setStats(r);
      frame.caption.textContent = captionText(r, c);
      // Same T: same axes, only the image changed.
      if (chart.data[0][1] === c.seqLen) chart.redrawLayer();
      else
        chart.setData([
          [0, c.seqLen],
          [0, c.seqLen],
        ]);
      if (pair) {
        pair.mine.title.textContent = `Your setting: ${halfText(c.scale, r, ctx.schema)}`;
        other.follow(c);
      }
      frame.setSummary(
        summaryText(r, c, ctx.schema) +
          (other?.text() ? ` Beside it, ${other.text().replace('\n', ': ')}.` : ''),
      );
    },
    // The full redraw reads the new theme's colours first; the image is then painted with them.
    redraw: () => {
      chart.redraw();
      paint();
      chart.redrawLayer();
      bar.redraw();
      other?.redraw();
    },
    destroy: () => {
      chart.destroy();
      bar.destroy();
      other?.destroy();
    },
  };
}

// The heatmap's cells as a CSV matrix, headed by what a cell stands for.
function csvRows({ result, cfg }) {
  const rows = [];
  if (result) {
    const { side, block, data } = result.heatmap;
    rows.push([
      `# ${side}x${side} cells; each cell = largest weight of a ${block}x${block} block of the ${cfg.seqLen}x${cfg.seqLen} matrix; rows = queries`,
    ]);
    for (let i = 0; i < side; i++) rows.push(Array.from(data.subarray(i * side, (i + 1) * side)));
  }
  return rows;
}

// The weights' image in the plot area of a square chart whose axes give the query and key indices.
// `compact` (two heatmaps side by side): narrower axes without their titles, for a larger image.
function buildWeightChart(host, state, ctx, { compact = false } = {}) {
  const [ySize, xSize] = compact ? [34, 26] : [50, 40];
  return createChart(host, {
    label: 'Heatmap of attention weights, queries down, keys across',
    layerOnly: true,
    aspect: (w) => w - ySize + xSize, // a square plot area
    minH: compact ? 120 : 200,
    minW: compact ? 120 : 200,
    maxH: 560,
    maxW: 560,
    makeOpts: () => ({
      scales: {
        x: { time: false, range: () => [0, state.cfg?.seqLen ?? 1] },
        y: { range: () => [0, state.cfg?.seqLen ?? 1], dir: -1 },
      },
      axes: compact
        ? [axis({ side: 2, size: xSize }), axis({ side: 3, size: ySize, scale: 'y' })]
        : [
            axis({ label: 'key index', side: 2, size: xSize }),
            axis({ label: 'query index', side: 3, size: ySize, scale: 'y' }),
          ],
      series: [{}, { label: 'frame', stroke: 'transparent', points: { show: false } }],
    }),
    data: [
      [0, 1],
      [0, 1],
    ],
    onDraw: (u) => {
      if (!state.image) return;
      drawImageInPlot(u, state.image);
      ctx.onDrawn?.('heatmap');
    },
  });
}

// The colour scale under the heatmap: the weight ramp on a log axis from FLOOR to 1.
function buildColourBar(frame) {
  const barCaption = document.createElement('p');
  barCaption.className = 'subchart';
  barCaption.textContent = 'Colour scale: weight, log scale';
  frame.body.append(barCaption);
  return createChart(frame.body, {
    label: 'Colour scale of the heatmap: weights from 0.0001 to 1 on a log scale',
    aspect: 0.1,
    minH: 56,
    maxH: 60,
    maxW: 560,
    makeOpts: () => ({
      padding: [4, 16, 0, 28],
      scales: { x: { time: false, distr: 3, log: 10, range: [FLOOR, 1] }, y: { range: [0, 1] } },
      axes: [
        axis({
          size: 26,
          grid: { show: false },
          values: (u, sp) => sp.map((v) => (v == null ? '' : v <= FLOOR ? '≤ 1e-4' : axisNum(v))),
        }),
        { show: false },
      ],
      series: [{}, { stroke: 'transparent', points: { show: false } }],
    }),
    data: [
      [FLOOR, 1],
      [0, 1],
    ],
    onDraw: drawRamp,
  });
}

function drawRamp(u) {
  const { ctx: c, bbox } = u;
  const w = Math.max(1, Math.round(bbox.width));
  const img = c.createImageData(w, 1);
  for (let i = 0; i < w; i++) {
    const [r, g, b] = rampRgb(i / (w - 1));
    img.data.set([r, g, b, 255], i * 4);
  }
  const tmp = document.createElement('canvas');
  tmp.width = w;
  tmp.height = 1;
  tmp.getContext('2d').putImageData(img, 0, 0);
  c.save();
  c.imageSmoothingEnabled = true;
  c.drawImage(tmp, bbox.left, bbox.top, bbox.width, bbox.height);
  c.restore();
}

// Paints the current result's cells into state.image in the colours of the chart's theme.
function paintWeights(state, chart) {
  if (!state.result) return;
  const { side, data } = state.result.heatmap;
  const pal = chart.palette();
  const nonFin = cssRgb(pal.nonfinite);
  const masked = cssRgb(pal.masked);
  if (!state.image || state.image.width !== side) {
    state.image = document.createElement('canvas');
    state.image.width = side;
    state.image.height = side;
  }
  const c = state.image.getContext('2d');
  if (!state.imgData || state.imgData.width !== side) state.imgData = c.createImageData(side, side);
  const key = `${nonFin}`;
  if (state.colorKey !== key) {
    state.colors = weightColorTable(nonFin);
    state.colorKey = key;
  }
  const { colors } = state;
  const px = new Uint32Array(state.imgData.data.buffer);
  const bits = new Uint32Array(data.buffer, data.byteOffset, data.length);
  // Masked = above the diagonal under a causal mask (a whole block, when pooled). A weight that
  // is 0 for any other reason (exp underflow) is just the smallest weight: the darkest colour.
  const maskedWord = rgbaWord(masked);
  for (let row = 0; row < side; row++) {
    const from = row * side,
      visible = state.cfg?.causal ? row + 1 : side;
    for (let i = from; i < from + visible; i++) px[i] = colors[bits[i] >>> 16];
    if (visible < side) px.fill(maskedWord, from + visible, from + side);
  }
  c.putImageData(state.imgData, 0, 0);
}

function captionText(r, c) {
  const { side, block } = r.heatmap;
  return block > 1
    ? `T = ${c.seqLen} is shown as ${side}×${side} cells; each cell shows the largest weight of its ${block}×${block} block (a cell is non-finite if any weight in it is).`
    : `All ${c.seqLen}×${c.seqLen} weights, one cell each.`;
}

function summaryText(r, c, schema) {
  const bad = r.nonFinite?.weights ?? 0;
  return (
    `Attention weights, ${c.seqLen} × ${c.seqLen}, at d_k = ${c.dk} with scaling ${scaleLabel(c.scale, schema)}${c.causal ? ', causal mask' : ''}: ` +
    `a row's largest weight averages ${fmt(r.maxWeight, 3)}; ${fmt(100 * r.saturatedFraction, 3)}% of rows put more than 0.99 on one key` +
    (bad ? `; ${fmt(bad)} weights are NaN or infinite.` : '.')
  );
}
