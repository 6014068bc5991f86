// The part of the σ, entropy and gradient panels that plots a sweep against d_k: the points of
// every named scaling (the engine's schema lists them) as they arrive, the panel's progress line and stale mark, and the current
// setting (a vertical line at its d_k and a dot at its value).
//
// At large T the sweep's estimates come first (from r of the T query rows, with standard errors):
// they are drawn as hollow points with ±2 SE bars, and each is replaced by its exact point when it
// arrives. The panel says which it shows: data-sweep="estimate" | "exact", data-points-drawn and
// data-points-total on its element. A chart with no estimable curve says, over its plot, that it
// waits for the exact points.
import { createChart, scaleColorKey } from './uplot-chart.js';
import { drawVLine, drawDot } from './plot-marks.js';
import { createSweepStore, gapText } from './sweep-store.js';
import { drawEstimateMarks } from './estimate-marks.js';
import { h } from '../ui/dom.js';
import { scaleLabel, scalingsOf } from '../state/choices.js';

const pointsStyle = (s) => ({ show: true, size: 5, fill: (u) => u.pal[s] });

// Points that arrive between two frames are drawn once, in the next frame: after a busy spell of
// the page's thread (a cold load builds every chart) the Workers' answers wait in its queue, and
// drawing each on its own would cost the four sweep charts a draw per message. A hidden page
// draws no frames; it draws after HIDDEN_WAIT_MS instead.
const HIDDEN_WAIT_MS = 100;

/** The sweep's status line, stale mark, wait notes and data- attributes, from the state `sw`. */
function showProgress(sw) {
  const { store, el, frame } = sw;
  const exact = store.stale ? 0 : store.count();
  const estimates = store.stale ? 0 : store.estimateCount();
  const estimateText = [
    `Estimate from ${store.estimateRows()} of ${sw.seqLen} query rows (hollow points, bars ±2`,
    `standard errors); the exact values replace it point by point: ${exact} of ${sw.total} exact…`,
    sw.estimateNote,
  ];
  let text = '';
  if (estimates) text = estimateText.join(' ').trim();
  else if (exact < sw.total) text = `Sweep: ${exact} of ${sw.total} points computed…`;
  frame.status.textContent = sw.failure || text;
  el.classList.toggle('is-stale', store.stale);
  // A chart drawn from exact points alone is empty while the estimates are shown: it says why.
  for (const note of sw.waitNotes) note.hidden = !(estimates && !exact);
  el.dataset.sweep = estimates ? 'estimate' : 'exact';
  el.dataset.pointsDrawn = String(exact + estimates);
  el.dataset.pointsTotal = String(sw.total);
}

/** The uPlot series of a chart: one per layer and scaling, in that order, then the extra series. */
function chartSeries(layers, extra, swept, schema) {
  const series = [{}];
  for (const layer of layers) {
    for (const s of swept) {
      const color = layer.color ?? s;
      series.push({
        label: `${layer.name}, ${scaleLabel(s, schema)}`,
        stroke: (u) => u.pal[color],
        width: layer.width,
        ...(layer.dash ? { dash: layer.dash } : {}),
        ...(layer.scale ? { scale: layer.scale } : {}),
        points: layer.points ? pointsStyle(s) : { show: false },
      });
    }
  }
  for (const x of extra) series.push(x.series);
  return series;
}

/** Over a chart with no estimable layer: the note that it waits for the first exact point. */
function addWaitNote(sw, c) {
  const note = h(
    'p',
    { class: 'chart-wait', hidden: true, 'data-exact-only': '' },
    'Drawn from exact points only: the first is still being computed.',
  );
  c.box.append(note);
  sw.waitNotes.push(note);
}

/**
 * One chart of the sweep state `sw`. spec: { label, aspect?, scales, axes, layers, extra?, marker:
 * { field, scale? } }. layers: [{ name, value(point), se?(point), positive?, width, dash?, scale?,
 * points?, color? }] — one series per layer and scaling, in that order (colour: the scaling's, or
 * the palette's `color`); a layer with `se` (the standard error of `value` in an estimate) draws the
 * sweep's estimates, one without waits for the exact points;
 * extra: [{ series, column(store, dks) }] — series that follow the layers.
 */
