// A panel's charts as one PNG (title, legend, every chart stacked, in the page's colours).
import { download } from '../ui/dom.js';
import { readPalette } from '../charts/uplot-chart.js';

/** A legend swatch's dash pattern in px (frame/panel-frame.js's legend: `dash`), and its kind's shape. */
const LEGEND_DASHES = Object.freeze({ dashed: [6, 4], dotted: [2, 3], dashdot: [6, 2, 1, 2] });
export const legendDash = (it) => LEGEND_DASHES[it.kind === 'vline' ? 'dotted' : it.dash] ?? [];

/** Compose a PNG: background, title, legend, then every chart canvas of the panel, stacked. */
export function composePng(el, charts, title, legend) {
  const pal = readPalette(el);
  const dpr = devicePixelRatio || 1;
  const canvases = charts.map((c) => c.u.ctx.canvas);
  const width = Math.max(...canvases.map((c) => c.width), 400 * dpr);
  const pad = 12 * dpr;
  const titleH = 24 * dpr;
  const legendH = legend.length ? 18 * dpr * Math.ceil(legend.length / 3) : 0;
  const subH = charts.map((c) => (c.title ? 18 * dpr : 0));
  const height = pad + titleH + legendH + canvases.reduce((a, c, i) => a + c.height + subH[i], 0) + pad;
  const out = document.createElement('canvas');
  out.width = width + 2 * pad;
  out.height = height;
  const ctx = out.getContext('2d');
  ctx.fillStyle = pal.bg;
  ctx.fillRect(0, 0, out.width, out.height);
  ctx.fillStyle = pal.fg;
  ctx.textBaseline = 'top';
  ctx.font = `600 ${15 * dpr}px system-ui, sans-serif`;
  ctx.fillText(title, pad, pad);
  let y = pad + titleH;
  ctx.font = `${12 * dpr}px system-ui, sans-serif`;
  legend.forEach((it, i) => {
    const col = i % 3,
      row = Math.floor(i / 3);
    const x = pad + (col * width) / 3;
    const yy = y + row * 18 * dpr;
    const color = getComputedStyle(el).getPropertyValue(`--${it.color}`).trim() || pal.fg;
    ctx.strokeStyle = color;
    ctx.fillStyle = color;
    ctx.lineWidth = 2.5 * dpr;
    ctx.setLineDash(legendDash(it).map((d) => d * dpr));
    if (it.kind === 'box') ctx.fillRect(x, yy + 3 * dpr, 16 * dpr, 10 * dpr);
    else if (it.kind === 'vline') {
      ctx.beginPath();
      ctx.moveTo(x + 9 * dpr, yy + 1 * dpr);
      ctx.lineTo(x + 9 * dpr, yy + 15 * dpr);
      ctx.stroke();
    } else {
      ctx.beginPath();
      ctx.moveTo(x, yy + 8 * dpr);
      ctx.lineTo(x + 18 * dpr, yy + 8 * dpr);
      ctx.stroke();
    }
    ctx.setLineDash([]);
    ctx.fillStyle = pal.fg;
    ctx.fillText(it.label, x + 24 * dpr, yy + 2 * dpr);
  });
  y += legendH;
  charts.forEach((c, i) => {
    if (c.title) {
      ctx.fillStyle = pal.muted;
      ctx.fillText(c.title, pad, y + 2 * dpr);
      y += subH[i];
    }
    ctx.drawImage(canvases[i], pad, y);
    y += canvases[i].height;
  });
  return out;
}

export function exportPng(el, charts, title, legend, filename) {
  composePng(el, charts, title, legend).toBlob((blob) => blob && download(blob, filename), 'image/png');
}
