// The colour scale of attention weights, shared by the heatmap panel and the training panel's
// heatmaps: viridis over log10(weight), from FLOOR (dark) to 1 (yellow). No DOM.
export const FLOOR = 1e-4; // weights below this (including an underflowed 0) share the darkest colour
// viridis, 9 stops
const STOPS = [
  [68, 1, 84],
  [71, 44, 122],
  [59, 81, 139],
  [44, 113, 142],
  [33, 144, 141],
  [39, 173, 129],
  [92, 200, 99],
  [170, 220, 50],
  [253, 231, 37],
];

export function rampRgb(t) {
  const x = Math.min(1, Math.max(0, t)) * (STOPS.length - 1);
  const i = Math.min(STOPS.length - 2, Math.floor(x));
  const f = x - i;
  const a = STOPS[i],
    b = STOPS[i + 1];
  return [a[0] + (b[0] - a[0]) * f, a[1] + (b[1] - a[1]) * f, a[2] + (b[2] - a[2]) * f];
}

const LOG_FLOOR = Math.log10(FLOOR); // once, not per cell (the same value every time)
export const tOf = (p) => (Math.log10(Math.max(p, FLOOR)) - LOG_FLOOR) / -LOG_FLOOR;

/** A #rrggbb colour as [r, g, b] (magenta for anything else, so that a missing colour shows). */
export function cssRgb(color) {
  const m = /^#([0-9a-f]{6})$/i.exec(color);
  if (!m) return [255, 0, 255];
  const n = parseInt(m[1], 16);
  return [(n >> 16) & 255, (n >> 8) & 255, n & 255];
}

/**
 * The colour of every float32 weight by its upper 16 bits (sign, exponent, 7 mantissa bits), as
 * little-endian RGBA words for a Uint32Array view of ImageData: table[bits >>> 16]. NaN and ±∞
 * (exponent all ones) get `nonFinite` ([r, g, b]). Each entry is the colour of its bucket's middle:
 * a bucket spans 2^-7 relative (< 0.002 of log10), under 0.3 of a colour level on the ramp.
 */
export function weightColorTable(nonFinite) {
  const table = new Uint32Array(65536);
  const word = new Uint32Array(1);
  const value = new Float32Array(word.buffer);
  const colorOf = (k) => {
    word[0] = ((k << 16) | 0x8000) >>> 0;
    return rgbaWord(rampRgb(tOf(value[0])));
  };
  // Only the buckets between FLOOR and 1 need a logarithm: every other finite bucket clamps to
  // an end of the ramp (a negative weight, like one below FLOOR, to the darkest colour).
  const dark = rgbaWord(rampRgb(0)),
    bright = rgbaWord(rampRgb(1)),
    bad = rgbaWord(nonFinite);
  const from = floatBucket(FLOOR) - 1,
    to = floatBucket(1) + 1;
  table.fill(dark, 0, from);
  for (let k = from; k <= to; k++) table[k] = colorOf(k);
  table.fill(bright, to + 1, 0x7f80);
  table.fill(dark, 0x8000, 0xff80);
  table.fill(bad, 0x7f80, 0x8000);
  table.fill(bad, 0xff80, 0x10000);
  return table;
}

/** A positive float's bucket in weightColorTable: its upper 16 bits. */
function floatBucket(x) {
  return new Uint32Array(new Float32Array([x]).buffer)[0] >>> 16;
}

/** A colour [r, g, b] (channels rounded) as one little-endian RGBA word (weightColorTable's form). */
export function rgbaWord([r, g, b]) {
  return ((255 << 24) | (Math.round(b) << 16) | (Math.round(g) << 8) | Math.round(r)) >>> 0;
}
