// The height an embed takes once its panels are drawn, at the width it is given, from the heights
// measured in panel-heights.js, laid out as the component and embed.html lay out their panels. The
// snippets reserve it before any script runs (as a CSS length of the element's own width), so the
// author's text below the element or the frame stays where it is while the charts load; embed.html
// keeps the room for its panels so that its own line under them does not move. Pure: no DOM.
import { WIDTHS, PANEL_HEIGHTS, FOOT, CONTROLS } from './panel-heights.js';

const REM = 16;
const GAP = 0.9 * REM; // the panels' grid gap (component.css, embed.css)
const MIN_PANEL = 30 * REM; // a column of the grid: minmax(min(100%, 30rem), 1fr)
const SETTINGS_COLUMN = 19 * REM + GAP; // the settings beside the charts, from SIDE_SETTINGS_FROM
const SIDE_SETTINGS_FROM = 820;
const FRAME_PADDING = REM; // embed.html's padding around its content (0.5rem each side)
/** Above the measured heights: text that wraps a little sooner in another browser. */
const MARGIN = 4;

/**
 * A table over WIDTHS at width w: the larger of the two measured widths around w. Text wraps in
 * steps between them, so neither a line through them nor the nearer one bounds it from above.
 */
function at(table, w) {
  const i = WIDTHS.findIndex((x) => x > w);
  if (i === -1) return table[table.length - 1];
  return i === 0 ? table[0] : Math.max(table[i - 1], table[i]);
}

/** The columns of the panels' grid at content width w (auto-fit: no more than there are panels). */
const columns = (n, w) => Math.min(n, Math.max(1, Math.floor((w + GAP) / (MIN_PANEL + GAP))));

/** The panels' rows at width w: each as tall as its tallest panel, with the gaps between. */
function panelsHeight(panels, w) {
  const cols = columns(panels.length, w);
  const pw = (w - (cols - 1) * GAP) / cols;
  let total = (Math.ceil(panels.length / cols) - 1) * GAP;
  for (let i = 0; i < panels.length; i += cols)
    total += Math.max(
      ...panels.slice(i, i + cols).map((p) => at(PANEL_HEIGHTS[p] ?? PANEL_HEIGHTS.spread, pw)),
    );
  return total;
}

/** null, or which settings: 'main' (d_k and the scaling) or 'all' (any other list). */
const settingsKind = (controls) =>
  !controls || !controls.length ? null : controls.join(',') === 'dk,scale' ? 'main' : 'all';

/** The panels and settings of an element of width w, without the line under them (px). */
export function bodyHeight(panels, w, controls = null) {
  const kind = settingsKind(controls);
  if (kind && w >= SIDE_SETTINGS_FROM)
    return Math.max(CONTROLS[kind], panelsHeight(panels, w - SETTINGS_COLUMN));
  return panelsHeight(panels, w) + (kind ? CONTROLS.dock : 0);
}

/** The component <attn-scale-demo> at width w, the line under its panels included (px). */
export const elementHeight = (panels, w, controls = null) =>
  bodyHeight(panels, w, controls) + at(FOOT, w) + MARGIN;

/** embed.html in a frame w wide (px). */
export const frameHeight = (panels, w, controls = null) =>
  elementHeight(panels, w - FRAME_PADDING, controls) + FRAME_PADDING;

/** Widths at which the layout changes at once: the panels' columns, the settings' place. */
function breakpoints(n, controls, offset) {
  const bps = [];
  const side = !!settingsKind(controls);
  for (let c = 2; c <= Math.min(n, 4); c++) {
    const w = c * MIN_PANEL + (c - 1) * GAP + offset;
    bps.push(w);
    if (side) bps.push(w + SETTINGS_COLUMN);
  }
  if (side) bps.push(SIDE_SETTINGS_FROM + offset);
  return bps.sort((a, b) => a - b);
}