function addChart(sw, host, { label, aspect, scales, axes, layers, extra = [], marker }) {
  const { store, swept, ctx } = sw;
  const series = chartSeries(layers, extra, swept, ctx.schema);
  const c = createChart(host, {
    label,
    layerOnly: true,
    ...(aspect ? { aspect } : {}),
    makeOpts: () => ({ scales, axes, series }),
    data: [[1, 4096], ...series.slice(1).map(() => [null, null])],
    onDraw: (u) => {
      const { cfg, result } = sw.current;
      if (!cfg || !result) return;
      drawVLine(u, cfg.dk, { color: u.pal.current, dash: [2, 3], label: `d_k = ${cfg.dk}` });
      drawEstimateMarks(u, store, layers, swept);
      drawDot(u, cfg.dk, result[marker.field], {
        color: u.pal[scaleColorKey(cfg.scale)],
        ...(marker.scale ? { scale: marker.scale } : {}),
      });
      if (store.count() || store.estimateCount()) ctx.onDrawn?.(sw.name);
    },
  });
  const columns = (dks) => [
    ...layers.flatMap((layer) =>
      swept.map((s) =>
        store.column(s, dks, layer.value, { positive: !!layer.positive, estimate: !!layer.se }),
      ),
    ),
    ...extra.map((x) => x.column(store, dks)),
  ];
  sw.charts.push({ c, columns });
  if (!layers.some((layer) => layer.se)) addWaitNote(sw, c);
  return c;
}

/**
 * createSweepCharts(el, frame, { name, ctx, gapValue, estimateNote, onDone }) → { chart(host,
 * spec), setCurrent(result, cfg), sweepReset(n, { seqLen }), sweepPoints(points, { estimate }),
 * sweepDone(), failed(message), store, … }. After new points are drawn, the panel's gap line names
 * the scalings whose `gapValue(point)` is not finite; `estimateNote` follows the status line while
 * estimates are drawn; `ctx.schema` names the scalings swept; `ctx.onDrawn(name)` reports a drawn
 * chart; `onDone()` runs once the sweep is complete.
 */
export function createSweepCharts(
  el,
  frame,
  { name, ctx = {}, gapValue, estimateNote = '', onDone = () => {} },
) {
  frame.status.classList.add('keeps-line'); // its progress comes and goes: the line stays
  const swept = scalingsOf(ctx.schema).map((c) => c.value); // the named scalings, each a curve
  const store = createSweepStore(swept);
  const sw = {
    el,
    frame,
    name,
    ctx,
    estimateNote,
    swept,
    store,
    charts: [], // { c, columns(dks) } per chart
    current: { result: null, cfg: null },
    total: 0,
    seqLen: 0,
    failure: '',
    waitNotes: [], // one per chart without an estimable layer
    pending: null, // { frame, timer, done }: the draw of the points that came since the last one
  };

  function draw() {
    const dks = store.dks();
    if (!dks.length) return;
    for (const { c, columns } of sw.charts) c.setData([dks, ...columns(dks)]);
    frame.gaps.textContent = gapText(store.nonFiniteScales(gapValue).map((s) => scaleLabel(s, ctx.schema)));
  }
  /** Takes the pending draw off the frame and the timer: → it, or null if none was pending. */
  function takePending() {
    const p = sw.pending;
    sw.pending = null;
    if (p) {
      cancelAnimationFrame(p.frame);
      clearTimeout(p.timer);
    }
    return p;
  }
  function flush() {
    const p = takePending();
    if (!p) return;
    draw();
    showProgress(sw);
    if (p.done) onDone();
  }
  function drawSoon() {
    sw.pending ??= {
      frame: requestAnimationFrame(flush),
      timer: setTimeout(flush, HIDDEN_WAIT_MS),
      done: false,
    };
  }

  return {
    store,
    chart: (host, spec) => addChart(sw, host, spec),
    /** The current setting: repaints the marker (the curves and axes stay as they are). */
    setCurrent(result, cfg) {
      sw.current = { result, cfg };
      for (const { c } of sw.charts) c.redrawLayer();
    },
    /** A new sweep of `n` points over `seqLen` query rows (its estimates name how many they sampled). */
    sweepReset(n, { seqLen: rows = 0 } = {}) {
      flush();
      sw.total = n;
      sw.seqLen = rows;
      sw.failure = '';
      store.reset();
      showProgress(sw);
    },
    sweepPoints(points, { estimate = false } = {}) {
      for (const [scale, p] of Object.entries(points)) store.add(scale, p, { estimate });
      drawSoon();
    },
    sweepDone() {
      if (sw.pending) sw.pending.done = true;
      else {
        showProgress(sw);
        onDone();
      }
    },
    /** The sweep stopped (`message` says why): the points so far, or the last sweep, stay drawn. */
    failed(message) {
      flush();
      sw.failure = message;
      showProgress(sw);
    },
    /**
     * Draws the points up to `maxDk` alone, on the axes of the last draw (all the points, and new
     * axes, without `maxDk`): a GIF's frames reveal the sweep one d_k at a time.
     */
    reveal(maxDk = Infinity) {
      takePending();
      const dks = store.dks();
      for (const { c, columns } of sw.charts)
        c.setData(
          [dks, ...columns(dks).map((col) => col.map((v, i) => (dks[i] <= maxDk ? v : null)))],
          maxDk === Infinity,
        );
    },
    redraw() {
      for (const { c } of sw.charts) c.redraw();
    },
    destroy() {
      takePending();
      for (const { c } of sw.charts) c.destroy();
    },
  };
}
