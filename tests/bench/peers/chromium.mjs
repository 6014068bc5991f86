// The chromium half of `npm run bench:peers`: a tiny static server on 127.0.0.1 (only the files
// the bench page needs), headless Debian chromium driven by playwright-core (never a browser
// download), and page.html running harness.js in the page. Returns the page's results.
import { createServer } from 'node:http';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { extname, join, normalize, sep } from 'node:path';
import { chromium } from 'playwright-core';

const TYPES = {
  '.html': 'text/html',
  '.js': 'text/javascript',
  '.mjs': 'text/javascript',
  '.wasm': 'application/wasm',
};
// Served prefixes (relative to the repo root); everything else is 404.
const ALLOWED = [
  'tests/bench/',
  'web/src/',
  'web/generated/',
  'build/bench/peak.wasm',
  'node_modules/wasm-feature-detect/dist/esm/',
  'node_modules/onnxruntime-web/dist/',
  'node_modules/@tensorflow/tfjs-core/dist/',
  'node_modules/@tensorflow/tfjs-backend-wasm/dist/',
];
const ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

function serve(root) {
  const server = createServer(async (req, res) => {
    const rel = decodeURIComponent(new URL(req.url, 'http://x').pathname).replace(/^\/+/, '');
    const file = normalize(join(root, rel));
    if (!file.startsWith(root) || rel.includes('..') || !ALLOWED.some((p) => rel.startsWith(p))) {
      res.writeHead(404).end();
      return;
    }
    try {
      const body = await readFile(file);
      res.writeHead(200, {
        'content-type': TYPES[extname(file)] ?? 'application/octet-stream',
        'cache-control': 'no-store',
      });
      res.end(body);
    } catch {
      res.writeHead(404).end();
    }
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => resolve(server));
  });
}

/** runInChromium({ root, shapes, timing, log }) → { userAgent, peak, shapes } */
export async function runInChromium({ root, shapes, timing = {}, log = () => {} }) {
  const server = await serve(root.endsWith(sep) ? root : root + sep);
  const profile = await mkdtemp(join(tmpdir(), 'attnscale-bench-chromium-'));
  let context;
  try {
    context = await chromium.launchPersistentContext(profile, {
      executablePath: '/usr/bin/chromium',
      headless: true,
      args: ARGS,
    });
    const page = context.pages()[0] ?? (await context.newPage());
    page.on('console', (m) => log(`  [chromium] ${m.text()}`));
    page.on('pageerror', (e) => log(`  [chromium error] ${e.message}`));
    const { port } = server.address();
    const query = new URLSearchParams({
      shapes: shapes.map((s) => `${s.T}x${s.dk}`).join(','),
      timing: JSON.stringify(timing),
    });
    await page.goto(`http://127.0.0.1:${port}/tests/bench/peers/page.html?${query}`);
    // The page can take minutes (plain JS at 512 × 512); poll instead of one long evaluate.
    for (;;) {
      const state = await page.evaluate(() => globalThis.benchState ?? null);
      if (state?.error) throw new Error(`chromium bench page: ${state.error}`);
      if (state?.done) return state.result;
      await new Promise((r) => {
        setTimeout(r, 1000);
      });
    }
  } finally {
    await context?.close();
    server.close();
    await rm(profile, { recursive: true, force: true });
  }
}
