// What a chart draws on its canvas, recorded as SVG instead: a Path2D stand-in whose commands
// become a path's `d`, and a Canvas 2D context whose strokes, fills, clips, text and images become
// SVG elements (text stays <text>). uPlot's path builders draw into the first; the panels' own
// layers (markers, dots, labels, the heatmap's image) into the second. Pure: no DOM needed, so it
// runs in Node (tests/js/export/); images need a canvas's toDataURL.

const n = (v) => String(Math.round(v * 100) / 100);
const TAU = 2 * Math.PI;

/** Escapes text for SVG content and attribute values. */
export const esc = (s) =>
  String(s).replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c],
  );

/** `<tag a="v" …>children</tag>`; null, undefined and false attributes are left out. */
export function tag(name, attrs = {}, children = '') {
  let s = `<${name}`;
  for (const [k, v] of Object.entries(attrs)) if (v != null && v !== false) s += ` ${k}="${esc(v)}"`;
  return children === '' ? `${s}/>` : `${s}>${children}</${name}>`;
}

/** A Path2D that records its commands as SVG path data (`d`). Accepts another one to copy. */
export class PathRecorder {
  constructor(from) {
    this.parts = from instanceof PathRecorder ? [...from.parts] : [];
    this.cur = from?.cur ?? null;
    this.start = from?.start ?? null;
  }
  get d() {
    return this.parts.join('');
  }
  moveTo(x, y) {
    this.parts.push(`M${n(x)} ${n(y)}`);
    this.cur = this.start = [x, y];
  }
  lineTo(x, y) {
    if (!this.cur) return this.moveTo(x, y);
    this.parts.push(`L${n(x)} ${n(y)}`);
    this.cur = [x, y];
  }
  rect(x, y, w, h) {
    this.parts.push(`M${n(x)} ${n(y)}h${n(w)}v${n(h)}h${n(-w)}Z`);
    this.cur = this.start = [x, y];
  }
  closePath() {
    if (!this.cur) return;
    this.parts.push('Z');
    this.cur = this.start;
  }
  bezierCurveTo(a, b, c, d, x, y) {
    if (!this.cur) this.moveTo(a, b);
    this.parts.push(`C${[a, b, c, d, x, y].map(n).join(' ')}`);
    this.cur = [x, y];
  }
  quadraticCurveTo(a, b, x, y) {
    if (!this.cur) this.moveTo(a, b);
    this.parts.push(`Q${[a, b, x, y].map(n).join(' ')}`);
    this.cur = [x, y];
  }
  /** Canvas semantics: a line from the current point to the arc's start, then the arc. */
  arc(x, y, r, a0, a1, ccw = false) {
    const at = (a) => [x + r * Math.cos(a), y + r * Math.sin(a)];
    const [sx, sy] = at(a0);
    if (this.cur) this.lineTo(sx, sy);
    else this.moveTo(sx, sy);
    if (!(r > 0)) return;
    let span = ccw ? a0 - a1 : a1 - a0;
    const sweep = ccw ? 0 : 1;
    if (span >= TAU) {
      // A whole circle: two half arcs (one SVG arc cannot end where it starts).
      const [mx, my] = at(a0 + (ccw ? -Math.PI : Math.PI));
      this.parts.push(
        `A${n(r)} ${n(r)} 0 0 ${sweep} ${n(mx)} ${n(my)}A${n(r)} ${n(r)} 0 0 ${sweep} ${n(sx)} ${n(sy)}`,
      );
      this.cur = [sx, sy];
      return;
    }
    span = ((span % TAU) + TAU) % TAU;
    const [ex, ey] = at(ccw ? a0 - span : a0 + span);
    this.parts.push(`A${n(r)} ${n(r)} 0 ${span > Math.PI ? 1 : 0} ${sweep} ${n(ex)} ${n(ey)}`);
    this.cur = [ex, ey];
  }
  addPath(p) {
    this.parts.push(...p.parts);
  }
}

/** A CSS colour as SVG paint and opacity: rgba(…, a) becomes rgb(…) with its own opacity. */
export function paint(color) {
  const m = /^(rgba?|hsla?)\(([^,)]+),([^,)]+),([^,)]+)(?:,([^)]+))?\)$/.exec(
    String(color).replace(/\s/g, ''),
  );
  if (!m || m[5] === undefined) return { color: String(color), opacity: null };
  return { color: `${m[1].slice(0, 3)}(${m[2]},${m[3]},${m[4]})`, opacity: Number(m[5]) };
}

/** SVG font attributes from a CSS font shorthand such as "600 15px system-ui, sans-serif". */
export function fontAttrs(font) {
  const m = /^\s*(?:(italic|oblique)\s+)?(?:(normal|bold|\d{3})\s+)?([\d.]+)px\s+(.+)$/.exec(font ?? '');
  if (!m) return { style: `font: ${font}` };
  return {
    'font-family': m[4],
    'font-size': m[3],
    'font-weight': m[2] && m[2] !== 'normal' ? m[2] : null,
    'font-style': m[1] ?? null,
  };
}

