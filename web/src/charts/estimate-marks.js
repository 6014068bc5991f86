// How a sweep chart marks the points that are still estimates: a hollow point, and a bar of ±2
// standard errors where it is at least BAR_MIN_PX long (a shorter one would hide under the point).
const BAR_MIN_PX = 3;
const POINT_RADIUS = 3.5;

/** The canvas y of `v` on scale `key`, or the plot's bottom edge below a log scale's range. */
function yPos(u, v, key) {
  const sc = u.scales[key];
  if (sc.distr === 3 && !(v > 0)) return u.bbox.top + u.bbox.height;
  return u.valToPos(v, key, true);
}

/**
 * Draws the marks of every estimate in `store` for each layer that has an `se` (sweep-chart.js's
 * layer spec): in the scaling's colour, or the layer's own.
 */
export function drawEstimateMarks(u, store, layers, scales) {
  if (!store.estimateCount()) return;
  const dks = store.dks();
  const dpr = devicePixelRatio;
  const { ctx, bbox } = u;
  const xs = u.scales.x;
  ctx.save();
  ctx.lineWidth = 1.5 * dpr;
  ctx.beginPath();
  ctx.rect(bbox.left, bbox.top, bbox.width, bbox.height);
  ctx.clip();
  for (const layer of layers) {
    if (!layer.se) continue;
    const key = layer.scale ?? 'y';
    for (const s of scales) {
      ctx.strokeStyle = u.pal[layer.color ?? s];
      for (const dk of dks) {
        const p = store.estimateAt(s, dk);
        if (!p || !(dk >= xs.min && dk <= xs.max)) continue;
        const v = layer.value(p);
        if (!Number.isFinite(v) || (layer.positive && !(v > 0))) continue;
        const x = u.valToPos(dk, 'x', true);
        const y = yPos(u, v, key);
        const se = layer.se(p);
        if (Number.isFinite(se) && se > 0) {
          const top = yPos(u, v + 2 * se, key);
          const bottom = yPos(u, v - 2 * se, key);
          if (Math.abs(bottom - top) >= BAR_MIN_PX * dpr) {
            ctx.beginPath();
            ctx.moveTo(x, top);
            ctx.lineTo(x, bottom);
            ctx.moveTo(x - 3 * dpr, top);
            ctx.lineTo(x + 3 * dpr, top);
            ctx.moveTo(x - 3 * dpr, bottom);
            ctx.lineTo(x + 3 * dpr, bottom);
            ctx.stroke();
          }
        }
        if (layer.points) {
          ctx.fillStyle = u.pal.bg;
          ctx.beginPath();
          ctx.arc(x, y, POINT_RADIUS * dpr, 0, 2 * Math.PI);
          ctx.fill();
          ctx.stroke();
        }
      }
    }
  }
  ctx.restore();
}
