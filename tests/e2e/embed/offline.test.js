// The strictest ways to ship the page, in headless Debian chromium: the page, the embed page and
// the component under the strict CSP; the offline single file alone in an empty folder, from
// file:// with the network off; the size budgets of the component and of the single file. Needs a
// built dist/ (npm run build).
import { describe } from 'node:test';
import assert from 'node:assert/strict';
import { cp, mkdtemp, readFile, rm, writeFile, stat as fsStat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  watchErrors,
  waitForApp,
  waitForDemos,
  test,
  openFolds,
  scrollPanelsIntoView,
} from '../support/browser.js';
import {
  useEmbedSites,
  OUT,
  DIST,
  STRICT_CSP,
  NO_FAVICON,
  waitForDemoSweeps,
  canvasColours,
} from '../support/embed-sites.js';

// The engine's wasm is most of it (103 KB gzip with analyze and the sweep estimates).
const BUDGET_COMPONENT_GZIP = 180 * 1024;
// The single file holds both wasm builds (base64), every panel's code and the page's text: the
// engine's analyze, sweep estimates and the report panel of chapter 9 took it past 600 KB, chapter
// 8's model presets and the report's config.json (15 KB) past 720 KB; the math as MathML, with no
// fonts, brought it down to about 550 KB, and the "Test yourself" drill added 32 KB.
const BUDGET_SINGLE_FILE = 750 * 1024;
const sites = useEmbedSites();

/** Presses the training panel's Step button and waits until the panel has drawn the steps. */
async function stepTraining(page, button) {
  await page.evaluate(openFolds, '[data-panel="training"]'); // its topic under "Going further"
  await button.click();
  await page.waitForFunction(
    () => document.querySelector('[data-panel="training"]').dataset.drawn === 'true',
    null,
    { timeout: 60000 },
  );
}

