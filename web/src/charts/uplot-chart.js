// The uPlot wrapper every chart uses: a responsive, theme-aware chart (createChart), its palette
// read from the page's CSS, the axes (linear, log2 for d_k, log10), and the drawing helpers for
// the layers on top (markers, lines, images). No page globals: everything hangs off the element
// the chart is mounted in, so charts work the same in the page, in a Shadow DOM and in an embed.
import './uplot-locale.js'; // before uPlot: it reads navigator.language when it loads
import uPlot from 'uplot';
import { h } from '../ui/dom.js';
import { axisNum } from '../ui/format.js';
import { addProbe } from './chart-probe.js';

export { uPlot };

const PALETTE_VARS = [
  'bg',
  'fg',
  'muted',
  'grid',
  'panel',
  'c-none',
  'c-sqrt',
  'c-linear',
  'c-custom',
  'c-raw',
  'c-theory',
  'c-current',
  'c-nonfinite',
  'c-warn',
  'c-masked',
  'c-v0',
  'c-v1',
  'c-v2',
  'c-rms_sqrt',
  'c-layer_sqrt',
  'c-none_cap5',
  'c-none_cap50',
  'c-sqrt_logn',
];

/** Chart colours from CSS custom properties on (or inherited by) `el`. */
export function readPalette(el) {
  const cs = getComputedStyle(el);
  const p = {};
  for (const v of PALETTE_VARS) p[v.replace(/^c-/, '')] = cs.getPropertyValue(`--${v}`).trim() || '#888';
  p.font = cs.getPropertyValue('--chart-font').trim() || '12px system-ui, sans-serif';
  p.styled = cs.getPropertyValue('--fg').trim() !== '';
  return p;
}

// The charts under one root (the document, or a component's shadow root) share their colours.
// Reading them costs a style recalculation (~2 ms per slider move here), so they are read once per
// root and kept until a chart is redrawn in full (what a theme change does). A palette read before
// the stylesheet applied (no --fg yet) is not kept.
const palettes = new Map();
function sharedPalette(el) {
  const root = el.getRootNode();
  let p = palettes.get(root);
  if (!p) {
    p = readPalette(el);
    if (p.styled) palettes.set(root, p);
  }
  return p;
}

export const scaleColorKey = (scale) => (typeof scale === 'number' ? 'custom' : scale);

/** Colour with alpha, from a #rrggbb or #rgb CSS value. */
export function alpha(color, a) {
  const m = /^#([0-9a-f]{3}|[0-9a-f]{6})$/i.exec(color);
  if (!m) return color;
  let hex = m[1];
  if (hex.length === 3) hex = [...hex].map((c) => c + c).join('');
  const n = parseInt(hex, 16);
  return `rgba(${(n >> 16) & 255}, ${(n >> 8) & 255}, ${n & 255}, ${a})`;
}

/** Axis options in the current theme (colours resolved at draw time). */
export function axis(extra = {}) {
  return {
    stroke: (u) => u.pal.fg,
    grid: { stroke: (u) => u.pal.grid, width: 1 },
    ticks: { stroke: (u) => u.pal.grid, width: 1, size: 4 },
    font: '11px system-ui, sans-serif',
    labelFont: '12px system-ui, sans-serif',
    ...extra,
  };
}

export const log2Axis = (label) =>
  axis({
    label,
    values: (u, splits) => splits.map((v) => (v == null ? '' : v >= 1024 ? `${v / 1024}k` : String(v))),
    splits: (u) => {
      const [lo, hi] = [u.scales.x.min, u.scales.x.max];
      const out = [];
      if (!Number.isFinite(hi)) return out;
      for (let p = 1; p <= hi * 1.0001; p *= 2) if (p >= lo * 0.9999) out.push(p);
      // every power of two when there is room for its label, else every other one
      const room = u.bbox.width / devicePixelRatio / Math.max(1, out.length);
      return room < 34 ? out.filter((_, i) => i % 2 === 0) : out;
    },
    filter: (u, splits) => splits,
    size: 44,
  });