/** Widths at which the measured tables step (at() changes there): each measured width, as a panel's or the element's. */
function stepWidths(n, controls, offset) {
  const out = [];
  for (const t of WIDTHS) {
    out.push(t + offset); // the line under the panels
    for (let c = 1; c <= Math.min(n, 4); c++) {
      const w = c * t + (c - 1) * GAP + offset;
      out.push(w);
      if (settingsKind(controls)) out.push(w + SETTINGS_COLUMN);
    }
  }
  return out;
}

const px = (x) => `${Math.round(x * 10) / 10}px`;
const num = (x) => String(Math.round(x * 1000) / 1000);

/**
 * The function `height(w)` as a CSS length of the containing block's width (a percentage in
 * padding is one of its width): a line through knots that stays above `height` (within TOLERANCE)
 * at every width from 240 to 1600 px, with a knot each side of every breakpoint where the layout
 * jumps. → e.g. 'calc(1200px - 0.5 * (100% - 240px) + 2.1 * max(0px, 100% - 480px) …)'.
 */
const TOLERANCE = 20;
const ABOVE = 40; // and at most this far above it
function cssOfWidth(height, bps, steps = []) {
  // Whole widths only: either side of each step of the tables and of each breakpoint.
  const set = new Set();
  for (let w = 240; w <= 1600; w += 20) set.add(w);
  for (const t of [...steps, ...bps]) if (t > 240 && t < 1600) set.add(Math.ceil(t) - 1).add(Math.ceil(t));
  const candidates = [...set].sort((a, b) => a - b);
  const value = (w) => Math.ceil(height(w));
  const at1 = []; // height at each whole px from 240 to 1600
  for (let w = 240; w <= 1600; w++) at1.push(height(w));
  const fits = (a, b) => {
    const [va, vb] = [value(a), value(b)];
    if (bps.some((x) => x > a && x <= b)) return false; // never across a jump
    for (let w = a; w <= b; w++) {
      const line = va + ((vb - va) * (w - a)) / (b - a);
      const h = at1[w - 240];
      if (line < h - TOLERANCE || line > h + ABOVE) return false;
    }
    return true;
  };
  // Greedy: from each knot, the farthest candidate that the line to it still fits.
  const knots = [candidates[0]];
  let i = 0;
  while (i < candidates.length - 1) {
    let j = i + 1;
    while (j + 1 < candidates.length && fits(candidates[i], candidates[j + 1])) j += 1;
    knots.push(candidates[j]);
    i = j;
  }
  const values = knots.map(value);
  const slopes = knots.slice(1).map((k, n) => (values[n + 1] - values[n]) / (k - knots[n]));
  const terms = [px(values[0]), `${num(slopes[0])} * (100% - ${px(knots[0])})`];
  for (let n = 1; n < knots.length; n++) {
    const change = (slopes[n] ?? 0) - slopes[n - 1]; // flat beyond the last knot
    if (Math.abs(change) >= 1e-4) terms.push(`${num(change)} * max(0px, 100% - ${px(knots[n])})`);
  }
  return `calc(${terms.join(' + ').replace(/\+ -/g, '- ')})`;
}

/** The component's height for these panels and settings, as a CSS length of its width. */
export const elementCss = (panels, controls = null) =>
  cssOfWidth(
    (w) => elementHeight(panels, w, controls),
    breakpoints(panels.length, controls, 0),
    stepWidths(panels.length, controls, 0),
  );

/** embed.html's, as a CSS length of the frame's width. */
export const frameCss = (panels, controls = null) =>
  cssOfWidth(
    (w) => frameHeight(panels, w, controls),
    breakpoints(panels.length, controls, FRAME_PADDING),
    stepWidths(panels.length, controls, FRAME_PADDING),
  );

/** A panel alone, as a CSS length of its own width (the page reserves each panel's room with it). */
export const panelCss = (name) => cssOfWidth((w) => at(PANEL_HEIGHTS[name], w), [], WIDTHS);
