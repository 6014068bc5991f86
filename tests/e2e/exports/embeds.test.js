// The GIF and SVG downloads where the Worker is hardest to start, in headless Debian chromium:
//  - <attn-scale-demo> loaded from another origin: the GIF's Worker is a blob: Worker that imports
//    its script by URL (a Worker from another origin's URL throws SecurityError), and the GIF
//    comes out of it, not of the page's thread; the SVG of a chart in the shadow root;
//  - embed.html: the GIF and the SVG of its panel;
//  - the page under the strict Content-Security-Policy: the GIF in a same-origin Worker, no violation;
//  - the offline single file from file:// with the network off: its inlined GIF Worker.
import { describe } from 'node:test';
import assert from 'node:assert/strict';
import { cp, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { watchErrors, waitForApp, waitForDemos, test } from '../support/browser.js';
import { useEmbedSites, DIST, NO_FAVICON, waitForDemoSweeps } from '../support/embed-sites.js';
import { gifOf, svgOf, framesDiffer } from '../support/exports.js';

const sites = useEmbedSites();

describe('GIF and SVG downloads in embeds', () => {
  test('the web component from another origin: the GIF in a blob: Worker, the SVG from its shadow root', async () => {
    await writeFile(
      join(sites.hostDir, 'exports.html'),
      `<!doctype html><html lang="en"><head><meta charset="utf-8">${NO_FAVICON}<title>A blog post</title>
<script type="module" src="${sites.dist.url}attn-scale-demo.js"></script></head><body>
<attn-scale-demo id="demo" panel="spread,sigma" dk="128" scale="none" seq-len="128"></attn-scale-demo></body></html>`,
    );
    const { page, errors } = await sites.open(`${sites.host.url}exports.html`);
    await waitForDemos(page);
    await waitForDemoSweeps(page);
    const demo = page.locator('#demo');
    const workers = [];
    page.on('worker', (w) => workers.push(w.url()));
    const { gif, status } = await gifOf(page, demo, 'sigma');
    assert.doesNotMatch(status, /No Worker/);
    assert.ok(
      workers.some((u) => u.startsWith('blob:')),
      `a blob: Worker started: ${workers}`,
    );
    assert.ok(framesDiffer(gif, 0, 12) > 500);
    const svg = await svgOf(page, demo, 'spread');
    assert.deepEqual(svg.axisLabels, ['logit value', 'density']);
    assert.ok(svg.shapes > 10 && svg.tickLabels.length > 8);
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('embed.html: the GIF and the SVG of its panel', async () => {
    const { page, errors } = await sites.open(`${sites.dist.url}embed.html?panel=heatmap&seqLen=128`);
    await waitForApp(page);
    const { gif, status } = await gifOf(page, page, 'heatmap');
    assert.doesNotMatch(status, /No Worker/);
    assert.ok(framesDiffer(gif, 0, 12) > 500);
    const svg = await svgOf(page, page, 'heatmap');
    assert.equal(svg.images, 2);
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('the strict CSP: the GIF in a same-origin Worker, no violation', async () => {
    const page = await sites.browser.newPage({ reducedMotion: 'reduce' });
    await page.addInitScript(() => {
      window.__csp = [];
      document.addEventListener('securitypolicyviolation', (e) =>
        window.__csp.push(`${e.violatedDirective} ${e.blockedURI}`),
      );
    });
    const errors = watchErrors(page);
    await page.goto(`${sites.csp.url}?seqLen=128`);
    await waitForApp(page);
    const { status } = await gifOf(page, page, 'entropy');
    assert.doesNotMatch(status, /No Worker/);
    await svgOf(page, page, 'entropy');
    assert.deepEqual(await page.evaluate(() => window.__csp), []);
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('the offline single file from file://: the GIF in its inlined Worker', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'attnscale-offline-gif-'));
    const file = join(dir, 'attnscale-offline.html');
    await cp(join(DIST, 'attnscale-offline.html'), file);
    const url = pathToFileURL(file).href;
    const context = await sites.browser.browser.newContext({
      viewport: { width: 1280, height: 900 },
      reducedMotion: 'reduce',
      acceptDownloads: true,
    });
    try {
      await context.setOffline(true);
      await context.route('**/*', (route) =>
        route.request().url().split(/[?#]/)[0] === url ? route.continue() : route.abort(),
      );
      const page = await context.newPage();
      const errors = watchErrors(page);
      await page.goto(`${url}?seqLen=128`);
      await waitForApp(page);
      const { gif, status } = await gifOf(page, page, 'spread');
      assert.doesNotMatch(status, /No Worker/);
      assert.ok(framesDiffer(gif, 0, 12) > 500);
      assert.deepEqual(errors, []);
    } finally {
      await context.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
