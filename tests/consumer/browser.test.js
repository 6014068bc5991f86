// The installed package in the browser, headless Debian chromium via playwright-core:
// a minimal Vite app that imports `attnscale` builds and shows a result; a host page on another
// origin loads dist/attn-scale-demo.js straight from the installed package folder (as an
// npm-mirroring CDN serves it, with CORS) and draws charts in a real Worker.
import { before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startServer, repoRoot } from '../e2e/support/serve-dist.js';
import { launchBrowser, watchErrors, waitForDemos, test } from '../e2e/support/browser.js';
import { packAndInstall } from './package-install.js';

const run = promisify(execFile);
const VITE = join(repoRoot, 'node_modules', 'vite', 'bin', 'vite.js');
const NO_FAVICON = '<link rel="icon" href="data:,">';

let pkg, browser;
const servers = [];
const serve = async (opts) => {
  const s = await startServer(opts);
  servers.push(s);
  return s;
};

before(async () => {
  [pkg, browser] = await Promise.all([packAndInstall(), launchBrowser()]);
});
after(async () => {
  await browser?.close();
  await Promise.all(servers.map((s) => s.close()));
  await pkg?.dispose();
});

describe('the installed package in chromium', () => {
  test("a Vite app that imports `attnscale` builds, and served, shows the engine's result", async () => {
    const app = join(pkg.consumer, 'vite-app');
    await mkdir(app);
    await writeFile(
      join(app, 'index.html'),
      `<!doctype html><html lang="en"><head><meta charset="utf-8">${NO_FAVICON}<title>consumer</title></head>
<body><output id="out">computing…</output><script type="module" src="./main.js"></script></body></html>\n`,
    );
    await writeFile(
      join(app, 'main.js'),
      `import { createEngine } from 'attnscale';
const out = document.getElementById('out');
createEngine().then((engine) => {
  const r = engine.run({ dk: 128, scale: 'none' });
  out.dataset.simd = String(engine.info.simd);
  out.dataset.rawLogitStd = String(r.rawLogitStd);
  out.textContent = 'rawLogitStd ' + r.rawLogitStd.toFixed(3);
}, (err) => { out.dataset.error = err.message; });\n`,
    );
    // Our own Vite (a devDependency) with the app as its root; 'attnscale' resolves from the consumer's node_modules.
    await run(process.execPath, [VITE, 'build', '--logLevel', 'warn'], { cwd: app });
    const site = await serve({ root: join(app, 'dist') });
    const page = await browser.newPage();
    const errors = watchErrors(page);
    await page.goto(site.url);
    await page.waitForFunction(
      () =>
        document.getElementById('out').dataset.rawLogitStd || document.getElementById('out').dataset.error,
      null,
      { timeout: 60000 },
    );
    const out = page.locator('#out');
    assert.equal(await out.getAttribute('data-error'), null);
    assert.equal(await out.getAttribute('data-simd'), 'true');
    // Same tolerance and reason as the Node consumer: seed 1 at T = 256 measures 11.358.
    const std = Number(await out.getAttribute('data-raw-logit-std'));
    assert.ok(Math.abs(std - 11.358) < 0.1, `rawLogitStd ${std}`);
    assert.ok(
      site.log.some((r) => r.path.endsWith('.wasm') && r.type === 'application/wasm'),
      'the app fetched the wasm',
    );
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('a host page on another origin loads attn-scale-demo.js from the installed package and draws in a real Worker', async () => {
    const cdn = await serve({ root: pkg.packageDir, headers: { 'access-control-allow-origin': '*' } });
    const hostDir = join(pkg.tmp, 'host');
    await mkdir(hostDir);
    await writeFile(
      join(hostDir, 'index.html'),
      `<!doctype html><html lang="en"><head><meta charset="utf-8">${NO_FAVICON}<title>a blog</title>
<script type="module" src="${cdn.url}dist/attn-scale-demo.js"></script></head>
<body><h1>A post</h1><attn-scale-demo dk="128" scale="none" panel="spread,heatmap"></attn-scale-demo></body></html>\n`,
    );
    const host = await serve({ root: hostDir });
    assert.notEqual(new URL(host.url).origin, new URL(cdn.url).origin);
    const page = await browser.newPage();
    const errors = watchErrors(page);
    await page.goto(host.url);
    await waitForDemos(page);
    const demo = page.locator('attn-scale-demo');
    const std = parseFloat(await demo.locator('[data-stat="rawLogitStd"]').first().textContent());
    assert.ok(Math.abs(std - 11.36) < 0.1, `rawLogitStd ${std}`);
    // A real Worker: one runs, and the element does not report the main-thread fallback.
    assert.ok(page.workers().length >= 1, 'a dedicated Worker is running');
    const notices = await demo.locator('.as-notices').textContent();
    assert.doesNotMatch(notices, /thread|worker/i, `notices: ${notices}`);
    assert.match(await demo.locator('.as-status').textContent(), /WebAssembly SIMD/);
    const fetched = cdn.log.filter((r) => r.status === 200).map((r) => r.path);
    assert.ok(
      fetched.some((p) => p.endsWith('.wasm')),
      `the Worker fetched the wasm from the package: ${fetched}`,
    );
    assert.ok(
      fetched.every((p) => p.startsWith('/dist/')),
      `only dist/ files were needed: ${fetched}`,
    );
    assert.deepEqual(errors, []);
    await page.close();
  });
});
