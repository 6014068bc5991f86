// One uPlot chart as SVG, read from uPlot's own state after its last draw, in its canvas's pixels
// and in the order uPlot paints: each axis (its label, tick labels, ticks, grid), then each series
// (fill and stroke clipped to the plot, then its points), then the panel's layer (createChart's
// onDraw, kept on the uPlot as `u.layer`) drawn into a recording context. The geometry of the
// series is uPlot's: its path builders run again with a Path2D that records SVG path data.
// Bands, time axes and rotated tick labels are not used by these charts and not drawn.
import { PathRecorder, createSvgContext, tag, esc, textAttrs, strokeAttrs, fillAttrs } from './svg-canvas.js';

const round3 = (v) => Math.round(v * 1000) / 1000;

/** uPlot's getOuterIdxs: the series' data range, widened to the nearest values outside the view. */
function outerIdxs(ydata, i0, i1) {
  const last = ydata.length - 1;
  let a = Math.min(Math.max(i0 - 1, 0), last);
  let b = Math.min(Math.max(i1 + 1, 0), last);
  while (ydata[a] == null && a > 0) a--;
  while (ydata[b] == null && b < last) b++;
  return [a, b];
}

/** Runs `fn` with Path2D standing for the recorder (uPlot's builders call `new Path2D()`). */
function recording(fn) {
  const saved = globalThis.Path2D;
  globalThis.Path2D = PathRecorder;
  try {
    return fn();
  } finally {
    globalThis.Path2D = saved;
  }
}

function axisSvg(u, i, px, out) {
  const axis = u.axes[i];
  if (!axis.show || !axis._show) return;
  const { side } = axis;
  const ori = side % 2;
  const { left, top, width, height } = u.bbox;
  const color = axis.stroke(u, i);
  const shiftDir = side === 0 || side === 3 ? -1 : 1;
  const [incr, space] = axis._found ?? [0, 0];
  if (axis.label != null) {
    const pos = Math.round((axis._lpos + axis.labelGap * shiftDir) * px);
    const label = typeof axis.label === 'function' ? axis.label(u, i, incr, space) : axis.label;
    const at =
      ori === 1
        ? {
            x: 0,
            y: 0,
            transform: `translate(${pos} ${Math.round(top + height / 2)}) rotate(${side === 3 ? -90 : 90})`,
          }
        : { x: Math.round(left + width / 2), y: pos };
    const base = side === 2 ? 'top' : 'bottom';
    const t = textAttrs({ font: axis.labelFont[0], textAlign: 'center', textBaseline: base });
    out.push(tag('text', { ...at, fill: color, ...t, class: 'axis-label' }, esc(label)));
  }
  if (!space || !axis._splits) return;
  const splits = axis._splits;
  const tickShow = axis.ticks.show;
  const tickSize = Math.round((tickShow ? axis.ticks.size : 0) * px);
  const gap = Math.round(
    (axis.alignTo === 2 ? axis._size - (tickShow ? axis.ticks.size : 0) - axis.gap : axis.gap) * px,
  );
  const basePos = Math.round(axis._pos * px);
  const finalPos = basePos + (tickSize + gap) * shiftDir;
  const offs = splits.map((v) => Math.round(u.valToPos(v, axis.scale, true)));
  const align =
    axis.align === 1
      ? 'left'
      : axis.align === 2
        ? 'right'
        : ori === 0
          ? 'center'
          : side === 3
            ? 'right'
            : 'left';
  const t = textAttrs({
    font: axis.font[0],
    textAlign: align,
    textBaseline: ori === 1 ? 'middle' : side === 2 ? 'top' : 'bottom',
  });
  const lineHeight = axis.font[1] * (axis.lineGap ?? 1.5);
  axis._values.forEach((val, k) => {
    if (val == null || val === '') return;
    String(val)
      .split('\n')
      .forEach((part, j) => {
        const x = ori === 0 ? offs[k] : finalPos;
        const y = (ori === 0 ? finalPos : offs[k]) + j * lineHeight;
        out.push(tag('text', { x, y, fill: color, ...t, class: 'tick-label' }, esc(part)));
      });
  });
  const lines = (filts, sideOf, pos0, len, w, stroke, dash, cls) => {
    if (!(w > 0)) return;
    const pos1 = pos0 + (sideOf === 0 || sideOf === 3 ? -len : len);
    const off = (w % 2) / 2;
    let d = '';
    offs.forEach((o, k) => {
      if (filts[k] == null) return;
      d += ori === 0 ? `M${o + off} ${pos0 + off}V${pos1 + off}` : `M${pos0 + off} ${o + off}H${pos1 + off}`;
    });
    if (d) out.push(tag('path', { d, ...strokeAttrs(stroke, w, { dash }), class: cls }));
  };
  const filt = (f) => f(u, splits, i, space, incr);
  if (tickShow)
    lines(
      filt(axis.ticks.filter),
      side,
      basePos,
      tickSize,
      round3(axis.ticks.width * px),
      axis.ticks.stroke(u, i),
      axis.ticks.dash,
      'tick',
    );
  const { grid } = axis;
  if (grid.show)
    lines(
      filt(grid.filter),
      ori === 0 ? 2 : 1,
      ori === 0 ? top : left,
      ori === 0 ? height : width,
      round3(grid.width * px),
      grid.stroke(u, i),
      grid.dash,
      'grid',
    );
}