/**
 * Ticks of a log10 axis: 1…9 times each power of ten in view (only the powers when many decades
 * are; uPlot's filter then labels what fits). Replaces uPlot's default log splits, which never end
 * for some ranges (a tick that is not in its step table is rounded to 0 decimals, i.e. back to 0)
 * and then throw "Invalid array length" after freezing the page for a second or more.
 */
export function log10Splits(u, axisIdx, min, max) {
  const out = [];
  if (!(min > 0) || !(max >= min) || !Number.isFinite(max)) return out;
  const lo = Math.floor(Math.log10(min)),
    hi = Math.ceil(Math.log10(max));
  const mults = hi - lo <= 8 ? [1, 2, 3, 4, 5, 6, 7, 8, 9] : [1]; // labels thinned by uPlot's filter
  const step = Math.max(1, Math.ceil((hi - lo) / 12));
  for (let e = lo; e <= hi; e += step) {
    for (const m of mults) {
      const v = Number((m * 10 ** e).toPrecision(12));
      if (v >= min * (1 - 1e-9) && v <= max * (1 + 1e-9)) out.push(v);
    }
  }
  return out.length >= 2 ? out : [min, max];
}

export const logYAxis = (label) =>
  axis({ label, values: (u, splits) => splits.map(axisNum), splits: log10Splits, size: 56 });

/**
 * A uPlot filling the width of `host`, height from an aspect ratio, redrawn on resize and theme
 * change. `makeOpts()` returns uPlot options without width/height. `onDraw(u)` paints a layer on
 * top (a marker, an image); with `layerOnly`, a copy of the chart as uPlot drew it is kept, so that
 * redrawLayer() repaints that copy and the layer alone: the same pixels as a full draw, without
 * drawing the axes and the series again (a slider move changes only the layer). The copy is made
 * only while layers are being redrawn: copying a canvas makes the browser rasterize it at once,
 * and the many draws of a load or of a sweep's points (setData) would each pay for a copy that no
 * layer uses. So the first redrawLayer() after new data draws in full and keeps the copy.
 */
let lastObservedWidth = 480;

/**
 * Until its uPlot is built, the box takes the height the chart will have at the box's own width,
 * computed by CSS (panels.css: .chart.is-sizing, container query units) from the same formula as
 * size(), so nothing below it moves when the chart arrives and no layout is read here. `aspect` a
 * number or an affine function of the width (w ↦ w − 10); any other gets `guess` as its height.
 */
function presize(box, { aspect, minH, maxH, maxW }, guess) {
  const f = typeof aspect === 'function' ? aspect : (w) => w * aspect;
  const a = f(1001) - f(1000);
  const b = f(1000) - 1000 * a;
  if (Math.abs(f(200) - (200 * a + b)) > 1e-9) {
    box.style.minHeight = `${guess}px`;
    return;
  }
  const w = Number.isFinite(maxW) ? `min(${maxW}px, max(200px, 100cqw))` : 'max(200px, 100cqw)';
  box.style.setProperty('--chart-h', `clamp(${minH}px, calc(${a} * ${w} + ${b}px), ${maxH}px)`);
  box.classList.add('is-sizing');
}

/** A chart's { width, height } at a measured box width: within its bounds, height from its aspect. */
const chartSize =
  ({ aspect, minH, maxH, maxW, minW }) =>
  (measured) => {
    const w = Math.min(maxW, Math.max(minW, measured));
    const hh = typeof aspect === 'function' ? aspect(w) : w * aspect;
    return { width: w, height: Math.round(Math.min(maxH, Math.max(minH, hh))) };
  };

