// dist/ served under a deep sub-path, as a project site on GitHub Pages is: the page,
// embed.html and a same-origin component host page all load every file from under the prefix and
// draw. Needs a built dist/ (npm run build).
import { before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import { access, cp, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer, repoRoot } from '../support/serve-dist.js';
import { launchBrowser, watchErrors, waitForApp, waitForDemos, test } from '../support/browser.js';

const PREFIX = '/some/deep/path/';
let tmp, site, browser;

before(async () => {
  await access(join(repoRoot, 'dist', 'attn-scale-demo.js')).catch(() => {
    throw new Error('dist/ is missing: run `npm run build` first');
  });
  tmp = await mkdtemp(join(tmpdir(), 'attnscale-subpath-'));
  await cp(join(repoRoot, 'dist'), tmp, { recursive: true });
  await writeFile(
    join(tmp, 'host.html'),
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>host</title>
<link rel="icon" href="data:,"><script type="module" src="./attn-scale-demo.js"></script></head>
<body><attn-scale-demo dk="128" scale="none" panel="spread,sigma"></attn-scale-demo></body></html>\n`,
  );
  site = await startServer({ root: tmp, prefix: PREFIX });
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await site?.close();
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

/** Every request stayed under the prefix and found its file (the server logs the rest as 404s). */
function assertAllUnderPrefix() {
  const missed = site.log.filter((r) => r.status === 404).map((r) => r.path);
  assert.deepEqual(missed, [], 'requests outside the prefix or to missing files');
  site.log.length = 0;
}

// The training panel draws once training starts; every other panel draws on load.
const panelsDrawn = (root) =>
  root
    .locator('[data-panel]:not([data-panel="training"])')
    .evaluateAll((els) => els.length > 0 && els.every((e) => e.dataset.drawn === 'true'));

describe(`dist/ under ${PREFIX}`, () => {
  test('the page: ready, every panel drawn, its links stay under the prefix', async () => {
    assert.ok(site.url.endsWith(PREFIX));
    const page = await browser.newPage({ reducedMotion: 'reduce' });
    const errors = watchErrors(page);
    await page.goto(`${site.url}?dk=128&scale=none`);
    await waitForApp(page, { chapter8: true, timeout: 120000 });
    assert.equal(await page.locator('#app').getAttribute('data-state'), 'ready');
    assert.ok(await panelsDrawn(page));
    assert.ok(
      Math.abs(
        parseFloat(await page.locator('[data-stat="rawLogitStd"]').first().textContent()) - Math.sqrt(128),
      ) < 0.3,
    );
    assert.ok(site.log.some((r) => r.path.endsWith('.wasm')));
    assertAllUnderPrefix();
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('embed.html: ready, its panels drawn, the link back points to the page under the prefix', async () => {
    const page = await browser.newPage({ reducedMotion: 'reduce' });
    const errors = watchErrors(page);
    await page.goto(`${site.url}embed.html?panel=spread,sigma&dk=64`);
    await waitForApp(page, { chapter8: true, timeout: 120000 });
    assert.ok(await panelsDrawn(page));
    assert.ok((await page.locator('#full-link').evaluate((a) => a.href)).startsWith(`${site.url}index.html`));
    assertAllUnderPrefix();
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('a component host page under the prefix: the element draws, its link opens the page under the prefix', async () => {
    const page = await browser.newPage({ reducedMotion: 'reduce' });
    const errors = watchErrors(page);
    await page.goto(`${site.url}host.html`);
    await waitForDemos(page, { timeout: 120000 });
    const demo = page.locator('attn-scale-demo');
    assert.ok(await panelsDrawn(demo));
    assert.ok(
      Math.abs(
        parseFloat(await demo.locator('[data-stat="rawLogitStd"]').first().textContent()) - Math.sqrt(128),
      ) < 0.3,
    );
    assert.ok((await demo.locator('.as-foot a').evaluate((a) => a.href)).startsWith(`${site.url}index.html`));
    assertAllUnderPrefix();
    assert.deepEqual(errors, []);
    await page.close();
  });
});