const ANCHOR = { left: 'start', start: 'start', center: 'middle', right: 'end', end: 'end' };
// Canvas baselines are edges of the em box; SVG's dominant-baseline names them so.
const BASELINE = {
  top: 'text-before-edge',
  bottom: 'text-after-edge',
  middle: 'central',
  hanging: 'hanging',
};

/** The SVG attributes of a <text> drawn at the state's font, alignment and baseline. */
export function textAttrs(state) {
  return {
    ...fontAttrs(state.font),
    'text-anchor': ANCHOR[state.textAlign] === 'start' ? null : ANCHOR[state.textAlign],
    'dominant-baseline': BASELINE[state.textBaseline] ?? null,
  };
}

/** Stroke and fill attributes of a path drawn with `state` (one of them 'none'). */
export function strokeAttrs(color, width, state) {
  const p = paint(color);
  return {
    fill: 'none',
    stroke: p.color,
    'stroke-opacity': p.opacity,
    'stroke-width': n(width),
    'stroke-dasharray': state.dash?.length ? state.dash.map(n).join(' ') : null,
    'stroke-linecap': state.lineCap && state.lineCap !== 'butt' ? state.lineCap : null,
    'stroke-linejoin': state.lineJoin && state.lineJoin !== 'miter' ? state.lineJoin : null,
  };
}
export function fillAttrs(color, rule) {
  const p = paint(color);
  return { fill: p.color, 'fill-opacity': p.opacity, 'fill-rule': rule === 'evenodd' ? 'evenodd' : null };
}

const DEFAULTS = {
  strokeStyle: '#000',
  fillStyle: '#000',
  lineWidth: 1,
  lineCap: 'butt',
  lineJoin: 'miter',
  font: '10px sans-serif',
  textAlign: 'start',
  textBaseline: 'alphabetic',
  globalAlpha: 1,
  imageSmoothingEnabled: true,
  globalCompositeOperation: 'source-over',
};

/**
 * A Canvas 2D context stand-in (see createSvgContext). Transforms apply to points as they are
 * added, as on a canvas (translation, rotation, uniform scale).
 */
class SvgContext {
  #root = { attrs: null, children: [] };
  #group = this.#root;
  #st = { ...DEFAULTS, dash: [], m: [1, 0, 0, 1, 0, 0] }; // m: the transform [a, b, c, d, e, f]
  #stack = [];
  #path = new PathRecorder();
  #measure;
  #ids;

