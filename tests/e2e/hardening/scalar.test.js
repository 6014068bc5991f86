// The page on a browser without wasm SIMD: V8's SSE4.1 switched off (TOOLCHAIN.md), so
// wasm-feature-detect reports no SIMD and the engine loads its scalar build. Same numbers.
import assert from 'node:assert/strict';
import { watchErrors, waitForApp, stat, test } from '../support/browser.js';
import { useSite } from '../support/site.js';

const site = useSite({ browserArgs: ['--js-flags=--no-enable-sse4-1'] });

test(
  'without wasm SIMD the page runs the scalar engine and shows the same rawLogitStd',
  { timeout: 120000 },
  async () => {
    const page = await site.browser.newPage({ reducedMotion: 'reduce' });
    const errors = watchErrors(page);
    await page.goto(`${site.server.url}?dk=128&scale=none`);
    await waitForApp(page, { sweeps: false });
    assert.match(await page.locator('#engine-info').textContent(), /scalar fallback/);
    const v = parseFloat(await stat(page, 'rawLogitStd'));
    assert.ok(Math.abs(v - Math.sqrt(128)) < 0.3, `rawLogitStd ${v}`);
    assert.deepEqual(errors, []);
    await page.close();
  },
);