const IDLE_WAIT_MS = 1500;
/** Runs `fn` when the thread is idle, at the latest after IDLE_WAIT_MS (Safari has no requestIdleCallback) → cancel(). */
function whenIdle(fn) {
  if (typeof requestIdleCallback === 'function') {
    const id = requestIdleCallback(fn, { timeout: IDLE_WAIT_MS });
    return () => cancelIdleCallback(id);
  }
  const id = setTimeout(fn, IDLE_WAIT_MS / 3);
  return () => clearTimeout(id);
}

/**
 * A uPlot built now, its element put in `box` and drawn in a later task, or when draw() is called
 * first: → { data it was built with, draw(): the uPlot, its first draw queued in this task's
 * microtasks; cancel() }. `due` is called when the task comes. Until then the box keeps the
 * height reserved for the chart (presize).
 */
function stagePlot(box, options, data, due) {
  let init = null;
  const all = { legend: { show: false }, cursor: { show: false }, ...options };
  const plot = new uPlot(all, data, (_, firstDraw) => (init = firstDraw));
  const timer = setTimeout(due);
  return {
    data,
    draw() {
      clearTimeout(timer);
      box.style.minHeight = '';
      box.classList.remove('is-sizing');
      box.append(plot.root);
      init();
      return plot;
    },
    cancel() {
      clearTimeout(timer);
      plot.destroy();
    },
  };
}

/**
 * The canvas as last fully drawn, kept while only onDraw's layer is redrawn (redrawLayer):
 * { keep(u): the draw hook that copies it, wanted, fresh, canvas }.
 */
function layerBase() {
  const base = { canvas: null, fresh: false, wanted: false };
  base.keep = (u) => {
    base.fresh = base.wanted;
    if (!base.wanted) return;
    const can = u.ctx.canvas;
    if (!base.canvas || base.canvas.width !== can.width || base.canvas.height !== can.height) {
      base.canvas = document.createElement('canvas');
      base.canvas.width = can.width;
      base.canvas.height = can.height;
    }
    copyPixels(base.canvas.getContext('2d'), can);
  };
  return base;
}

/** uPlot's options from `opts` with the hooks every chart has: its palette, its layer, its probe. */
function chartOptions(box, opts, { onDraw, keep }) {
  const hooks = (opts.hooks = opts.hooks ?? {});
  hooks.drawClear = [
    (u) => {
      u.pal = sharedPalette(box);
    },
    ...(hooks.drawClear ?? []),
  ];
  if (onDraw) hooks.draw = [...(hooks.draw ?? []), ...(keep ? [keep] : []), onDraw];
  addProbe(box, opts);
  return opts;
}

