// The part of the σ, entropy and gradient panels that plots a sweep against d_k: the points of the
// three scalings as they arrive, the panel's progress line and stale mark, and the current
// setting (a vertical line at its d_k and a dot at its value).
import { createChart, drawVLine, drawDot, scaleColorKey } from './uplot-chart.js';
import { createSweepStore, gapText, SWEEP_SCALES, SCALE_NAMES } from './sweep-store.js';

const pointsStyle = (s) => ({ show: true, size: 5, fill: (u) => u.pal[s] });

/**
 * createSweepCharts(el, frame, { name, ctx, gapValue, onDone }) → { chart(host, spec),
 * setCurrent(result, cfg), sweepReset(n), sweepPoints(points), sweepDone(), failed(message), store,
 * … }. After new points are drawn, the panel's gap line names the scalings whose `gapValue(point)`
 * is not finite; `ctx.onDrawn(name)` reports a drawn chart; `onDone()` runs once the sweep is complete.
 */
export function createSweepCharts(el, frame, { name, ctx = {}, gapValue, onDone = () => {} }) {
  const store = createSweepStore(SWEEP_SCALES);
  const charts = [];
  let current = { result: null, cfg: null };
  let total = 0;
  let failure = '';

  function progress() {
    const n = store.stale ? 0 : store.count();
    frame.status.textContent = failure || (n < total ? `Sweep: ${n} of ${total} points computed…` : '');
    el.classList.toggle('is-stale', store.stale);
  }

  /**
   * One chart. spec: { label, aspect?, scales, axes, layers, extra?, marker: { field, scale? } }.
   * layers: [{ name, value(point), positive?, width, dash?, scale?, points?, color? }] — one series
   * per layer and scaling, in that order (colour: the scaling's, or the palette's `color`);
   * extra: [{ series, column(store, dks) }] — series that follow the layers.
   */
  function chart(host, { label, aspect, scales, axes, layers, extra = [], marker }) {
    const series = [{}];
    for (const layer of layers) {
      for (const s of SWEEP_SCALES) {
        const color = layer.color ?? s;
        series.push({
          label: `${layer.name}, ${SCALE_NAMES[s]}`,
          stroke: (u) => u.pal[color],
          width: layer.width,
          ...(layer.dash ? { dash: layer.dash } : {}),
          ...(layer.scale ? { scale: layer.scale } : {}),
          points: layer.points ? pointsStyle(s) : { show: false },
        });
      }
    }
    for (const x of extra) series.push(x.series);
    const c = createChart(host, {
      label,
      layerOnly: true,
      ...(aspect ? { aspect } : {}),
      makeOpts: () => ({ scales, axes, series }),
      data: [[1, 4096], ...series.slice(1).map(() => [null, null])],
      onDraw: (u) => {
        const { cfg, result } = current;
        if (!cfg || !result) return;
        drawVLine(u, cfg.dk, { color: u.pal.current, dash: [2, 3], label: `d_k = ${cfg.dk}` });
        drawDot(u, cfg.dk, result[marker.field], {
          color: u.pal[scaleColorKey(cfg.scale)],
          ...(marker.scale ? { scale: marker.scale } : {}),
        });
        if (store.count()) ctx.onDrawn?.(name);
      },
    });
    const columns = (dks) => [
      ...layers.flatMap((layer) =>
        SWEEP_SCALES.map((s) => store.column(s, dks, layer.value, { positive: !!layer.positive })),
      ),
      ...extra.map((x) => x.column(store, dks)),
    ];
    charts.push({ c, columns });
    return c;
  }

  function draw() {
    const dks = store.dks();
    if (!dks.length) return;
    for (const { c, columns } of charts) c.setData([dks, ...columns(dks)]);
    frame.gaps.textContent = gapText(store.nonFiniteScales(gapValue));
  }

  return {
    store,
    chart,
    /** The current setting: repaints the marker (the curves and axes stay as they are). */
    setCurrent(result, cfg) {
      current = { result, cfg };
      for (const { c } of charts) c.redrawLayer();
    },
    sweepReset(n) {
      total = n;
      failure = '';
      store.reset();
      progress();
    },
    sweepPoints(points) {
      for (const [scale, p] of Object.entries(points)) store.add(scale, p);
      draw();
      progress();
    },
    sweepDone() {
      progress();
      onDone();
    },
    /** The sweep stopped (`message` says why): the points so far, or the last sweep, stay drawn. */
    failed(message) {
      failure = message;
      progress();
    },
    redraw() {
      for (const { c } of charts) c.redraw();
    },
    destroy() {
      for (const { c } of charts) c.destroy();
    },
  };
}
