// Writes docs/images/page.png, the README's picture of the page: dist/ served on a free local port,
// opened in Debian's headless Chromium (playwright-core; no browser is ever downloaded), captured
// once the first chapter's charts are drawn. Needs a built dist/ (`npm run build`).
//
//   node build-scripts/readme-screenshot.mjs [--out docs/images/page.png] [--query 'dk=128'] [--dist dist]
//   node build-scripts/readme-screenshot.mjs --card [--out web/public/preview-card.png] [--query …]
//
// The picture is the page's first idea at d_k = 128: the settings with the d_k slider, the variance
// argument, and the logit-spread chart where the raw q·k (σ ≈ 11.3) lies wide under the scaled
// logits (σ ≈ 1). It stays under the README's 250 KB: CSS pixels at a device scale factor of 1, one
// clip from the settings to the bottom of that chart, PNG.
//
// --card writes the link-preview image instead (og:image, twitter:image; the build copies it from
// web/public/ to dist/): exactly 1200 × 630 px of the same chart, its title and its plot, drawn at
// the device scale factor that makes the panel fill the card's width, so that its text stays
// legible when a feed shows the card small.
import { stat, mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import { chromium } from 'playwright-core';
// The same static server and Chromium flags as the e2e suite (and measure-budgets.mjs).
import { startServer, repoRoot } from '../tests/e2e/support/serve-dist.js';
import { CHROMIUM, CHROMIUM_ARGS } from '../tests/e2e/support/browser.js';
import { CARD } from './lib/link-preview.js';

const { values: opts } = parseArgs({
  options: {
    card: { type: 'boolean', default: false },
    out: { type: 'string' },
    query: { type: 'string', default: 'dk=128' },
    dist: { type: 'string', default: join(repoRoot, 'dist') },
    width: { type: 'string', default: '1200' },
    height: { type: 'string', default: '900' },
  },
});
const MAX_BYTES = 250 * 1024;
const PANEL = 'spread';
const CARD_MARGIN = 12; // CSS px of the page around the pictured panel
const out =
  opts.out ??
  (opts.card ? join(repoRoot, 'web', 'public', CARD.file) : join(repoRoot, 'docs', 'images', 'page.png'));

/** A page of dist/ at `scale` device pixels per CSS pixel, once the pictured panel has drawn the query. */
async function openDrawn(browser, url, { width, height, scale }) {
  const context = await browser.newContext({
    viewport: { width, height },
    deviceScaleFactor: scale,
    colorScheme: 'light',
    reducedMotion: 'reduce',
  });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`${url}?${opts.query}`);
  await page.waitForFunction(() => document.getElementById('app')?.dataset.state === 'ready', null, {
    timeout: 120000,
  });
  await page.evaluate(() => document.fonts.ready);
  // The pictured panel has drawn the requested setting and waits for nothing.
  const query = new URLSearchParams(opts.query);
  await page.waitForFunction(
    ({ wanted, name }) => {
      const app = document.getElementById('app');
      const shown = new URLSearchParams(app?.dataset.resultQuery ?? '');
      const panel = document.querySelector(`[data-panel="${name}"]`);
      return (
        app?.dataset.state === 'ready' &&
        wanted.every(([k, v]) => shown.get(k) === v) &&
        panel?.dataset.drawn === 'true' &&
        !panel.classList.contains('is-stale') &&
        !panel.querySelector('.panel-status')?.textContent
      );
    },
    { wanted: [...query], name: PANEL },
    { timeout: 120000, polling: 200 },
  );
  // Two frames: the last draw is painted.
  await page.evaluate(
    () =>
      new Promise((done) => {
        requestAnimationFrame(() => requestAnimationFrame(done));
      }),
  );
  if (errors.length) throw new Error(`the page reported errors: ${errors.join('; ')}`);
  return { context, page };
}

/** The panel's box in page coordinates (CSS pixels). */
const panelBox = (page) =>
  page.evaluate((name) => {
    const r = document.querySelector(`[data-panel="${name}"]`).getBoundingClientRect();
    return { x: r.left + scrollX, y: r.top + scrollY, width: r.width, height: r.height };
  }, PANEL);

/** README: from the settings to the bottom of the panel, the page's full width. */
async function readmeClip(page) {
  return page.evaluate((name) => {
    const top = document.getElementById('settings').getBoundingClientRect().top + scrollY - 12;
    const bottom =
      document.querySelector(`[data-panel="${name}"]`).getBoundingClientRect().bottom + scrollY + 12;
    return {
      x: 0,
      y: Math.max(0, Math.floor(top)),
      width: document.documentElement.clientWidth,
      height: Math.ceil(bottom - top),
    };
  }, PANEL);
}

/**
 * Card: the panel's width plus a margin, at the card's aspect ratio, from just above the panel.
 * Returns the device scale factor that makes it CARD.width device pixels wide, and the clip.
 */
function cardClip(box) {
  const width = box.width + 2 * CARD_MARGIN;
  return {
    scale: CARD.width / width,
    clip: {
      x: box.x - CARD_MARGIN,
      y: box.y - CARD_MARGIN,
      width,
      height: (width * CARD.height) / CARD.width,
    },
  };
}

/** Width and height from a PNG's IHDR chunk. */
const pngSize = (png) => ({ width: png.readUInt32BE(16), height: png.readUInt32BE(20) });

await stat(join(opts.dist, 'index.html')).catch(() => {
  console.error(`${opts.dist} has no index.html: run \`npm run build\` first`);
  process.exit(1);
});
const server = await startServer({ root: opts.dist });
const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
try {
  const viewport = { width: Number(opts.width), height: Number(opts.height) };
  let { context, page } = await openDrawn(browser, server.url, { ...viewport, scale: 1 });
  let clip;
  if (opts.card) {
    // The layout (CSS pixels) does not depend on the scale factor: measure at 1, draw again at the card's.
    const { scale } = cardClip(await panelBox(page));
    await context.close();
    ({ context, page } = await openDrawn(browser, server.url, { ...viewport, scale }));
    ({ clip } = cardClip(await panelBox(page)));
  } else {
    clip = await readmeClip(page);
  }
  await mkdir(dirname(out), { recursive: true });
  const png = await page.screenshot({ path: out, type: 'png', clip, fullPage: true });
  const size = pngSize(png);
  console.log(`${out}: ${size.width} × ${size.height} px, ${png.length} bytes`);
  if (opts.card && (size.width !== CARD.width || size.height !== CARD.height))
    throw new Error(
      `the card came out ${size.width} × ${size.height} px, not ${CARD.width} × ${CARD.height}`,
    );
  if (png.length > MAX_BYTES)
    throw new Error(
      `${png.length} bytes is over ${MAX_BYTES} (the README's budget, the card's too): use a smaller --width/--height`,
    );
} finally {
  await browser.close();
  await server.close();
}
