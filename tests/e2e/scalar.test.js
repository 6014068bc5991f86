// The page on a browser without wasm SIMD: V8's SSE4.1 switched off (TOOLCHAIN.md), so
// wasm-feature-detect reports no SIMD and the engine loads its scalar build. Same numbers.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { access } from 'node:fs/promises';
import { join } from 'node:path';
import { startServer, repoRoot } from './serve-dist.js';
import { launchBrowser, watchErrors, waitForApp, stat } from './browser.js';

let server, browser;
before(async () => {
  await access(join(repoRoot, 'dist', 'index.html'));
  server = await startServer();
  browser = await launchBrowser({ args: ['--js-flags=--no-enable-sse4-1'] });
});
after(async () => {
  await browser?.close();
  await server?.close();
});

test('without wasm SIMD the page runs the scalar engine and shows the same rawLogitStd', { timeout: 120000 }, async () => {
  const page = await browser.newPage({ reducedMotion: 'reduce' });
  const errors = watchErrors(page);
  await page.goto(`${server.url}?dk=128&scale=none`);
  await waitForApp(page, { sweeps: false });
  assert.match(await page.locator('#engine-info').textContent(), /scalar fallback/);
  const v = parseFloat(await stat(page, 'rawLogitStd'));
  assert.ok(Math.abs(v - Math.sqrt(128)) < 0.3, `rawLogitStd ${v}`);
  assert.deepEqual(errors, []);
  await page.close();
});