export function createChart(
  host,
  {
    label,
    makeOpts,
    data: initialData,
    aspect = 0.5,
    minH = 220, // legible on a phone too
    maxH = 340,
    maxW = Infinity,
    minW = 200,
    onDraw,
    layerOnly = false,
  },
) {
  const box = h('div', { class: 'chart', role: 'img', 'aria-label': label });
  host.append(box);
  const size = chartSize({ aspect, minH, maxH, maxW, minW });
  const base = layerBase();
  const opts = chartOptions(box, makeOpts(), { onDraw, keep: layerOnly && base.keep });

  // The uPlot is built once the box's width is known: in the ResizeObserver's first call, after
  // the layout that follows the panels' mounting and before that frame is painted. Reading the
  // width here instead would lay out the whole page once per chart while the panels are built, and
  // a chart built at a guessed width would be drawn twice. Until then the box keeps the guessed
  // height (no jump in the layout), and the data waits. A box that is never laid out (in a hidden
  // element) gets its uPlot after the first frame, at the width the last chart observed. A chart
  // is built at its first draw (setData, redrawLayer), or when the thread is idle, and drawn in
  // the next task: on a phone each is tens of ms of the reader's thread, and a tap between the
  // two is answered at once. What needs it drawn before then (a resize, an export) draws it now.
  let u = null; // the uPlot, in the box, drawn or about to be in this task's microtasks
  let staged = null; // built, not yet in the box (stagePlot)
  let data = initialData;
  let hasData = false;
  let laidOut = null; // the size from the first observed width, while the data is awaited
  let cancelIdle = () => {};
  let lastW = 0;
  const build = (s) => {
    if (u || staged) return;
    cancelAnimationFrame(fallback.frame);
    clearTimeout(fallback.timer);
    cancelIdle();
    staged = stagePlot(box, { ...opts, ...s }, data, drawn);
    lastW = s.width;
  };
  /** The uPlot, its first draw now if it was staged (in this task's microtasks, with `data`). */
  const drawn = () => {
    if (!staged) return u;
    const first = staged;
    staged = null;
    u = first.draw();
    u.pal = sharedPalette(box);
    u.layer = onDraw; // drawn again into an SVG's recording context (export/svg-chart.js)
    if (first.data !== data) u.setData(data); // data newer than the build: still a single draw
    return u;
  };
  /** A draw is asked for before the first: the uPlot is built now if laid out, else once it is. */
  const drawWanted = () => {
    hasData = true;
    if (laidOut) build(laidOut);
  };
  presize(box, { aspect, minH, maxH, maxW }, size(lastObservedWidth).height);
  const fallback = { frame: 0, timer: 0 };
  fallback.frame = requestAnimationFrame(() => {
    fallback.timer = setTimeout(() => laidOut || build(size(lastObservedWidth)));
  });
  const ro = new ResizeObserver((entries) => {
    const observed = Math.floor(entries[entries.length - 1].contentRect.width);
    if (observed > 0) lastObservedWidth = observed;
    const s = size(observed || lastObservedWidth);
    if (!u && !staged) {
      if (observed <= 0) return;
      laidOut = s;
      if (hasData) build(s);
      else cancelIdle = whenIdle(() => build(laidOut));
    } else if (s.width !== lastW) {
      lastW = s.width;
      drawn().setSize(s);
    }
  });
  ro.observe(box);
  return {
    /** The uPlot; built and drawn now if it was not yet (the caller reads it: an export). */
    get u() {
      if (u) return u;
      build(laidOut ?? size(lastObservedWidth));
      drawn().batch(() => {}); // its first draw at once, not in a microtask after the caller read it
      return u;
    },
    box,
    /** The chart's data: as last set, drawn or about to be. */
    get data() {
      return u ? u.data : data;
    },
    /** The colours the chart draws with. */
    palette: () => sharedPalette(box),
    /** New data; `resetScales` false keeps the axes as they are (uPlot then draws only when asked). */
    setData(d, resetScales = true) {
      base.wanted = false;
      base.fresh = false;
      data = d;
      if (!u)
        drawWanted(); // its first draw takes the data
      else if (resetScales) u.setData(d);
      else {
        u.setData(d, false);
        u.redraw(false, false);
      }
    },
    redraw() {
      palettes.clear();
      u?.redraw(false, true);
    },
    /** Repaint only onDraw's layer (the data, the size and the theme are as last drawn). */
    redrawLayer() {
      if (!u) return drawWanted(); // its first draw draws the layer too
      const can = u.ctx.canvas;
      base.wanted = true;
      const copy = base.canvas;
      if (!base.fresh || copy.width !== can.width || copy.height !== can.height) {
        u.redraw(false, false);
        return;
      }
      copyPixels(u.ctx, copy);
      onDraw(u);
    },
    destroy() {
      cancelAnimationFrame(fallback.frame);
      clearTimeout(fallback.timer);
      cancelIdle();
      ro.disconnect();
      staged?.cancel();
      u?.destroy();
      box.remove();
    },
  };
}

/** Replaces every pixel of ctx's canvas by those of `from` (same size): an exact copy. */
function copyPixels(ctx, from) {
  ctx.save();
  ctx.setTransform(1, 0, 0, 1, 0, 0);
  ctx.globalCompositeOperation = 'copy';
  ctx.globalAlpha = 1;
  ctx.drawImage(from, 0, 0);
  ctx.restore();
}
