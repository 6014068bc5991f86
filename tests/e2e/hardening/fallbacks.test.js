// Fallback paths, in headless Debian chromium against a copy of dist/:
//  - no wasm SIMD (V8's SSE4.1 switched off): the scalar build loads, the page says so in a
//    visible notice, and the numbers are the same;
//  - no WebAssembly at all (deleted before any script runs): a clear message where the charts
//    would be, on the page, in embed.html and in <attn-scale-demo>; no blank page, no uncaught error;
//  - `new Worker()` throwing, or a Worker blocked by the host's CSP (an error event after
//    construction): the engine runs on the page's thread, a notice says so (naming worker-src and
//    what it must allow, for the CSP), every chart renders;
//  - a Worker whose engine reports 'fatal' before anything else: the same main-thread fallback;
//  - navigator.language 'C' (WebKit under LANG=C): everything draws; a chart module that throws
//    while it loads: a visible message on the page, in embed.html and in the component.
// Screenshots of the three states go to tests/output/fallback-*.png.
import { before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import { access, cp, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer, repoRoot } from '../support/serve-dist.js';
import { launchBrowser, watchErrors, waitForApp, stat, test } from '../support/browser.js';

const OUT = join(repoRoot, 'tests', 'output');
const PANELS = ['spread', 'sigma', 'entropy', 'gradients', 'heatmap', 'precision'];
const NO_WASM = () => {
  delete globalThis.WebAssembly;
};
const NO_WORKER = () => {
  globalThis.Worker = class Worker {
    constructor() {
      throw new DOMException('Workers are disabled by policy', 'SecurityError');
    }
  };
};

// A Worker that starts but whose engine cannot (as WebKit's blob: Worker on a file:// page, which
// cannot read a Blob): its first message is 'fatal'.
const WORKER_FATAL = () => {
  const source =
    "postMessage({ type: 'fatal', message: 'NotReadableError: The I/O read operation failed.' });";
  globalThis.Worker = class extends Worker {
    constructor() {
      super(URL.createObjectURL(new Blob([source], { type: 'text/javascript' })), { type: 'module' });
    }
  };
};
// WebKit under LANG=C reports navigator.language 'C', which Intl rejects.
const LANGUAGE_C = () => {
  Object.defineProperty(Navigator.prototype, 'language', { configurable: true, get: () => 'C' });
};
// A chart module that throws while it loads (as uPlot did on that 'C'): Intl.NumberFormat throws.
const CHARTS_THROW = () => {
  Intl.NumberFormat = function NumberFormat() {
    throw new RangeError('invalid language tag: C');
  };
};

let tmp, server, noWorkers, browser, noSimd;

before(async () => {
  await access(join(repoRoot, 'dist', 'attn-scale-demo.js')).catch(() => {
    throw new Error('dist/ is missing: run `npm run build` first');
  });
  await mkdir(OUT, { recursive: true });
  tmp = await mkdtemp(join(tmpdir(), 'attnscale-fallbacks-'));
  await cp(join(repoRoot, 'dist'), tmp, { recursive: true });
  await writeFile(
    join(tmp, 'host.html'),
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><link rel="icon" href="data:,">
<title>Host</title><script type="module" src="./attn-scale-demo.js"></script></head><body><main><h1>A blog post</h1>
<p id="before">Text before.</p><attn-scale-demo id="demo" panel="spread,sigma" dk="128" scale="none"></attn-scale-demo><p id="after">Text after.</p></main></body></html>`,
  );
  server = await startServer({ root: tmp });
  // A host whose policy forbids Workers: the Worker is constructed, then fails to start (an error
  // event, not an exception).
  noWorkers = await startServer({
    root: tmp,
    headers: {
      'content-security-policy':
        "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'; worker-src 'none'",
    },
  });
  [browser, noSimd] = await Promise.all([
    launchBrowser(),
    launchBrowser({ args: ['--js-flags=--no-enable-sse4-1'] }),
  ]);
});

after(async () => {
  await Promise.all([browser?.close(), noSimd?.close()]);
  await Promise.all([server?.close(), noWorkers?.close()]);
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

async function open(b, path, { init = null, origin = server, ...opts } = {}) {
  const page = await b.newPage({ reducedMotion: 'reduce', ...opts });
  if (init) await page.addInitScript(init);
  const errors = watchErrors(page);
  await page.goto(origin.url + path);
  return { page, errors };
}

const drawnPanels = (page) =>
  page.$$eval('[data-panel]', (els) =>
    els.filter((e) => e.dataset.drawn === 'true').map((e) => e.dataset.panel),
  );

describe('fallbacks', () => {
  test('no wasm SIMD: the scalar build runs, a visible notice says so, same numbers', async () => {
    const { page, errors } = await open(noSimd, '?dk=128&scale=none');
    await waitForApp(page, { sweeps: false });
    assert.equal(await page.evaluate(() => typeof WebAssembly.validate), 'function');
    const note = page.locator('[data-engine-note]');
    assert.ok(await note.isVisible(), 'engine notice visible');
    assert.match(await note.textContent(), /no WebAssembly SIMD, so the engine runs its scalar build/);
    assert.match(await page.locator('#engine-info').textContent(), /scalar fallback/);
    const v = parseFloat(await stat(page, 'rawLogitStd'));
    assert.ok(Math.abs(v - 11.36) < 0.05, `rawLogitStd ${v}`);
    // A config notice (bad URL value) does not replace the engine notice.
    await page.evaluate(() => {
      history.pushState(null, '', '?dk=0');
      dispatchEvent(new PopStateEvent('popstate'));
    });
    await page.locator('#notices .notice').filter({ hasText: 'dk=0' }).waitFor();
    assert.ok(await note.isVisible());
    await page.evaluate(() => {
      history.pushState(null, '', '?dk=128&scale=none');
      dispatchEvent(new PopStateEvent('popstate'));
    });
    await waitForApp(page);
    await page.screenshot({ path: join(OUT, 'fallback-scalar.png') });
    await page.locator('#variance .charts').screenshot({ path: join(OUT, 'fallback-scalar-charts.png') });
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('no WebAssembly: a clear message in place of every chart (page, embed, web component), no uncaught error', async () => {
    const { page, errors } = await open(browser, '?dk=128&scale=none', { init: NO_WASM });
    await page.waitForFunction(() => document.getElementById('app')?.dataset.state === 'failed');
    assert.equal(await page.evaluate(() => typeof WebAssembly), 'undefined');
    const alert = page.locator('#notices .notice.error[role="alert"]');
    assert.ok(await alert.isVisible());
    assert.match(
      await alert.textContent(),
      /does not provide WebAssembly, which attnscale needs to compute its charts/,
    );
    for (const name of PANELS) {
      const slot = page.locator(`[data-panel="${name}"].panel-unavailable`);
      assert.ok(await slot.isVisible(), `${name}: a message in its place`);
      assert.match(await slot.textContent(), /could not start in this browser/);
    }
    assert.equal(await page.locator('canvas').count(), 0);
    assert.match(await page.locator('#engine-info').textContent(), /could not start/);
    // The text of the page is all there.
    assert.ok((await page.locator('.story').count()) >= 6);
    await page.locator('#chart-spread').scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(OUT, 'fallback-no-wasm.png') });
    assert.deepEqual(errors, []);
    await page.close();

    const embed = await open(browser, 'embed.html?panel=spread,sigma&dk=128', { init: NO_WASM });
    await embed.page.waitForFunction(() => document.getElementById('app')?.dataset.state === 'failed');
    assert.match(await embed.page.locator('#notices').textContent(), /does not provide WebAssembly/);
    assert.equal(await embed.page.locator('.panel-unavailable').count(), 2);
    assert.deepEqual(embed.errors, []);
    await embed.page.close();

    const host = await open(browser, 'host.html', { init: NO_WASM });
    const demo = host.page.locator('#demo .as-app-notices .notice.error');
    await demo.waitFor();
    assert.match(await demo.textContent(), /does not provide WebAssembly/);
    assert.equal(await host.page.locator('#after').textContent(), 'Text after.', 'host page intact');
    assert.deepEqual(host.errors, []);
    await host.page.close();
  });

  test('Worker construction fails: the engine computes on the main thread, with a notice; every chart renders', async () => {
    const { page, errors } = await open(browser, '?dk=128&scale=none', { init: NO_WORKER });
    await waitForApp(page, { timeout: 120000 });
    assert.equal(
      await page.evaluate(() => {
        try {
          new Worker('x.js');
          return 'constructed';
        } catch (e) {
          return e.name;
        }
      }),
      'SecurityError',
    );
    const note = page.locator('[data-engine-note]');
    assert.ok(await note.isVisible());
    assert.match(
      await note.textContent(),
      /Web Workers are not available here, so the engine computes on the page’s own thread/,
    );
    assert.deepEqual((await drawnPanels(page)).filter((n) => PANELS.includes(n)).sort(), [...PANELS].sort());
    const v = parseFloat(await stat(page, 'rawLogitStd'));
    assert.ok(Math.abs(v - 11.36) < 0.05, `rawLogitStd ${v}`);
    // Controls still drive it: a keyboard change of d_k reaches the readouts.
    const slider = page.locator('[data-field="dk"] input[type="range"]');
    await slider.focus();
    await page.keyboard.press('ArrowRight');
    await page.waitForFunction(() => document.getElementById('app').dataset.resultQuery?.includes('dk=256&'));
    const v2 = parseFloat(await stat(page, 'rawLogitStd'));
    assert.ok(Math.abs(v2 - 16) < 0.5, `rawLogitStd at d_k 256: ${v2}`);
    await waitForApp(page, { timeout: 120000 });
    await page.screenshot({ path: join(OUT, 'fallback-no-worker.png') });
    await page.locator('#variance .charts').screenshot({ path: join(OUT, 'fallback-no-worker-charts.png') });
    assert.deepEqual(errors, []);
    await page.close();

    // The web component takes the same path (its client is the page's shared one).
    const host = await open(browser, 'host.html', { init: NO_WORKER });
    await host.page.waitForFunction(
      () => {
        const root = document.getElementById('demo').shadowRoot?.querySelector('.as-root');
        return (
          root?.dataset.state === 'ready' &&
          [...root.querySelectorAll('[data-panel]')].every((p) => p.dataset.drawn === 'true')
        );
      },
      null,
      { timeout: 120000, polling: 200 },
    );
    assert.match(
      await host.page.locator('#demo [data-engine-note]').textContent(),
      /Web Workers are not available/,
    );
    assert.deepEqual(host.errors, []);
    await host.page.close();
  });

  test('a Worker whose engine cannot start (its first message is fatal): the main thread takes over', async () => {
    const { page, errors } = await open(browser, '?dk=128&scale=none', { init: WORKER_FATAL });
    await waitForApp(page, { timeout: 120000 });
    assert.match(await page.locator('[data-engine-note]').textContent(), /computes on the page’s own thread/);
    assert.ok(Math.abs(parseFloat(await stat(page, 'rawLogitStd')) - 11.36) < 0.05);
    assert.deepEqual(errors, []);
    await page.close();
  });

  test("navigator.language is 'C' (WebKit under LANG=C): the page, embed.html and the component draw", async () => {
    for (const path of ['?dk=128&scale=none', 'embed.html?panel=spread&dk=128&scale=none']) {
      const { page, errors } = await open(browser, path, { init: LANGUAGE_C });
      await waitForApp(page, { sweeps: false });
      assert.equal(
        await page.evaluate(
          () =>
            Object.getPrototypeOf(navigator) === Navigator.prototype &&
            Navigator.prototype.__lookupGetter__('language').call(navigator),
        ),
        'C',
      );
      assert.ok(Math.abs(parseFloat(await stat(page, 'rawLogitStd')) - 11.36) < 0.05, path);
      assert.deepEqual(errors, [], path);
      await page.close();
    }
    const host = await open(browser, 'host.html', { init: LANGUAGE_C });
    await host.page.waitForFunction(
      () => document.getElementById('demo').shadowRoot?.querySelector('.as-root')?.dataset.state === 'ready',
      null,
      { timeout: 60000 },
    );
    assert.deepEqual(host.errors, []);
    await host.page.close();
  });

  test('a module that throws while the charts load: a visible message, never an endless "Starting the engine…"', async () => {
    const { page } = await open(browser, '?dk=128&scale=none', { init: CHARTS_THROW });
    await page.waitForFunction(() => document.getElementById('app')?.dataset.state === 'failed');
    const alert = page.locator('#notices [data-load-failure][role="alert"]');
    assert.ok(await alert.isVisible());
    assert.match(
      await alert.textContent(),
      /could not load in this browser \(RangeError: invalid language tag: C\)/,
    );
    assert.match(await page.locator('#engine-info').textContent(), /The charts could not load/);
    await page.screenshot({ path: join(OUT, 'fallback-load-failure.png') });
    await page.close();

    const embed = await open(browser, 'embed.html?panel=spread&dk=128', { init: CHARTS_THROW });
    await embed.page.waitForFunction(() => document.getElementById('app')?.dataset.state === 'failed');
    assert.match(
      await embed.page.locator('#notices [data-load-failure]').textContent(),
      /RangeError: invalid language tag: C/,
    );
    assert.doesNotMatch(await embed.page.locator('#engine-info').textContent(), /Starting/);
    await embed.page.close();

    const host = await open(browser, 'host.html', { init: CHARTS_THROW });
    const notice = host.page.locator('#demo .as-app-notices .notice.error');
    await notice.waitFor();
    assert.match(
      await notice.textContent(),
      /The charts' code could not load: RangeError: invalid language tag: C/,
    );
    assert.equal(await host.page.locator('#after').textContent(), 'Text after.');
    await host.page.close();
  });

  test('a Worker blocked by a CSP (worker-src none): the same main-thread fallback; the notice names worker-src', async () => {
    const { page, errors } = await open(browser, '?dk=128&scale=none', { origin: noWorkers });
    await waitForApp(page, { timeout: 120000 });
    const note = await page.locator('[data-engine-note]').textContent();
    assert.match(note, /Content-Security-Policy refused the engine’s Web Worker \(worker-src\)/);
    assert.match(note, /the site’s worker-src must allow 'self'\./);
    assert.doesNotMatch(note, /not available/);
    assert.deepEqual((await drawnPanels(page)).filter((n) => PANELS.includes(n)).sort(), [...PANELS].sort());
    assert.ok(Math.abs(parseFloat(await stat(page, 'rawLogitStd')) - 11.36) < 0.05);
    // The browser's own report of the blocked Worker is the only message.
    assert.deepEqual(
      errors.filter(
        (e) => !/violates the following Content Security Policy directive: "worker-src 'none'"/.test(e),
      ),
      [],
    );
    assert.ok(errors.length >= 1);
    await page.close();
  });
});
