// <attn-scale-demo> served from another origin, as a blog uses it, in headless Debian chromium:
//  - the host page sends exactly the Content-Security-Policy that the docs (block
//    csp:cross-origin) tell such hosts to send, with its placeholder origin
//    replaced by the component's: the element draws, trains, in a real (blob:) Worker, with no
//    securitypolicyviolation and no console error;
//  - a host policy without blob: in worker-src: the engine runs on the page's thread and the
//    notice names worker-src and what it must allow;
//  - the script cannot load (served without CORS, or missing): the element's own children, a
//    link to the demo, are what the reader sees. Screenshot: tests/output/component-script-blocked.png.
import { before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import { access, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer, repoRoot } from '../support/serve-dist.js';
import { launchBrowser, watchErrors, test } from '../support/browser.js';
import { docBlock, headerLines } from '../support/doc-blocks.js';

const OUT = join(repoRoot, 'tests', 'output');
const PLACEHOLDER = 'https://attnscale.example';
const LINK_TEXT = 'Open the attnscale demo';

/** The Content-Security-Policy that the docs tell hosts of the component on another origin to send. */
async function documentedPolicy() {
  const policy = headerLines(await docBlock('csp', 'cross-origin'))['content-security-policy'];
  if (!policy) throw new Error('the csp:cross-origin block has no Content-Security-Policy line');
  return policy;
}

// Every CSP violation, reported by the page itself (first thing in the page).
const CSP_WATCH = () => {
  window.__csp = [];
  document.addEventListener('securitypolicyviolation', (e) =>
    window.__csp.push(`${e.effectiveDirective} ${e.blockedURI}`),
  );
};

const hostPage = (
  scriptUrl,
) => `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>A blog post</title>
<script type="module" src="${scriptUrl}"></script></head><body><main><h1>A blog post</h1>
<p>Some text before the demo.</p>
<attn-scale-demo id="demo" panel="spread,training" dk="128" scale="none"><a href="https://example.org/attnscale/?dk=128&amp;scale=none">${LINK_TEXT}</a></attn-scale-demo>
<p id="after">Text after.</p></main></body></html>`;

let tmp, cdn, noCors, browser, policy;
const hosts = [];

/** A host origin serving `html` as host.html with `headers`. */
async function host(html, headers = {}) {
  const dir = await mkdtemp(join(tmp, 'host-'));
  await writeFile(join(dir, 'host.html'), html);
  // The host's own favicon request would otherwise hit default-src 'self' with a 404: harmless, but noise.
  await writeFile(join(dir, 'favicon.ico'), '');
  const server = await startServer({ root: dir, headers });
  hosts.push(server);
  return `${server.url}host.html`;
}

before(async () => {
  await access(join(repoRoot, 'dist', 'attn-scale-demo.js')).catch(() => {
    throw new Error('dist/ is missing: run `npm run build` first');
  });
  await mkdir(OUT, { recursive: true });
  tmp = await mkdtemp(join(tmpdir(), 'attnscale-cross-origin-'));
  policy = await documentedPolicy();
  cdn = await startServer({ headers: { 'access-control-allow-origin': '*' } });
  noCors = await startServer();
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await Promise.all([cdn?.close(), noCors?.close(), ...hosts.map((s) => s.close())]);
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

async function open(url) {
  const page = await browser.newPage({ reducedMotion: 'reduce' });
  await page.addInitScript(CSP_WATCH);
  const errors = watchErrors(page);
  await page.goto(url);
  return { page, errors };
}

const demoState = (page) =>
  page
    .waitForFunction(
      () => {
        const s = document.getElementById('demo').shadowRoot?.querySelector('.as-root')?.dataset.state;
        return (s === 'ready' || s === 'failed') && s;
      },
      null,
      { timeout: 90000 },
    )
    .then((h) => h.jsonValue());

const inDemo = (page, sel) =>
  page.evaluate((s) => document.getElementById('demo').shadowRoot.querySelector(s)?.textContent ?? null, sel);

describe('component from another origin', () => {
  test('the documented policy for such hosts: charts and training in a real Worker, no violation', async () => {
    const origin = cdn.url.replace(/\/$/, '');
    assert.ok(policy.includes(PLACEHOLDER), `the documented policy names ${PLACEHOLDER}`);
    const url = await host(hostPage(`${cdn.url}attn-scale-demo.js`), {
      'content-security-policy': policy.replaceAll(PLACEHOLDER, origin),
    });
    const { page, errors } = await open(url);
    assert.equal(await demoState(page), 'ready');
    await page.waitForFunction(
      () =>
        document.getElementById('demo').shadowRoot.querySelector('[data-panel="spread"]').dataset.drawn ===
        'true',
    );
    assert.equal(await inDemo(page, '[data-engine-note]'), null, 'no main-thread notice');
    assert.ok(
      page.workers().some((w) => w.url().startsWith('blob:')),
      `a blob: Worker runs: ${page.workers().map((w) => w.url())}`,
    );
    // The link the host put inside the element is hidden once a chart is drawn.
    assert.equal(await page.locator(`#demo > a`).isVisible(), false);
    // Training runs in a Worker of its own (another blob: Worker).
    await page.waitForFunction(
      () => !!document.getElementById('demo').shadowRoot.querySelector('[data-action="step"]'),
    );
    await page.evaluate(() =>
      document.getElementById('demo').shadowRoot.querySelector('[data-action="step"]').click(),
    );
    await page.waitForFunction(
      () =>
        document.getElementById('demo').shadowRoot.querySelector('[data-stat="train.step"]').textContent ===
        '10',
      null,
      { timeout: 60000 },
    );
    assert.ok(
      page.workers().filter((w) => w.url().startsWith('blob:')).length >= 2,
      'foreground and training Workers',
    );
    assert.ok(Math.abs(parseFloat(await inDemo(page, '[data-stat="rawLogitStd"]')) - 11.36) < 0.05);
    assert.deepEqual(await page.evaluate(() => window.__csp), []);
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('a policy without blob: in worker-src: main thread, and the notice says what worker-src must allow', async () => {
    const origin = cdn.url.replace(/\/$/, '');
    const strict = policy.replaceAll(PLACEHOLDER, origin).replace(/worker-src [^;]*/, "worker-src 'self'");
    assert.notEqual(strict, policy.replaceAll(PLACEHOLDER, origin));
    const { page } = await open(
      await host(hostPage(`${cdn.url}attn-scale-demo.js`), { 'content-security-policy': strict }),
    );
    assert.equal(await demoState(page), 'ready');
    const note = await inDemo(page, '[data-engine-note]');
    assert.match(note ?? '', /Content-Security-Policy refused the engine’s Web Worker \(worker-src\)/);
    assert.match(note, /worker-src must allow blob:\./);
    assert.ok((await page.evaluate(() => window.__csp)).some((v) => v.startsWith('worker-src blob')));
    await page.close();
  });

  test("the script cannot load: the reader sees the element's own link", async () => {
    // Served without CORS (a cross-origin module script is then refused), and a wrong URL (404).
    for (const [name, src] of [
      ['no CORS', `${noCors.url}attn-scale-demo.js`],
      ['404', `${cdn.url}no-such-script.js`],
    ]) {
      const { page } = await open(await host(hostPage(src)));
      await page.waitForLoadState('load');
      const link = page.getByRole('link', { name: LINK_TEXT });
      assert.ok(await link.isVisible(), `${name}: the link is shown`);
      assert.equal(
        await page.evaluate(() => customElements.get('attn-scale-demo') ?? null),
        null,
        `${name}: the element is not defined`,
      );
      assert.equal(await page.locator('#after').textContent(), 'Text after.');
      if (name === 'no CORS') await page.screenshot({ path: join(OUT, 'component-script-blocked.png') });
      await page.close();
    }
  });
});