/** One drawn path of a series (or of its points): fill, then stroke, each clipped as uPlot clips. */
function pathSvg(paths, style, clips, id, out) {
  if (!paths) return;
  const { stroke, fill, _stroke = style.stroke, _fill = style.fill, _width = style.width } = paths;
  const w = round3(_width * style.px);
  let fillStyle = _fill;
  if (style.points && fillStyle == null) fillStyle = w > 0 ? '#fff' : _stroke;
  const off = !style.points && style.pxAlign === 1 && (w % 2) / 2 > 0 ? (w % 2) / 2 : 0;
  const each = (p, c, f) => (p instanceof Map ? p.forEach((pp, cc) => f(pp, cc)) : p && c && f(p, c));
  let body = '';
  each(fill, fillStyle, (p, c) => (body += p.d ? tag('path', { d: p.d, ...fillAttrs(c) }) : ''));
  if (w > 0)
    each(stroke, _stroke, (p, c) => {
      if (p.d)
        body += tag('path', {
          d: p.d,
          ...strokeAttrs(c, w, { dash: style.dash, lineCap: style.cap, lineJoin: 'round' }),
        });
    });
  if (!body) return;
  if (off) body = tag('g', { transform: `translate(${off} ${off})` }, body);
  for (const c of [...clips, paths.clip].filter(Boolean).reverse()) {
    const cid = id();
    out.push(tag('clipPath', { id: cid }, tag('path', { d: c.d })));
    body = tag('g', { 'clip-path': `url(#${cid})` }, body);
  }
  out.push(tag('g', { class: style.points ? 'points' : 'series', 'data-series': style.label ?? null }, body));
}

function seriesSvg(u, i, px, id, out) {
  const s = u.series[i];
  if (!s.show || !s.paths) return;
  const [i0, i1] = u.series[0].idxs ?? [0, u.data[0].length - 1];
  const [a, b] = outerIdxs(u.data[i], i0, i1);
  const paths = recording(() => s.paths(u, i, a, b));
  const w = round3(s.width * px);
  const { left, top, width, height } = u.bbox;
  const bounds = new PathRecorder();
  bounds.rect(left - w / 2, top - w / 2, width + w, height + w);
  const style = {
    stroke: s._stroke,
    fill: s._fill,
    width: s.width,
    px,
    dash: s.dash,
    cap: s.cap,
    pxAlign: s.pxAlign,
    label: s.label,
  };
  pathSvg(paths, style, [bounds], id, out);
  const pts = s.points;
  if (!pts?.paths) return;
  const show = pts.show(u, i, i0, i1, paths?.gaps ?? null);
  const idxs = pts.filter(u, i, show, paths?.gaps ?? null);
  if (!show && !idxs) return;
  const p = recording(() => pts.paths(u, i, i0, i1, idxs));
  pathSvg(
    p,
    {
      stroke: pts._stroke,
      fill: pts._fill,
      width: pts.width,
      px,
      dash: pts.dash,
      cap: pts.cap,
      points: true,
    },
    [],
    id,
    out,
  );
}

/**
 * chartSvg(u, { px, measure, prefix }) → { width, height, body }: the chart `u` as SVG markup in
 * its canvas's pixels (`px` canvas pixels per CSS pixel); `width` and `height` in CSS pixels.
 * `measure(text, font)` sizes text for the layer's alignment; ids start with `prefix`.
 */
export function chartSvg(u, { px, measure, prefix = 'c' }) {
  let k = 0;
  const id = () => `${prefix}${k++}`;
  const axes = [];
  const series = [];
  u.axes.forEach((_, i) => axisSvg(u, i, px, axes));
  for (let i = 1; i < u.series.length; i++) seriesSvg(u, i, px, id, series);
  let layer = '';
  if (typeof u.layer === 'function') {
    const rec = createSvgContext({ canvas: u.ctx?.canvas ?? null, measure, ids: id });
    u.layer(Object.create(u, { ctx: { value: rec } }));
    layer = rec.svg();
  }
  const body =
    tag('g', { class: 'axes' }, axes.join('') || ' ') +
    tag('g', { class: 'data' }, series.join('') || ' ') +
    (layer ? tag('g', { class: 'layer' }, layer) : '');
  return { width: u.width, height: u.height, body };
}
