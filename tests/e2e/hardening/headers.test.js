// The security headers the docs tell hosts to send, served exactly as written there (read from
// the docs' marked blocks): the page and embed.html work under them
// with no CSP violation; embed.html can be framed by another origin, the full page cannot; the
// wasm goes out as application/wasm with nosniff, so streaming compilation is used.
import { before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import { access, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer, repoRoot } from '../support/serve-dist.js';
import { launchBrowser, watchErrors, waitForApp, test } from '../support/browser.js';
import { docBlock, headerLines } from '../support/doc-blocks.js';

/** The headers the docs tell a host to send for `name` (the page or embed.html). */
const documentedHeaders = async (name) => headerLines(await docBlock('headers', name));

// Every CSP violation, reported by the page itself.
const CSP_WATCH = () => {
  window.__csp = [];
  document.addEventListener('securitypolicyviolation', (e) =>
    window.__csp.push(`${e.violatedDirective} ${e.blockedURI}`),
  );
};

let pageHeaders, embedHeaders, site, embedSite, hostDir, host, browser;

before(async () => {
  await access(join(repoRoot, 'dist', 'embed.html')).catch(() => {
    throw new Error('dist/ is missing: run `npm run build` first');
  });
  [pageHeaders, embedHeaders] = await Promise.all([documentedHeaders('page'), documentedHeaders('embed')]);
  site = await startServer({ headers: pageHeaders });
  embedSite = await startServer({ headers: embedHeaders });
  hostDir = await mkdtemp(join(tmpdir(), 'attnscale-headers-'));
  host = await startServer({ root: hostDir });
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await Promise.all([site?.close(), embedSite?.close(), host?.close()]);
  if (hostDir) await rm(hostDir, { recursive: true, force: true });
});

describe('documented security headers', () => {
  test('the documented blocks hold the header set', () => {
    for (const hs of [pageHeaders, embedHeaders]) {
      assert.match(hs['content-security-policy'], /script-src 'self' 'wasm-unsafe-eval'/);
      assert.match(hs['content-security-policy'], /style-src 'self'/);
      assert.equal(hs['x-content-type-options'], 'nosniff');
      assert.ok(hs['referrer-policy']);
    }
    assert.match(pageHeaders['content-security-policy'], /frame-ancestors 'none'/);
    assert.match(embedHeaders['content-security-policy'], /frame-ancestors \*/);
  });

  test('the page and embed.html work under them: charts, no CSP violation, wasm as application/wasm', async () => {
    for (const [server, path] of [
      [site, '?dk=128&scale=none'],
      [embedSite, 'embed.html?panel=spread,heatmap&controls=dk&dk=128&scale=none'],
    ]) {
      const page = await browser.newPage({ reducedMotion: 'reduce' });
      await page.addInitScript(CSP_WATCH);
      const errors = watchErrors(page);
      await page.goto(server.url + path);
      await waitForApp(page, { sweeps: false });
      assert.ok(
        Math.abs(parseFloat(await page.locator('[data-stat="rawLogitStd"]').first().textContent()) - 11.36) <
          0.05,
        path,
      );
      assert.equal(await page.locator('[data-panel="spread"]').getAttribute('data-drawn'), 'true');
      assert.deepEqual(await page.evaluate(() => window.__csp), [], `${path}: CSP violations`);
      assert.deepEqual(errors, [], path);
      await page.close();
      // The wasm is fetched by the Worker: check what the server sent for it.
      const sent = server.log.filter((e) => e.path.endsWith('.wasm') && e.status === 200);
      assert.ok(sent.length >= 1, `${path}: wasm fetched`);
      for (const e of sent) assert.equal(e.type, 'application/wasm');
    }
  });

  test('another origin can frame embed.html, not the full page', async () => {
    await writeFile(
      join(hostDir, 'frames.html'),
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>Frames</title></head>
<body><iframe id="embed" title="embed" src="${embedSite.url}embed.html?panel=spread&dk=128"></iframe>
<iframe id="page" title="page" src="${site.url}"></iframe></body></html>`,
    );
    const page = await browser.newPage({ reducedMotion: 'reduce' });
    const refused = [];
    // The browser's report of the refusal is the state this test waits for (it comes once the
    // full page's response is in, at any time relative to the embed frame's start).
    const refusal = new Promise((resolve) => {
      page.on('console', (m) => {
        if (!/frame-ancestors|Refused to (display|frame)/i.test(m.text())) return;
        refused.push(m.text());
        resolve();
      });
    });
    await page.goto(`${host.url}frames.html`);
    const embed = page.frames().find((f) => f.url().startsWith(embedSite.url));
    assert.ok(embed, 'embed frame loaded');
    await embed.waitForFunction(() => document.getElementById('app')?.dataset.state === 'ready', null, {
      timeout: 60000,
    });
    await refusal;
    // The full page's frame was refused: the browser shows no document of it.
    const full = page.frames().find((f) => f.url().startsWith(site.url) && f !== page.mainFrame());
    const fullLoaded = full
      ? await full.evaluate(() => !!document.getElementById('app')).catch(() => false)
      : false;
    assert.equal(fullLoaded, false, 'the full page must not render inside another origin');
    assert.ok(refused.length >= 1, 'the browser reports the refusal');
    await page.close();
  });
});
