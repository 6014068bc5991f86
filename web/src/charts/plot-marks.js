// What the charts draw on top of uPlot's axes and series, in a draw hook: reference lines with a
// label, a dot, and a cell image over the plot area. Positions come from the uPlot's scales, sizes
// are in CSS pixels times devicePixelRatio (the canvas is in device pixels).

/** Paints a cell image (one pixel per cell) over the plot area, unsmoothed: the heatmaps. */
export function drawImageInPlot(u, image) {
  const { ctx: c, bbox } = u;
  c.save();
  c.imageSmoothingEnabled = false;
  c.drawImage(image, bbox.left, bbox.top, bbox.width, bbox.height);
  c.restore();
}

/** Vertical marker lines with a label, drawn inside the plot area of `u` (in a draw hook). */
export function drawVLine(u, x, { color, dash = [], label, width = 1.5, labelRow = 0 }) {
  const xs = u.scales.x;
  if (!(x >= xs.min && x <= xs.max)) return false;
  const { ctx, bbox } = u;
  const px = Math.round(u.valToPos(x, 'x', true)) + 0.5;
  ctx.save();
  ctx.strokeStyle = color;
  ctx.lineWidth = width * devicePixelRatio;
  ctx.setLineDash(dash.map((d) => d * devicePixelRatio));
  ctx.beginPath();
  ctx.moveTo(px, bbox.top);
  ctx.lineTo(px, bbox.top + bbox.height);
  ctx.stroke();
  if (label) {
    ctx.setLineDash([]);
    ctx.fillStyle = color;
    ctx.font = `${11 * devicePixelRatio}px system-ui, sans-serif`;
    const tw = ctx.measureText(label).width;
    const right = px + 4 * devicePixelRatio + tw > bbox.left + bbox.width;
    ctx.textAlign = right ? 'right' : 'left';
    ctx.textBaseline = 'top';
    ctx.fillText(
      label,
      px + (right ? -4 : 4) * devicePixelRatio,
      bbox.top + (4 + 14 * labelRow) * devicePixelRatio,
    );
  }
  ctx.restore();
  return true;
}

/** A dashed horizontal line of reference at `y`, labelled on a backing box at the right. */
export function drawHLine(u, y, label, { left = false } = {}) {
  const ys = u.scales.y;
  if (!(y >= ys.min && y <= ys.max)) return;
  const { ctx, bbox } = u;
  const py = Math.round(u.valToPos(y, 'y', true)) + 0.5;
  const dpr = devicePixelRatio;
  ctx.save();
  ctx.strokeStyle = u.pal.theory;
  ctx.lineWidth = 1.25 * dpr;
  ctx.setLineDash([6 * dpr, 4 * dpr]);
  ctx.beginPath();
  ctx.moveTo(bbox.left, py);
  ctx.lineTo(bbox.left + bbox.width, py);
  ctx.stroke();
  if (label) {
    // At the right end (the left with `left`: where the data leave room), above the line (below it
    // near the top), on a backing box: curves run through here.
    ctx.setLineDash([]);
    ctx.font = `${11 * dpr}px system-ui, sans-serif`;
    const above = py - bbox.top > 16 * dpr;
    const tw = ctx.measureText(label).width;
    const x1 = left ? bbox.left + 4 * dpr + tw : bbox.left + bbox.width - 4 * dpr;
    const yText = above ? py - 3 * dpr : py + 3 * dpr;
    const hBox = 13 * dpr;
    ctx.fillStyle = u.pal.panel;
    ctx.globalAlpha = 0.85;
    ctx.fillRect(x1 - tw - 3 * dpr, above ? yText - hBox : yText, tw + 6 * dpr, hBox);
    ctx.globalAlpha = 1;
    ctx.fillStyle = u.pal.fg;
    ctx.textAlign = 'right';
    ctx.textBaseline = above ? 'bottom' : 'top';
    ctx.fillText(label, x1, yText);
  }
  ctx.restore();
}

export function drawDot(u, x, y, { color, r = 5, scale = 'y' }) {
  if (!Number.isFinite(x) || !Number.isFinite(y)) return;
  const sx = u.scales.x,
    sy = u.scales[scale];
  if (!(x >= sx.min && x <= sx.max && y >= sy.min && y <= sy.max)) return;
  const { ctx } = u;
  ctx.save();
  ctx.fillStyle = color;
  ctx.strokeStyle = u.pal.bg;
  ctx.lineWidth = 2 * devicePixelRatio;
  ctx.beginPath();
  ctx.arc(u.valToPos(x, 'x', true), u.valToPos(y, scale, true), r * devicePixelRatio, 0, 2 * Math.PI);
  ctx.fill();
  ctx.stroke();
  ctx.restore();
}
