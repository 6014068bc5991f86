// A panel's charts as one SVG file, laid out as the PNG download is (png-export.js): title,
// legend, then every chart with its subtitle, in the page's colours. Vector throughout: lines,
// points and axes are paths, every word is <text>; only a heatmap's cells stay an image.
import { download } from '../ui/dom.js';
import { readPalette, uPlot } from '../charts/uplot-chart.js';
import { legendDash } from './png-export.js';
import { chartSvg } from './svg-chart.js';
import { tag, esc, fontAttrs, strokeAttrs } from './svg-canvas.js';

const PAD = 12;
const TITLE_H = 24;
const ROW_H = 18;
const FONT = 'system-ui, sans-serif';

/**
 * panelSvg({ title, legend, charts: [{ u, title? }], pal, colorOf(name), px, measure }) → SVG markup.
 * `pal`: readPalette's colours; `colorOf('c-raw')` a legend entry's colour; `px` canvas pixels per
 * CSS pixel of the charts.
 */
export function panelSvg({ title, legend, charts, pal, colorOf, px, measure }) {
  const drawn = charts.map((c, i) => ({
    ...chartSvg(c.u, { px, measure, prefix: `k${i}-` }),
    title: c.title,
  }));
  const width = Math.max(400, ...drawn.map((c) => c.width)) + 2 * PAD;
  const legendH = legend.length ? ROW_H * Math.ceil(legend.length / 3) : 0;
  const parts = [
    tag('rect', { width: '100%', height: '100%', fill: pal.bg }),
    tag(
      'text',
      {
        x: PAD,
        y: PAD,
        fill: pal.fg,
        'dominant-baseline': 'text-before-edge',
        class: 'title',
        ...fontAttrs(`600 15px ${FONT}`),
      },
      esc(title),
    ),
  ];
  const inner = width - 2 * PAD;
  legend.forEach((it, i) => {
    const x = Math.round((PAD + ((i % 3) * inner) / 3) * 100) / 100;
    const y = PAD + TITLE_H + Math.floor(i / 3) * ROW_H;
    const color = colorOf(it.color) || pal.fg;
    const dash = legendDash(it);
    const swatch =
      it.kind === 'box'
        ? tag('rect', { x, y: y + 3, width: 16, height: 10, fill: color })
        : tag('path', {
            d: it.kind === 'vline' ? `M${x + 9} ${y + 1}v14` : `M${x} ${y + 8}h18`,
            ...strokeAttrs(color, 2.5, { dash }),
          });
    const label = tag(
      'text',
      {
        x: x + 24,
        y: y + 2,
        fill: pal.fg,
        'dominant-baseline': 'text-before-edge',
        ...fontAttrs(`12px ${FONT}`),
      },
      esc(it.label),
    );
    parts.push(tag('g', { class: 'legend-item' }, swatch + label));
  });
  let y = PAD + TITLE_H + legendH;
  for (const c of drawn) {
    if (c.title) {
      parts.push(
        tag(
          'text',
          {
            x: PAD,
            y: y + 2,
            fill: pal.muted,
            'dominant-baseline': 'text-before-edge',
            class: 'subtitle',
            ...fontAttrs(`12px ${FONT}`),
          },
          esc(c.title),
        ),
      );
      y += ROW_H;
    }
    parts.push(tag('g', { class: 'chart', transform: `translate(${PAD} ${y}) scale(${1 / px})` }, c.body));
    y += c.height;
  }
  const height = y + PAD;
  return (
    `<?xml version="1.0" encoding="UTF-8"?>\n` +
    tag(
      'svg',
      { xmlns: 'http://www.w3.org/2000/svg', width, height, viewBox: `0 0 ${width} ${height}`, role: 'img' },
      tag('title', {}, esc(title)) + parts.join(''),
    )
  );
}

let measurer = null;
/** Text width in a canvas's font (the layers place their labels by it). */
function measure(text, font) {
  measurer ??= document.createElement('canvas').getContext('2d');
  measurer.font = font;
  return measurer.measureText(text).width;
}

/** The SVG of what panel `el` shows, downloaded as attnscale-<name>.svg. */
export function exportSvg({ el, name, title, legend, exports }) {
  const cs = getComputedStyle(el);
  const svg = panelSvg({
    title,
    legend,
    charts: exports.png(),
    pal: readPalette(el),
    colorOf: (c) => cs.getPropertyValue(`--${c}`).trim(),
    px: uPlot.pxRatio || devicePixelRatio || 1,
    measure,
  });
  download(new Blob([svg], { type: 'image/svg+xml' }), `attnscale-${name}.svg`);
  return svg;
}