  constructor({ canvas = null, measure = (t, font) => t.length * 0.6 * parseFloat(font), ids }) {
    this.canvas = canvas;
    this.#measure = measure;
    this.#ids = ids;
  }
  get state() {
    return this.#st;
  }
  #pt(x, y) {
    const m = this.#st.m;
    return [m[0] * x + m[2] * y + m[4], m[1] * x + m[3] * y + m[5]];
  }
  #scale() {
    const m = this.#st.m;
    return Math.sqrt(Math.abs(m[0] * m[3] - m[1] * m[2]));
  }
  #put(s) {
    this.#group.children.push(s);
  }
  #alpha() {
    return this.#st.globalAlpha < 1 ? { opacity: n(this.#st.globalAlpha) } : {};
  }
  #mul([a, b, c, d, e, f]) {
    const [A, B, C, D, E, F] = this.#st.m;
    this.#st.m = [
      A * a + C * b,
      B * a + D * b,
      A * c + C * d,
      B * c + D * d,
      A * e + C * f + E,
      B * e + D * f + F,
    ];
  }
  save() {
    this.#stack.push({ st: { ...this.#st, dash: [...this.#st.dash] }, group: this.#group });
  }
  restore() {
    const s = this.#stack.pop();
    if (s) [this.#st, this.#group] = [s.st, s.group];
  }
  setLineDash(d) {
    this.#st.dash = [...d];
  }
  getLineDash() {
    return [...this.#st.dash];
  }
  translate(x, y) {
    this.#mul([1, 0, 0, 1, x, y]);
  }
  scale(x, y) {
    this.#mul([x, 0, 0, y, 0, 0]);
  }
  rotate(a) {
    this.#mul([Math.cos(a), Math.sin(a), -Math.sin(a), Math.cos(a), 0, 0]);
  }
  setTransform(a, b, c, d, e, f) {
    this.#st.m = typeof a === 'object' ? [a.a, a.b, a.c, a.d, a.e, a.f] : [a, b, c, d, e, f];
  }
  resetTransform() {
    this.#st.m = [1, 0, 0, 1, 0, 0];
  }
  beginPath() {
    this.#path = new PathRecorder();
  }
  moveTo(x, y) {
    this.#path.moveTo(...this.#pt(x, y));
  }
  lineTo(x, y) {
    this.#path.lineTo(...this.#pt(x, y));
  }
  rect(x, y, w, h) {
    this.moveTo(x, y);
    this.lineTo(x + w, y);
    this.lineTo(x + w, y + h);
    this.lineTo(x, y + h);
    this.#path.closePath();
  }
  arc(x, y, r, a0, a1, ccw) {
    const rot = Math.atan2(this.#st.m[1], this.#st.m[0]);
    this.#path.arc(...this.#pt(x, y), r * this.#scale(), a0 + rot, a1 + rot, ccw);
  }
  closePath() {
    this.#path.closePath();
  }
  bezierCurveTo(a, b, c, d, x, y) {
    this.#path.bezierCurveTo(...this.#pt(a, b), ...this.#pt(c, d), ...this.#pt(x, y));
  }
  quadraticCurveTo(a, b, x, y) {
    this.#path.quadraticCurveTo(...this.#pt(a, b), ...this.#pt(x, y));
  }
  stroke(p = this.#path) {
    const st = this.#st;
    if (p.d)
      this.#put(
        tag('path', {
          d: p.d,
          ...strokeAttrs(st.strokeStyle, st.lineWidth * this.#scale(), st),
          ...this.#alpha(),
        }),
      );
  }
  fill(p = this.#path, rule) {
    if (typeof p === 'string') [p, rule] = [this.#path, p];
    if (p.d) this.#put(tag('path', { d: p.d, ...fillAttrs(this.#st.fillStyle, rule), ...this.#alpha() }));
  }
  /** Later drawing, until the matching restore(), is clipped: a group with a clip path. */
  clip(p = this.#path) {
    if (typeof p === 'string') p = this.#path;
    const id = this.#ids();
    this.#put(tag('clipPath', { id }, tag('path', { d: p.d })));
    const g = { attrs: { 'clip-path': `url(#${id})` }, children: [] };
    this.#group.children.push(g);
    this.#group = g;
  }
  #rectPath(x, y, w, h) {
    const kept = this.#path;
    this.beginPath();
    this.rect(x, y, w, h);
    const p = this.#path;
    this.#path = kept;
    return p;
  }
  fillRect(x, y, w, h) {
    this.fill(this.#rectPath(x, y, w, h));
  }
  strokeRect(x, y, w, h) {
    this.stroke(this.#rectPath(x, y, w, h));
  }
  clearRect() {}
  measureText(t) {
    return { width: this.#measure(String(t), this.#st.font) };
  }
  fillText(t, x, y) {
    const [a, b, c, d, e, f] = this.#st.m;
    const plain = a === 1 && b === 0 && c === 0 && d === 1;
    const p = paint(this.#st.fillStyle);
    const at = plain
      ? { x: n(x + e), y: n(y + f) }
      : { x: n(x), y: n(y), transform: `matrix(${[a, b, c, d, e, f].map(n).join(' ')})` };
    const paintAttrs = { fill: p.color, 'fill-opacity': p.opacity };
    this.#put(tag('text', { ...at, ...paintAttrs, ...textAttrs(this.#st), ...this.#alpha() }, esc(t)));
  }
  strokeText() {}
  /** A canvas (or anything with toDataURL) drawn at (x, y[, w, h]): a PNG <image>. */
  drawImage(img, x, y, w = img.width, h = img.height) {
    if (typeof img?.toDataURL !== 'function') return;
    const [px, py] = this.#pt(x, y);
    const s = this.#scale();
    const pixelated = this.#st.imageSmoothingEnabled ? null : 'image-rendering: pixelated';
    const box = { x: n(px), y: n(py), width: n(w * s), height: n(h * s) };
    const href = img.toDataURL('image/png');
    this.#put(
      tag('image', { ...box, preserveAspectRatio: 'none', href, style: pixelated, ...this.#alpha() }),
    );
  }
  createImageData(w, h) {
    return new ImageData(w, h);
  }
  putImageData() {}
  /** The drawing as SVG markup. */
  svg() {
    return serialize(this.#root);
  }
}
for (const k of Object.keys(DEFAULTS))
  Object.defineProperty(SvgContext.prototype, k, {
    get() {
      return this.state[k];
    },
    set(v) {
      this.state[k] = v;
    },
  });

/**
 * createSvgContext({ canvas, measure(text, font) → width, ids() → unique id }) → a Canvas 2D
 * context stand-in; `.svg()` returns what was drawn, as SVG markup (clip paths included).
 */
export const createSvgContext = (opts) => new SvgContext(opts);

function serialize(g) {
  const inner = g.children.map((c) => (typeof c === 'string' ? c : serialize(c))).join('');
  return g.attrs ? tag('g', g.attrs, inner || ' ') : inner;
}
