// Writes docs/images/page.png, the README's picture of the page: dist/ served on a free local port,
// opened in Debian's headless Chromium (playwright-core; no browser is ever downloaded), captured
// once the first chapter's charts are drawn. Needs a built dist/ (`npm run build`).
//
//   node build-scripts/readme-screenshot.mjs [--out docs/images/page.png] [--query 'dk=128'] [--dist dist]
//
// The picture is the page's first idea at d_k = 128: the settings with the d_k slider, the variance
// argument, and the logit-spread chart where the raw q·k (σ ≈ 11.3) lies wide under the scaled
// logits (σ ≈ 1). It stays under the README's 250 KB: CSS pixels at a device scale factor of 1, one
// clip from the settings to the bottom of that chart, PNG.
import { stat, mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import { chromium } from 'playwright-core';
// The same static server and Chromium flags as the e2e suite (and measure-budgets.mjs).
import { startServer, repoRoot } from '../tests/e2e/support/serve-dist.js';
import { CHROMIUM, CHROMIUM_ARGS } from '../tests/e2e/support/browser.js';

const { values: opts } = parseArgs({
  options: {
    out: { type: 'string', default: join(repoRoot, 'docs', 'images', 'page.png') },
    query: { type: 'string', default: 'dk=128' },
    dist: { type: 'string', default: join(repoRoot, 'dist') },
    width: { type: 'string', default: '1200' },
    height: { type: 'string', default: '900' },
  },
});
const MAX_BYTES = 250 * 1024;
const PANEL = 'spread';
await stat(join(opts.dist, 'index.html')).catch(() => {
  console.error(`${opts.dist} has no index.html: run \`npm run build\` first`);
  process.exit(1);
});
const server = await startServer({ root: opts.dist });
const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
try {
  const width = Number(opts.width),
    height = Number(opts.height);
  const context = await browser.newContext({
    viewport: { width, height },
    deviceScaleFactor: 1,
    colorScheme: 'light',
    reducedMotion: 'reduce',
  });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`${server.url}?${opts.query}`);
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
  const clip = await page.evaluate((name) => {
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
  await mkdir(dirname(opts.out), { recursive: true });
  const png = await page.screenshot({ path: opts.out, type: 'png', clip, fullPage: true });
  console.log(`${opts.out}: ${clip.width} × ${clip.height} px, ${png.length} bytes`);
  if (png.length > MAX_BYTES)
    throw new Error(`${png.length} bytes is over the README's ${MAX_BYTES}: use a smaller --width/--height`);
} finally {
  await browser.close();
  await server.close();
}
