// End-to-end tests of the embeds, in headless Debian chromium via playwright-core:
// the <attn-scale-demo> web component in a hostile host page on another origin, embed.html in an
// iframe, the main page's Embed dialog (and its snippets pasted into a page), the offline single
// file opened alone from file:// with the network off, everything under the strict CSP, and the
// size budgets. Needs a built dist/ (npm run build).
import { before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import { access, cp, mkdir, mkdtemp, rm, stat as fsStat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { startServer, repoRoot } from './serve-dist.js';
import { launchBrowser, watchErrors, waitForApp, waitForDemos, test } from './browser.js';

const OUT = join(repoRoot, 'tests', 'output');
const DIST = join(repoRoot, 'dist');
export const STRICT_CSP =
  "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'; worker-src 'self' blob:";
const HOSTILE_CSS =
  '* { color: red !important; font-size: 40px } canvas { display: none } div { padding: 30px; border: 3px solid lime }';
const NO_FAVICON = '<link rel="icon" href="data:,">';
const BUDGET_COMPONENT_GZIP = 150 * 1024;
const BUDGET_SINGLE_FILE = 600 * 1024;

let tmp, site, hostDir, dist, host, csp, browser;

before(async () => {
  await access(join(DIST, 'attn-scale-demo.js')).catch(() => {
    throw new Error('dist/ is missing or old: run `npm run build` first');
  });
  await mkdir(OUT, { recursive: true });
  tmp = await mkdtemp(join(tmpdir(), 'attnscale-embed-'));
  // The site: a copy of dist/ plus same-origin fixtures; the host: another origin.
  site = join(tmp, 'site');
  hostDir = join(tmp, 'host');
  await cp(DIST, site, { recursive: true });
  await mkdir(hostDir);
  // Cross-origin module scripts need CORS, as on any CDN or static host that allows embedding.
  dist = await startServer({ root: site, headers: { 'access-control-allow-origin': '*' } });
  host = await startServer({ root: hostDir });
  csp = await startServer({ root: site, headers: { 'content-security-policy': STRICT_CSP } });
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await Promise.all([dist?.close(), host?.close(), csp?.close()]);
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

/** Open a page; console errors and page errors are collected (a data: favicon avoids a 404). */
async function open(url, opts = {}) {
  const page = await browser.newPage({ reducedMotion: 'reduce', ...opts });
  const errors = watchErrors(page);
  await page.goto(url);
  return { page, errors };
}

/** Wait until no panel of any element is still receiving sweep points. */
const waitForDemoSweeps = (page) =>
  page.waitForFunction(
    () =>
      [...document.querySelectorAll('attn-scale-demo')].every((el) =>
        [...el.shadowRoot.querySelectorAll('[data-panel]')].every(
          (p) => !p.classList.contains('is-stale') && !p.querySelector('.panel-status')?.textContent,
        ),
      ),
    null,
    { timeout: 120000, polling: 200 },
  );

/** Distinct colours in the first canvas under `locator` (real pixels, not a blank canvas). */
const canvasColours = (locator) =>
  locator
    .locator('canvas')
    .first()
    .evaluate((c) => {
      const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
      const seen = new Set();
      for (let i = 0; i < d.length; i += 4 * 7) seen.add((d[i] << 16) | (d[i + 1] << 8) | d[i + 2]);
      return seen.size;
    });

const demoStat = async (page, id, name) =>
  parseFloat(await page.locator(`#${id} [data-stat="${name}"]`).first().textContent());
const demoQuery = (page, id) =>
  page.evaluate(
    (i) => document.getElementById(i).shadowRoot.querySelector('.as-root').dataset.resultQuery,
    id,
  );
/** Wait until the element's last result was computed for a config matching `re`. */
const waitDemoQuery = (page, id, re) =>
  page.waitForFunction(
    ([i, src]) =>
      new RegExp(src).test(
        document.getElementById(i).shadowRoot.querySelector('.as-root').dataset.resultQuery ?? '',
      ),
    [id, re.source],
    { timeout: 60000 },
  );

/** In the frame (self-contained): every panel drawn and complete, so the content's height is final. */
const frameSettled = () =>
  document.getElementById('app')?.dataset.state === 'ready' &&
  [...document.querySelectorAll('[data-panel]')].every(
    (p) =>
      p.dataset.drawn === 'true' &&
      !p.classList.contains('is-stale') &&
      !p.querySelector('.panel-status')?.textContent,
  );

/** The frame's content height, as embed.js measures it before it posts it. */
const contentHeight = () => Math.ceil(document.documentElement.getBoundingClientRect().height);

/**
 * Waits until the iframe #f has nothing left to draw and its fonts are in, then until the host has
 * sized #f to that content height (and, with `posted`, until the last height the frame posted is
 * that one), and then checks that the content height is still the same: a late change (a font, a
 * resize) starts the wait over. Reading the two sides while the frame still changes would compare
 * two different moments. Returns { height, content, posted, sized } from the last, stable round.
 */
async function waitFrameSized(page, frame, { posted = false, timeout = 120000 } = {}) {
  const until = Date.now() + timeout;
  let last;
  for (;;) {
    const left = Math.max(1000, until - Date.now());
    await frame.waitForFunction(`(${frameSettled})() && document.fonts.status === 'loaded'`, null, {
      timeout: left,
      polling: 200,
    });
    const height = await frame.evaluate(contentHeight);
    const matched = await page
      .waitForFunction(
        ([h, checkPosted]) =>
          document.getElementById('f').clientHeight === h && (!checkPosted || window.__heights.at(-1) === h),
        [height, posted],
        { timeout: Math.min(left, 10000), polling: 100 },
      )
      .then(
        () => true,
        () => false,
      );
    const host = await page.evaluate(() => ({
      sized: document.getElementById('f').clientHeight,
      posted: window.__heights?.at(-1),
    }));
    last = { height, content: await frame.evaluate(contentHeight), ...host };
    if (matched && last.content === height) return last;
    if (Date.now() > until) throw new Error(`the frame's height did not settle: ${JSON.stringify(last)}`);
  }
}

const LISTENER = `window.__heights = [];
addEventListener('message', (e) => { if (e.data?.type === 'attnscale:height') { window.__heights.push(e.data.height); for (const f of document.querySelectorAll('iframe')) if (f.contentWindow === e.source) f.style.height = e.data.height + 'px'; } });`;

describe('embeds', () => {
  test('hostile host page on another origin: two elements and an iframe render, isolated both ways, live attributes, iframe height', async () => {
    await writeFile(
      join(hostDir, 'hostile.html'),
      `<!doctype html><html lang="en"><head><meta charset="utf-8">${NO_FAVICON}
<title>A hostile blog</title><style>${HOSTILE_CSS}</style>
<script type="module" src="${dist.url}attn-scale-demo.js"></script></head><body>
<p id="host-text">The host's own paragraph.</p>
<attn-scale-demo id="a" dk="128" scale="none" panel="spread,heatmap"></attn-scale-demo>
<attn-scale-demo id="b" dk="16" panel="sigma" controls="dk,scale" theme="dark"></attn-scale-demo>
<iframe id="f" src="${dist.url}embed.html?panel=entropy&amp;dk=64" title="attnscale entropy" width="100%" height="300"></iframe>
<script>${LISTENER}</script></body></html>`,
    );
    const { page, errors } = await open(`${host.url}hostile.html`, { width: 1100, height: 900 });
    const hostSheets = await page.evaluate(
      () => document.querySelectorAll('style, link[rel="stylesheet"]').length,
    );
    await waitForDemos(page);

    // Both render real charts, with their own d_k, untouched by the host's CSS.
    for (const [id, dk, panels] of [
      ['a', 128, ['spread', 'heatmap']],
      ['b', 16, ['sigma']],
    ]) {
      for (const name of panels) {
        const panel = page.locator(`#${id} [data-panel="${name}"]`);
        assert.ok((await canvasColours(panel)) > 8, `${id}/${name} has pixels`);
        assert.notEqual(
          await panel
            .locator('canvas')
            .first()
            .evaluate((c) => getComputedStyle(c).display),
          'none',
          `${id}/${name} canvas shown`,
        );
      }
      const raw = await demoStat(page, id, 'rawLogitStd');
      assert.ok(
        Math.abs(raw - Math.sqrt(dk)) < 0.05 * Math.sqrt(dk) + 0.1,
        `#${id}: rawLogitStd ${raw} for d_k ${dk}`,
      );
      assert.match(await demoQuery(page, id), new RegExp(`(^|&)dk=${dk}(&|$)`));
      const look = await page
        .locator(`#${id} [data-stat="rawLogitStd"]`)
        .first()
        .evaluate((dd) => {
          const cs = getComputedStyle(dd);
          return { color: cs.color, size: parseFloat(cs.fontSize), padding: cs.paddingTop };
        });
      assert.notEqual(look.color, 'rgb(255, 0, 0)', `#${id} readout not red`);
      assert.ok(look.size > 11 && look.size < 16, `#${id} readout font-size ${look.size}px`);
      assert.equal(look.padding, '0px', `#${id}: the host's div rule does not reach in`);
    }
    assert.match(
      await page.locator('#a [data-panel="spread"] .caption:not(.gaps)').first().textContent(),
      /d_k = 128/,
    );
    assert.match(
      await page.locator('#b [data-panel="sigma"] .caption:not(.gaps)').first().textContent(),
      /d_k = 16/,
    );
    // Nothing leaks out: the host's own text keeps the host's style; no stylesheet was added to it.
    const hostP = await page
      .locator('#host-text')
      .evaluate((p) => ({ color: getComputedStyle(p).color, size: getComputedStyle(p).fontSize }));
    assert.deepEqual(hostP, { color: 'rgb(255, 0, 0)', size: '40px' });
    assert.equal(
      await page.evaluate(() => document.querySelectorAll('style, link[rel="stylesheet"]').length),
      hostSheets,
    );
    // The two elements share one engine client: one foreground and one background Worker (blob
    // Workers here, as the script comes from another origin); the iframe has its own.
    const blobWorkers = page
      .workers()
      .filter((w) => w.url().startsWith(`blob:${host.url.replace(/\/$/, '')}`));
    assert.equal(
      blobWorkers.length,
      2,
      `workers: ${page
        .workers()
        .map((w) => w.url())
        .join(', ')}`,
    );

    // Attribute changes update live.
    await page.evaluate(() => document.getElementById('a').setAttribute('dk', '64'));
    await waitDemoQuery(page, 'a', /(^|&)dk=64&/);
    assert.ok(Math.abs((await demoStat(page, 'a', 'rawLogitStd')) - 8) < 0.5);
    await page.evaluate(() => document.getElementById('a').removeAttribute('scale'));
    await waitDemoQuery(page, 'a', /scale=sqrt/);
    assert.equal(await demoStat(page, 'a', 'scaleFactor'), 0.125);
    await page.evaluate(() => document.getElementById('b').setAttribute('panel', 'sigma,precision'));
    await waitForDemos(page);
    assert.equal(await page.locator('#b [data-panel]').count(), 2);
    assert.match(await demoQuery(page, 'b'), /(^|&)dk=16&/, 'state kept across a panel change');
    const bg = () =>
      page.evaluate(
        () =>
          getComputedStyle(document.getElementById('a').shadowRoot.querySelector('.as-root')).backgroundColor,
      );
    const light = await bg();
    await page.evaluate(() => document.getElementById('a').setAttribute('theme', 'dark'));
    assert.notEqual(await bg(), light, 'theme attribute switches the theme');
    // The element's own controls drive it too (keyboard on the d_k slider of #b).
    await page.locator('#b [data-field="dk"] input[type="range"]').focus();
    await page.keyboard.press('ArrowRight');
    await waitDemoQuery(page, 'b', /(^|&)dk=32&/);

    // The iframe posts its content height; the one-line listener sizes it.
    await page.locator('#f').scrollIntoViewIfNeeded();
    await page.waitForFunction(() => window.__heights.some((x) => x > 400), null, { timeout: 60000 });
    const frame = page.frames().find((f) => f.url().includes('embed.html'));
    const sized = await waitFrameSized(page, frame, { posted: true });
    assert.deepEqual(
      [sized.content, sized.posted, sized.sized],
      [sized.height, sized.height, sized.height],
      'the frame posts its content height and the host sizes it to that',
    );
    assert.equal(
      await frame.evaluate(() => document.querySelector('[data-panel="entropy"]').dataset.drawn),
      'true',
    );
    await waitForDemoSweeps(page);
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.screenshot({ path: join(OUT, 'embed-host.png'), fullPage: true });
    // A cross-origin frame below the fold is not painted into a full-page capture: its own shot.
    await page.locator('#f').screenshot({ path: join(OUT, 'embed-host-iframe.png') });
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('bad attributes: a notice inside the element, a working chart, the host page intact', async () => {
    await writeFile(
      join(hostDir, 'bad.html'),
      `<!doctype html><html lang="en"><head><meta charset="utf-8">${NO_FAVICON}<title>Bad attributes</title>
<script type="module" src="${dist.url}attn-scale-demo.js"></script></head><body>
<h1>Host heading</h1><p id="host-text">Host paragraph.</p>
<attn-scale-demo id="bad" dk="abc" seq-len="99999" panel="spread,nope" theme="purple" controls="dk,bogus"
  scale="&lt;img src=x onerror=window.__pwned=1&gt;" causal="maybe" correlation="5"></attn-scale-demo>
<p id="after">Host text after the element.</p>
<script>window.__before = document.body.innerHTML;</script></body></html>`,
    );
    const { page, errors } = await open(`${host.url}bad.html`);
    await waitForDemos(page);
    const notice = await page.locator('#bad .as-notices').textContent();
    for (const f of ['dk', 'seqLen', 'panel', 'theme', 'controls', 'scale', 'causal', 'correlation']) {
      assert.match(notice, new RegExp(`\\b${f}=`), `notice names ${f}`);
    }
    assert.match(notice, /seqLen=99999 is above the allowed range 8\.\.2048; using seqLen=2048/);
    assert.match(notice, /panel=nope is not one of/);
    // Text only: no element made from attribute text, nothing run.
    assert.equal(
      await page.evaluate(() => document.getElementById('bad').shadowRoot.querySelectorAll('img').length),
      0,
    );
    assert.equal(await page.evaluate(() => document.querySelectorAll('img').length), 0);
    assert.equal(await page.evaluate(() => window.__pwned), undefined);
    // The element works with the values it used; the host page is exactly as it was.
    assert.match(await demoQuery(page, 'bad'), /(^|&)dk=64&seqLen=2048&/);
    assert.ok((await canvasColours(page.locator('#bad [data-panel="spread"]'))) > 8);
    assert.equal(await page.locator('#bad [data-field="dk"]').count(), 1, 'the valid control is shown');
    assert.equal(
      await page.evaluate(() => document.body.innerHTML === window.__before),
      true,
      'host DOM untouched',
    );
    assert.equal(await page.locator('h1').textContent(), 'Host heading');
    // Fixing an attribute applies it; a new bad value gives a new notice.
    await page.evaluate(() => document.getElementById('bad').setAttribute('dk', '256'));
    await waitDemoQuery(page, 'bad', /(^|&)dk=256&/);
    await page.evaluate(() => document.getElementById('bad').setAttribute('precision', 'fp7'));
    await page.locator('#bad .as-app-notices .notice').filter({ hasText: 'precision=fp7' }).waitFor();
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('embed.html: the chosen panels only, a link back with the same state, option notices', async () => {
    const q = 'panel=spread,sigma&controls=dk,scale&theme=dark&dk=128&scale=none&seqLen=128';
    const { page, errors } = await open(`${dist.url}embed.html?${q}`, { width: 760, height: 900 });
    await waitForApp(page);
    assert.deepEqual(await page.$$eval('[data-panel]', (els) => els.map((e) => e.dataset.panel)), [
      'spread',
      'sigma',
    ]);
    assert.equal(await page.locator('h1, .site-head, .presets-box, .story').count(), 0, 'no page chrome');
    assert.deepEqual(await page.$$eval('[data-field]', (els) => els.map((e) => e.dataset.field)), [
      'dk',
      'scale',
    ]);
    assert.equal(await page.evaluate(() => document.documentElement.dataset.theme), 'dark');
    assert.ok(
      Math.abs(
        parseFloat(await page.locator('[data-stat="rawLogitStd"]').first().textContent()) - Math.sqrt(128),
      ) < 0.3,
    );
    const link = new URL(await page.locator('#full-link').getAttribute('href'));
    assert.equal(link.pathname, '/index.html');
    assert.equal(link.searchParams.get('dk'), '128');
    assert.equal(link.searchParams.get('scale'), 'none');
    assert.equal(link.searchParams.get('seqLen'), '128');
    await page.screenshot({ path: join(OUT, 'embed-page.png'), fullPage: true });
    // The link follows the embed's own controls: at 760 px wide, its dock's.
    await page.locator('[data-dock] select[name="scale"]').selectOption('linear');
    await page.waitForFunction(() => /scale=linear/.test(document.getElementById('full-link').href));
    // The full page opened from the link shows the same state.
    const full = await open(await page.locator('#full-link').getAttribute('href'));
    await waitForApp(full.page, { sweeps: false });
    assert.equal(await full.page.locator('[data-field="dk"] input[type="number"]').inputValue(), '128');
    assert.equal(await full.page.locator('[data-field="scale"] input[value="linear"]').isChecked(), true);
    assert.deepEqual([...errors, ...full.errors], []);
    await page.close();
    await full.page.close();

    const bad = await open(`${dist.url}embed.html?panel=bogus&theme=x&controls=zzz&dk=0`);
    await waitForApp(bad.page, { sweeps: false });
    const text = await bad.page.locator('#notices').textContent();
    for (const f of ['panel', 'theme', 'controls', 'dk'])
      assert.match(text, new RegExp(`\\b${f}=`), `notice names ${f}`);
    assert.deepEqual(await bad.page.$$eval('[data-panel]', (els) => els.map((e) => e.dataset.panel)), [
      'spread',
    ]);
    assert.deepEqual(bad.errors, []);
    await bad.page.close();
  });

  test('strict CSP: the page, the embed page and the web component, no violation', async () => {
    // No data: favicon here (img-src falls back to 'self'): the browser asks for /favicon.ico.
    await writeFile(join(site, 'favicon.ico'), '');
    await writeFile(
      join(site, 'csp-host.html'),
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
      const page = await browser.newPage({ reducedMotion: 'reduce' });
      const errors = watchErrors(page);
      const consoleCsp = [];
      page.on('console', (m) => {
        if (/Content Security Policy/i.test(m.text())) consoleCsp.push(m.text());
      });
      await page.addInitScript(record);
      const resp = await page.goto(`${csp.url}${path}`);
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
        await train.click();
        await page.waitForFunction(
          () => document.querySelector('[data-panel="training"]').dataset.drawn === 'true',
          null,
          { timeout: 60000 },
        );
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
    const context = await browser.browser.newContext({
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
        await train.click();
        await page.waitForFunction(
          () => document.querySelector('[data-panel="training"]').dataset.drawn === 'true',
          null,
          { timeout: 60000 },
        );
        await page
          .locator('[data-panel="training"]')
          .screenshot({ path: join(OUT, 'offline-file-training.png') });
      }
      assert.equal(await page.locator('#embed-button').isVisible(), false, 'no Embed button offline');
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

  test('Embed dialog: snippets of the current state, keyboard copy with feedback; the snippets work when pasted', async () => {
    const { page, errors } = await open(`${dist.url}index.html?dk=128&scale=none&seed=7`, {
      width: 1100,
      height: 900,
    });
    await waitForApp(page, { sweeps: false });
    await page
      .context()
      .grantPermissions(['clipboard-read', 'clipboard-write'], { origin: dist.url.replace(/\/$/, '') });
    const button = page.locator('#embed-button');
    await button.focus();
    await page.keyboard.press('Enter');
    const dialog = page.locator('dialog.embed-dialog');
    await dialog.waitFor();
    const iframeCode = dialog.locator('[data-snippet="iframe"] textarea');
    const componentCode = dialog.locator('[data-snippet="web component"] textarea');
    assert.match(
      await componentCode.inputValue(),
      /<attn-scale-demo panel="spread" dk="128" scale="none" seed="7">\n {2}<a href="[^"]*\/index\.html\?[^"]*dk=128&amp;[^"]*seed=7[^"]*">Open the attnscale demo<\/a>\n<\/attn-scale-demo>/,
    );
    assert.match(await iframeCode.inputValue(), /embed\.html\?panel=spread&amp;dk=128&amp;/);
    assert.match(await iframeCode.inputValue(), /title="attnscale: Logit spread"/);
    // Choose charts with the keyboard: the snippets follow.
    await dialog.getByLabel('Attention weights').focus();
    await page.keyboard.press('Space');
    await dialog.getByLabel('d_k and scaling').check();
    assert.match(await componentCode.inputValue(), /panel="spread,heatmap".*controls="dk,scale"/);
    assert.match(
      await iframeCode.inputValue(),
      /embed\.html\?panel=spread,heatmap&amp;controls=dk,scale&amp;dk=128&amp;/,
    );
    // Copy by keyboard: Tab reaches the button, Enter copies, the status says so.
    const copy = dialog.locator('[data-snippet="web component"] .embed-copy');
    assert.equal(await copy.textContent(), 'Copy the web component snippet');
    await componentCode.focus();
    await page.keyboard.press('Tab');
    assert.equal(
      await copy.evaluate((b) => b === document.activeElement),
      true,
      'Tab reaches the copy button',
    );
    await page.keyboard.press('Enter');
    await dialog.locator('.embed-status').filter({ hasText: 'on the clipboard' }).waitFor();
    assert.equal(await copy.textContent(), 'Copied ✓');
    const clip = await page.evaluate(() => navigator.clipboard.readText());
    assert.equal(clip, await componentCode.inputValue());
    await dialog.getByRole('button', { name: 'Copy the iframe snippet' }).click();
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), await iframeCode.inputValue());
    await dialog.screenshot({ path: join(OUT, 'embed-dialog.png') });
    // Escape closes it and gives the focus back.
    await page.keyboard.press('Escape');
    assert.equal(await dialog.isVisible(), false);
    assert.equal(await button.evaluate((b) => b === document.activeElement), true);

    // Paste both snippets into a page on another origin: they render this state.
    const snippetComponent = clip;
    const snippetIframe = await iframeCode.inputValue();
    await writeFile(
      join(hostDir, 'pasted.html'),
      `<!doctype html><html lang="en"><head><meta charset="utf-8">${NO_FAVICON}<title>Pasted</title></head><body>
<p>My post.</p>
${snippetComponent.replace('<attn-scale-demo ', '<attn-scale-demo id="c" ')}
${snippetIframe.replace('<iframe ', '<iframe id="f" ')}
</body></html>`,
    );
    const pasted = await open(`${host.url}pasted.html`, { width: 1100, height: 900 });
    await waitForDemos(pasted.page);
    assert.ok(Math.abs((await demoStat(pasted.page, 'c', 'rawLogitStd')) - Math.sqrt(128)) < 0.3);
    assert.match(await demoQuery(pasted.page, 'c'), /seed=7/);
    assert.equal(
      await pasted.page.locator('#c > a').isVisible(),
      false,
      "the snippet's fallback link hides once the charts are drawn",
    );
    assert.equal(await pasted.page.locator('#c [data-field]').count(), 2);
    await pasted.page.locator('#f').scrollIntoViewIfNeeded();
    const frame = pasted.page.frames().find((f) => f.url().includes('embed.html'));
    await frame.waitForFunction(() => document.getElementById('app').dataset.state === 'ready', null, {
      timeout: 60000,
    });
    assert.match(
      await frame.evaluate(() => document.getElementById('app').dataset.resultQuery),
      /dk=128&.*scale=none&.*seed=7/,
    );
    // The snippet's own listener sizes the frame to its content, once that content is final.
    const { height } = await waitFrameSized(pasted.page, frame);
    assert.ok(height > 400, `the pasted listener sized the iframe to its content (${height} px)`);
    assert.deepEqual([...errors, ...pasted.errors], []);
    await page.close();
    await pasted.page.close();
  });

  test('budgets: the web component ≤ 150 KB gzip, the single file ≤ 600 KB', async () => {
    await writeFile(
      join(hostDir, 'budget.html'),
      `<!doctype html><html lang="en"><head><meta charset="utf-8">${NO_FAVICON}<title>Budget</title>
<script type="module" src="${dist.url}attn-scale-demo.js"></script></head><body>
<attn-scale-demo panel="spread"></attn-scale-demo><attn-scale-demo panel="sigma" dk="32"></attn-scale-demo></body></html>`,
    );
    const from = dist.log.length;
    const { page, errors } = await open(`${host.url}budget.html`);
    await waitForDemos(page);
    // Everything the two elements load: their sweeps done (both Workers up), then no request open.
    await waitForDemoSweeps(page);
    await page.waitForLoadState('networkidle');
    // Everything fetched from the site for the component (gzip as served), each file once.
    const files = new Map();
    for (const e of dist.log.slice(from)) if (e.status === 200 && !files.has(e.path)) files.set(e.path, e);
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
