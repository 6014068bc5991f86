// The frames of a chart's GIF: the panel's setting at every power of two of d_k, each measured by
// the engine (a session of its own on the page's engine client) and drawn by a copy of the panel
// mounted off screen at the panel's width, so that the reader's charts never change. A sweep
// chart, whose x axis is d_k, shows the measured points up to the frame's d_k on the axes of the
// whole sweep, with its marker at that d_k. Each frame is the PNG download's picture (title,
// legend, charts) in CSS pixels, with the frame's d_k printed on it.
import { composePng } from './png-export.js';
import { panelExports } from './panel-exports.js';
import { readPalette } from '../charts/uplot-chart.js';

const PAD = 12;
const STAMP_FONT = '600 15px system-ui, sans-serif';
const FRAME_MS = 700;
const LAST_FRAME_MS = 2000;

/** After the next frame's layout (or 100 ms, when no frame comes: a hidden page). */
const afterLayout = () =>
  new Promise((resolve) => {
    setTimeout(resolve, 100);
    requestAnimationFrame(() => setTimeout(resolve));
  });
// A task of its own (a message, which no timer clamp delays): what uPlot queued is drawn, and
// the page gets its turn between the parts of a frame, so that none holds its thread for long.
const channel = new MessageChannel();
const nextTask = () =>
  new Promise((resolve) => {
    channel.port1.onmessage = () => resolve();
    channel.port2.postMessage(null);
  });

/**
 * The engine's runs, one at a time: run(cfg) → its result (with the gradients when `gradients`),
 * variants(cfg, list) → their points by index. close() ends the session.
 */
function engineRuns(client, { gradients }) {
  let waiting = null;
  let points = [];
  const settle = (err, value) => {
    const w = waiting;
    waiting = null;
    if (w) err ? w.reject(err) : w.resolve(value);
  };
  const session = client.openSession({
    onRun: (r) => gradients || settle(null, r),
    onRunGradients: (r) => gradients && settle(null, r),
    variantPoint: (m) => (points[m.index] = m.point),
    variantsDone: () => settle(null, points),
    onError: (m) => settle(new Error(m.message)),
  });
  const ask = (send) =>
    new Promise((resolve, reject) => {
      waiting = { resolve, reject };
      send();
    });
  return {
    run: (cfg) => ask(() => session.run(cfg)),
    variants: (cfg, list) =>
      ask(() => ((points = []), session.job('variants', { cfg, variants: list }, { pool: -1 }))),
    close: () => session.close(),
  };
}

/** A copy of the panel in `el`, drawn by `mount` (with the engine's `schema`), off screen at the same width. */
function mountCopy(el, mount, schema) {
  const host = document.createElement(el.tagName);
  host.className = el.className;
  host.id = `${el.id || el.dataset.panel}-gif-copy`;
  host.setAttribute('aria-hidden', 'true');
  host.inert = true;
  Object.assign(host.style, {
    position: 'fixed',
    left: '-20000px',
    top: '0',
    width: getComputedStyle(el).width,
    visibility: 'hidden',
    pointerEvents: 'none',
  });
  el.after(host);
  const api = mount(host, { schema });
  // Not one of the page's panels: whatever looks them up by [data-panel] finds the reader's alone.
  host.dataset.gifCopyOf = host.dataset.panel;
  delete host.dataset.panel;
  return { host, api };
}

/**
 * The picture of the copy's charts at CSS pixels, with `stamp` ("d_k = 64") on it: at the title's
 * right when the widest stamp fits there, else in a line below the charts.
 */
function framePicture(el, host, { title, legend, stamp, widest, pal }) {
  const big = composePng(el, panelExports.get(host).png(), title, legend);
  const dpr = devicePixelRatio || 1;
  const w = Math.round(big.width / dpr),
    h = Math.round(big.height / dpr);
  let c = big.getContext('2d');
  c.font = STAMP_FONT;
  const below = PAD + c.measureText(title).width + 24 + c.measureText(widest).width + PAD > w;
  if (dpr !== 1 || below) {
    // Drawn again at CSS pixels (a GIF is shown at its own size), with room for the stamp.
    const out = document.createElement('canvas');
    out.width = w;
    out.height = h + (below ? 24 : 0);
    c = out.getContext('2d');
    c.fillStyle = pal.bg;
    c.fillRect(0, 0, out.width, out.height);
    c.drawImage(big, 0, 0, w, h);
  }
  c.font = STAMP_FONT;
  c.fillStyle = pal.fg;
  c.textBaseline = 'top';
  c.textAlign = below ? 'left' : 'right';
  c.fillText(stamp, below ? PAD : w - PAD, below ? h : PAD);
  return c.getImageData(0, 0, c.canvas.width, c.canvas.height);
}

/**
 * gifFrames({ el, title, legend, source, dks }) yields { dk, image: ImageData, delay } for each d_k
 * of `dks`. source: the panel's exports.gif() → { mount, schema?, client, cfg, points?, gradients?,
 * variants? }: `points` the sweep's exact points ([scale, point]), `gradients` to wait for each
 * run's backward, `variants` the precision panel's softmax variants, measured at each d_k too.
 */
export async function* gifFrames({ el, title, legend, source, dks }) {
  const { mount, schema, client, cfg, points, gradients = false, variants } = source;
  const runs = engineRuns(client, { gradients });
  const { host, api } = mountCopy(el, mount, schema);
  try {
    if (points) {
      api.sweepReset(points.length, { seqLen: cfg.seqLen });
      for (const [scale, p] of points) api.sweepPoints({ [scale]: p });
      api.reveal(); // every point: the axes of every frame
    }
    await afterLayout();
    const widest = `d_k = ${Math.max(...dks)}`;
    const pal = readPalette(el);
    const ask = (dk) => {
      const p = runs.run({ ...cfg, dk });
      p.catch(() => {}); // awaited below; a frame that is never reached must not report it
      return p;
    };
    let next = ask(dks[0]);
    for (const [k, dk] of dks.entries()) {
      const c = { ...cfg, dk };
      const r = await next;
      const vs = variants ? await runs.variants(c, variants) : null;
      if (k + 1 < dks.length) next = ask(dks[k + 1]); // computed while this frame is drawn
      const steps = [
        points && (() => api.reveal(dk)),
        () => api.update(r, c),
        gradients && (() => api.updateGradients(r, c)),
        vs && (() => (api.variantsReset(), vs.forEach((p, i) => api.variantPoint(i, p)))),
      ];
      for (const step of steps.filter(Boolean)) {
        await nextTask();
        step();
      }
      await nextTask();
      const image = framePicture(el, host, { title, legend, stamp: `d_k = ${dk}`, widest, pal });
      yield { dk, image, delay: k === dks.length - 1 ? LAST_FRAME_MS : FRAME_MS };
    }
  } finally {
    runs.close();
    api.destroy?.();
    host.remove();
  }
}