describe('embeds', () => {
  test('strict CSP: the page, the embed page and the web component, no violation', async () => {
    // No data: favicon here (img-src falls back to 'self'): the browser asks for /favicon.ico.
    await writeFile(join(sites.site, 'favicon.ico'), '');
    await writeFile(
      join(sites.site, 'csp-host.html'),
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>CSP host</title>
<script type="module" src="./attn-scale-demo.js"></script></head><body>
<attn-scale-demo id="a" dk="128" scale="none" panel="spread,precision" controls="all"></attn-scale-demo>
<attn-scale-demo id="b" dk="8" panel="heatmap,gradients" theme="dark"></attn-scale-demo>
<iframe src="./embed.html?panel=sigma&amp;dk=32" title="attnscale sigma" width="100%" height="600"></iframe>
</body></html>`,
    );
    const record = () => {
      window.__csp = [];
      document.addEventListener(
        'securitypolicyviolation',
        (e) => window.__csp.push(`${e.violatedDirective} ${e.blockedURI} ${e.sourceFile}:${e.lineNumber}`),
        true,
      );
    };
    for (const path of [
      'index.html?dk=128&scale=none',
      'embed.html?panel=spread,precision,heatmap&dk=128&precision=fp16&subtractMax=false',
      'csp-host.html',
    ]) {
      const page = await sites.browser.newPage({ reducedMotion: 'reduce' });
      const errors = watchErrors(page);
      const consoleCsp = [];
      page.on('console', (m) => {
        if (/Content Security Policy/i.test(m.text())) consoleCsp.push(m.text());
      });
      await page.addInitScript(record);
      const resp = await page.goto(`${sites.csp.url}${path}`);
      assert.equal(resp.headers()['content-security-policy'], STRICT_CSP);
      if (path.startsWith('csp-host')) {
        await waitForDemos(page);
        assert.ok((await canvasColours(page.locator('#a [data-panel="spread"]'))) > 8);
        assert.ok((await canvasColours(page.locator('#b [data-panel="heatmap"]'))) > 8);
        const frame = page.frames().find((f) => f.url().includes('embed.html'));
        await frame.waitForFunction(
          () => document.querySelector('[data-panel="sigma"]')?.dataset.drawn === 'true',
          null,
          { timeout: 60000 },
        );
      } else {
        await waitForApp(page, { chapter8: true });
        // Every chart that draws on load (the training panel draws once training runs, below).
        const drawn = await page.$$eval('[data-panel]:not([data-panel="training"])', (els) =>
          els.map((e) => e.dataset.drawn),
        );
        assert.ok(drawn.length > 0 && drawn.every((d) => d === 'true'), `${path}: every chart drawn`);
      }
      const train = page.locator('[data-panel="training"] [data-action="step"]');
      if (await train.count()) {
        await stepTraining(page, train);
      }
      if (path.startsWith('index')) {
        // The Embed dialog (a lazily loaded chunk and its stylesheet) works under the policy too.
        await page.locator('#embed-button').click();
        await page.locator('dialog.embed-dialog').waitFor();
        assert.equal(
          await page.locator('dialog.embed-dialog').evaluate((d) => getComputedStyle(d).borderTopLeftRadius),
          '12px',
        );
        // KaTeX: its fonts and the build-time classes that replace style attributes.
        assert.ok(await page.evaluate(() => document.fonts.check('16px KaTeX_Main')));
      }
      const violations = [];
      for (const f of page.frames())
        violations.push(...(await f.evaluate(() => window.__csp ?? []).catch(() => [])));
      assert.deepEqual(violations, [], `${path}: securitypolicyviolation events`);
      assert.deepEqual(consoleCsp, [], `${path}: CSP console messages`);
      assert.deepEqual(errors, [], path);
      await page.close();
    }
  });

  test('the offline single file, alone in an empty folder, from file:// with the network off', async () => {
    const size = (await fsStat(join(DIST, 'attnscale-offline.html'))).size;
    const dir = await mkdtemp(join(tmpdir(), 'attnscale-offline-'));
    const file = join(dir, 'attnscale-offline.html');
    await cp(join(DIST, 'attnscale-offline.html'), file);
    const url = pathToFileURL(file).href;
    const context = await sites.browser.browser.newContext({
      viewport: { width: 1280, height: 900 },
      reducedMotion: 'reduce',
    });
    try {
      await context.setOffline(true);
      const requests = [];
      const aborted = [];
      context.on('request', (r) => requests.push(r.url()));
      // Every request fails, except reading the file itself.
      await context.route('**/*', (route) => {
        const u = route.request().url();
        if (u.split(/[?#]/)[0] === url) return route.continue();
        aborted.push(u);
        return route.abort();
      });
      const page = await context.newPage();
      const errors = watchErrors(page);
      await page.goto(`${url}?dk=128&scale=none`);
      await waitForApp(page);
      // The training and report panels, in folded topics, are built as a reader opens them.
      await scrollPanelsIntoView(page, ['training', 'report']);
      const raw = parseFloat(await page.locator('[data-stat="rawLogitStd"]').first().textContent());
      assert.ok(Math.abs(raw - 11.3) < 0.1, `rawLogitStd ${raw}`);
      for (const name of ['spread', 'sigma', 'entropy', 'gradients', 'heatmap', 'precision']) {
        const panel = page.locator(`[data-panel="${name}"]`);
        assert.equal(await panel.getAttribute('data-drawn'), 'true', `${name} drew`);
        assert.ok((await canvasColours(panel)) > 8, `${name} has pixels`);
      }
      // Controls and readouts work: d_k by keyboard.
      await page.locator('[data-field="dk"] input[type="range"]').focus();
      await page.keyboard.press('ArrowRight');
      await page.waitForFunction(() =>
        /(^|&)dk=256&/.test(document.getElementById('app').dataset.resultQuery),
      );
      assert.ok(
        Math.abs(parseFloat(await page.locator('[data-stat="rawLogitStd"]').first().textContent()) - 16) <
          0.5,
      );
      assert.ok(await page.evaluate(() => document.fonts.check('16px KaTeX_Main')), 'KaTeX font inlined');
      // The training panel trains in the inlined Worker too.
      const train = page.locator('[data-panel="training"] [data-action="step"]');
      if (await train.count()) {
        await stepTraining(page, train);
        await page
          .locator('[data-panel="training"]')
          .screenshot({ path: join(OUT, 'offline-file-training.png') });
      }
      assert.equal(await page.locator('#embed-button').isVisible(), false, 'no Embed button offline');
      assert.equal(await page.locator('[data-download-qk]').count(), 0, 'no q, k download offline');
      // Chapter 9 reads a chosen file in the inlined Workers (no sample to fetch offline).
      const report = page.locator('[data-panel="report"]');
      assert.equal(await report.locator('[data-report-sample]').isVisible(), false, 'no sample offline');
      await report.locator('input[data-tensor-input]').setInputFiles({
        name: 'trained-sample.safetensors',
        mimeType: 'application/octet-stream',
        buffer: await readFile(join(DIST, 'samples', 'trained-sample.safetensors')),
      });
      await page.waitForFunction(
        () => document.querySelector('[data-panel="report"]').dataset.reportState === 'done',
        null,
        { timeout: 120000 },
      );
      assert.equal(await report.locator('[data-report-grid] [data-layer]').count(), 3);
      await page.evaluate(() => window.scrollTo(0, 0));
      await page.screenshot({ path: join(OUT, 'offline-file.png') });
      await page.locator('#variance .charts').screenshot({ path: join(OUT, 'offline-file-charts.png') });
      // Nothing but the file itself was requested.
      assert.deepEqual(
        requests.filter(
          (u) => u.split(/[?#]/)[0] !== url && !u.startsWith('blob:') && !u.startsWith('data:'),
        ),
        [],
      );
      assert.deepEqual(aborted, []);
      assert.deepEqual(errors, []);
      assert.ok(size <= BUDGET_SINGLE_FILE, `single file ${size} bytes`);
    } finally {
      await context.close();
      await rm(dir, { recursive: true, force: true });
    }
  });

  test('budgets: the web component ≤ 180 KB gzip, the single file ≤ 750 KB', async () => {
    await writeFile(
      join(sites.hostDir, 'budget.html'),
      `<!doctype html><html lang="en"><head><meta charset="utf-8">${NO_FAVICON}<title>Budget</title>
<script type="module" src="${sites.dist.url}attn-scale-demo.js"></script></head><body>
<attn-scale-demo panel="spread"></attn-scale-demo><attn-scale-demo panel="sigma" dk="32"></attn-scale-demo></body></html>`,
    );
    const from = sites.dist.log.length;
    const { page, errors } = await sites.open(`${sites.host.url}budget.html`);
    await waitForDemos(page);
    // Everything the two elements load: their sweeps done (both Workers up), then no request open.
    await waitForDemoSweeps(page);
    await page.waitForLoadState('networkidle');
    // Everything fetched from the site for the component (gzip as served), each file once.
    const files = new Map();
    for (const e of sites.dist.log.slice(from))
      if (e.status === 200 && !files.has(e.path)) files.set(e.path, e);
    const list = [...files.values()].map((e) => ({ path: e.path, gzipBytes: e.bytes, rawBytes: e.raw }));
    const total = list.reduce((a, e) => a + e.gzipBytes, 0);
    const wasm = list.filter((e) => e.path.endsWith('.wasm')).reduce((a, e) => a + e.gzipBytes, 0);
    const single = (await fsStat(join(DIST, 'attnscale-offline.html'))).size;
    const report = {
      date: new Date().toISOString(),
      component: {
        totalGzipBytes: total,
        wasmGzipBytes: wasm,
        jsGzipBytes: total - wasm,
        budget: BUDGET_COMPONENT_GZIP,
        files: list,
      },
      singleFile: { rawBytes: single, budget: BUDGET_SINGLE_FILE },
    };
    await writeFile(join(OUT, 'embed-budgets.json'), `${JSON.stringify(report, null, 2)}\n`);
    assert.ok(list.some((e) => e.path === '/attn-scale-demo.js'));
    assert.ok(
      list.every((e) => !e.path.endsWith('.css')),
      'the component brings its CSS inside its JS',
    );
    assert.ok(total <= BUDGET_COMPONENT_GZIP, `web component ${total} bytes gzip: ${JSON.stringify(list)}`);
    assert.ok(single <= BUDGET_SINGLE_FILE, `single file ${single} bytes`);
    assert.deepEqual(errors, []);
    await page.close();
  });
});
