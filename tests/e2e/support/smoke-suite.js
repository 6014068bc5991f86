// The cross-engine smoke suite, shared by tests/firefox/ and tests/webkit/:
// each engine's test file calls smokeSuite() with its driver (goto, evaluate, waitFor, screenshot,
// close). Checked in that engine: the page draws its charts and its data-stat readouts equal
// Chromium's for the same URL (read in the same run, through playwright-core); embed.html; a host
// page on another origin using the component from this one (CORS), with a real Worker; the
// offline single file opened alone from file:// with the network refused, and a check of the
// "Test yourself" drill in it; a training step; the report of the trained sample (chapter 9).
// When something is stuck, the failure message quotes what the page shows (WebDriver has no
// console: the page reports its failures in its DOM, see web/src/ui/load-guard.js).
import { before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import { access, copyFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { startServer, repoRoot } from './serve-dist.js';
import { launchBrowser, waitForApp, panelReached, panelNames, test } from './browser.js';
import { createEngine } from '../../../web/src/engine/engine.js';

const DIST = join(repoRoot, 'dist');
export const OUT = join(repoRoot, 'tests', 'output');
const PAGE = '?dk=128&scale=none';
const EMBED = 'embed.html?panel=spread,sigma,entropy&dk=128&scale=none';
const HOST = (
  scriptUrl,
) => `<!doctype html><html lang="en"><head><meta charset="utf-8"><link rel="icon" href="data:,">
<title>A blog post</title><script type="module" src="${scriptUrl}"></script></head><body><main><h1>A blog post</h1>
<attn-scale-demo id="demo" panel="spread,gradients" dk="128" scale="none"><a href="https://example.org/">Open the demo</a></attn-scale-demo>
<p id="after">Text after.</p></main></body></html>`;

// --- functions that run in the page (self-contained: they are sent as source) ---

/** Every data-stat readout under the document or the shadow root of #id, as displayed. */
const readStats = (id) => {
  const root = id ? document.getElementById(id).shadowRoot : document;
  const out = {};
  for (const el of root.querySelectorAll(
    '[data-panel]:not([data-panel="training"]):not([data-panel="report"]) [data-stat]',
  ))
    out[el.dataset.stat] = el.textContent;
  return out;
};

/** True once the app under the document (or #id's shadow root) shows a result with every panel drawn and complete. */
const appSettled = (id) => {
  const root = id ? document.getElementById(id)?.shadowRoot : document;
  const app = root?.querySelector(id ? '.as-root' : '#app');
  const panels = [...(root?.querySelectorAll('[data-panel]') ?? [])];
  // The training panel draws once it trains (the training test presses Step).
  return (
    app?.dataset.state === 'ready' &&
    panels.length > 0 &&
    panels.every(
      (p) =>
        (p.dataset.drawn === 'true' || p.dataset.panel === 'training') &&
        !p.classList.contains('is-stale') &&
        !p.querySelector('.panel-status')?.textContent,
    )
  );
};

/** What a reader sees that explains a stuck page: state, notices, footer text. */
const visibleState = (id) => {
  const root = id ? document.getElementById(id)?.shadowRoot : document;
  const app = root?.querySelector(id ? '.as-root' : '#app');
  const text = (sel) =>
    [...(root?.querySelectorAll(sel) ?? [])]
      .map((e) => e.textContent.trim())
      .filter(Boolean)
      .join(' | ');
  // Each panel that keeps the page from counting as settled, and why.
  const waiting = [...(root?.querySelectorAll('[data-panel]') ?? [])]
    .map((p) => [
      p.dataset.panel,
      [
        p.dataset.drawn === 'true' || p.dataset.panel === 'training' ? '' : 'not drawn',
        p.classList.contains('is-stale') ? 'stale' : '',
        p.querySelector('.panel-status')?.textContent ?? '',
      ]
        .filter(Boolean)
        .join(', '),
    ])
    .filter(([, why]) => why);
  return {
    state: app?.dataset.state ?? null,
    notices: text('.notice'),
    info: text('#engine-info, .as-status'),
    language: navigator.language,
    waiting: Object.fromEntries(waiting),
  };
};

/** Scrolls a panel into view (the page builds a panel once the reader comes near it). */
const scrollToPanel = (name) => {
  const p = document.querySelector(`[data-panel="${name}"]`);
  // A panel under "Going further" is in a folded topic: open it, as a reader would.
  for (let d = p?.closest('details:not([open])'); d; d = d.parentElement?.closest('details:not([open])'))
    d.open = true;
  p?.scrollIntoView();
  return !!p;
};

/** Waits for appSettled (on the page, after bringing chapter 8's panels into view one by one); on timeout, the error quotes the page's visible state. */
export async function waitSettled(driver, id = null, timeout = 90000) {
  try {
    if (!id) {
      await driver.waitFor(() => document.getElementById('app')?.dataset.state === 'ready', [], {
        timeout,
        message: 'app ready',
      });
      // The page builds a panel once the reader comes near it: each is brought into view in
      // turn and stays there until it is built and has started (IntersectionObserver reports
      // after a frame, and a frame can take longer than any fixed pause on a loaded machine).
      for (const name of await driver.evaluate(panelNames)) {
        if (await driver.evaluate(scrollToPanel, name))
          await driver.waitFor(panelReached, [name], { timeout, message: `${name} built` });
      }
    }
    await driver.waitFor(appSettled, [id], { timeout, message: 'charts drawn' });
  } catch (err) {
    const seen = await driver.evaluate(visibleState, id).catch((e) => `unreadable: ${e.message}`);
    throw new Error(`${driver.name}: ${err.message.split('\n')[0]}\npage shows: ${JSON.stringify(seen)}`);
  }
}

/** In the page: predicts 30 for the drill's question `id` and presses Check → its data-config. */
const checkDrillQuestion = (id) => {
  const q = document.querySelector(`[data-question="${id}"]`);
  const input = q.querySelector('[data-predict]');
  input.value = '30';
  input.dispatchEvent(new Event('input', { bubbles: true }));
  q.querySelector('[data-check]').click();
  return q.dataset.config;
};

let engineInNode = null;
const nodeEngine = () => (engineInNode ??= createEngine());

/** Chromium's readouts for the page, embed.html and the component (the reference). */
async function chromiumReadouts(site, host) {
  const chromium = await launchBrowser();
  try {
    const out = {};
    for (const [key, url, id] of [
      ['page', site.url + PAGE],
      ['embed', site.url + EMBED],
      ['component', `${host.url}host.html`, 'demo'],
    ]) {
      const page = await chromium.newPage({ reducedMotion: 'reduce' });
      await page.goto(url);
      if (id) await page.waitForFunction(appSettled, id, { timeout: 90000, polling: 200 });
      else await waitForApp(page, { chapter8: true, timeout: 90000 });
      out[key] = await page.evaluate(readStats, id);
      await page.close();
    }
    return out;
  } finally {
    await chromium.close();
  }
}

/** Where the driver sees console errors (Firefox), none since the last call. */
const noErrors = (driver, what) => {
  if (driver.errors) assert.deepEqual(driver.errors.splice(0), [], `${what}: console errors`);
};

/**
 * smokeSuite({ engine, launch, offline }) defines the suite. offline(driver, fileUrl) opens the
 * offline file with the network refused and returns the URLs the page requested other than
 * file:, data: and blob: (it must be none).
 */
export function smokeSuite({ engine, launch, offline, extra = () => {} }) {
  let tmp, site, host, driver, reference;

  before(async () => {
    await access(join(DIST, 'attnscale-offline.html')).catch(() => {
      throw new Error('dist/ is missing: run `npm run build` first');
    });
    await mkdir(OUT, { recursive: true });
    tmp = await mkdtemp(join(tmpdir(), `attnscale-${engine}-`));
    await mkdir(join(tmp, 'host'));
    await mkdir(join(tmp, 'offline'));
    // The component's script from the site (CORS), the host page on another origin.
    site = await startServer({ root: DIST, headers: { 'access-control-allow-origin': '*' } });
    host = await startServer({ root: join(tmp, 'host') });
    await writeFile(join(tmp, 'host', 'host.html'), HOST(`${site.url}attn-scale-demo.js`));
    reference = await chromiumReadouts(site, host);
    driver = await launch();
  });

  after(async () => {
    await driver?.close();
    await Promise.all([site?.close(), host?.close()]);
    if (tmp) await rm(tmp, { recursive: true, force: true });
  });

  describe(`${engine} smoke`, () => {
    extra(() => driver);

    test("the page draws every chart; its readouts equal Chromium's", async () => {
      await driver.goto(site.url + PAGE);
      await waitSettled(driver);
      const stats = await driver.evaluate(readStats, null);
      assert.ok(Object.keys(stats).length >= 20, `readouts: ${Object.keys(stats).length}`);
      assert.deepEqual(stats, reference.page);
      assert.match(stats.rawLogitStd, /^11\.3/);
      noErrors(driver, 'page');
      await driver.screenshot(join(OUT, `${engine}-page.png`));
    });

    test('the training panel steps: Step +10 advances the counter', async () => {
      // Still on the page from the previous test (the same URL otherwise).
      const href = await driver.evaluate(() => location.href);
      if (!href.startsWith(site.url)) {
        await driver.goto(site.url + PAGE);
        await waitSettled(driver);
      }
      await driver.waitFor(() => !!document.querySelector('[data-panel="training"] [data-action="step"]'));
      const before0 = Number(
        await driver.evaluate(() => document.querySelector('[data-stat="train.step"]').textContent),
      );
      await driver.evaluate(() =>
        document.querySelector('[data-panel="training"] [data-action="step"]').click(),
      );
      const n = await driver.waitFor(
        (b) => {
          const v = Number(document.querySelector('[data-stat="train.step"]').textContent);
          return v >= b + 10 && v;
        },
        [before0],
        { timeout: 60000 },
      );
      assert.equal(n, before0 + 10);
      assert.match(
        await driver.evaluate(
          () => document.querySelector('[data-stat="train.sqrt.loss"]')?.textContent ?? '',
        ),
        /^\d/,
      );
      noErrors(driver, 'training');
    });

    test('chapter 9 reports the trained sample: three heads, the unscaled copy the sharpest', async () => {
      await driver.evaluate(() =>
        document.querySelector('[data-panel="report"] [data-report-sample]').click(),
      );
      await driver.waitFor(
        () => document.querySelector('[data-panel="report"]').dataset.reportState === 'done',
        [],
        { timeout: 120000, message: 'the sample reported' },
      );
      const weights = await driver.evaluate(() => {
        const panel = document.querySelector('[data-panel="report"]');
        const select = panel.querySelector('[data-report-stat]');
        select.value = 'maxWeight';
        select.dispatchEvent(new Event('change'));
        return [...panel.querySelectorAll('[data-report-grid] [data-layer]')].map((c) =>
          Number(c.dataset.value),
        );
      });
      // Layers in natural order: linear, none, sqrt (each scaled as trained).
      assert.equal(weights.length, 3);
      assert.ok(weights[1] > weights[2] && weights[2] > weights[0], `largest weights ${weights}`);
      noErrors(driver, 'report');
    });

    test("embed.html draws its panels; readouts equal Chromium's", async () => {
      await driver.goto(site.url + EMBED);
      await waitSettled(driver);
      assert.deepEqual(await driver.evaluate(readStats, null), reference.embed);
      noErrors(driver, 'embed.html');
    });

    test("the component on another origin draws with a real Worker; readouts equal Chromium's; its fallback link hides", async () => {
      await driver.goto(`${host.url}host.html`);
      await waitSettled(driver, 'demo');
      assert.deepEqual(await driver.evaluate(readStats, 'demo'), reference.component);
      const seen = await driver.evaluate(() => ({
        note:
          document.getElementById('demo').shadowRoot.querySelector('[data-engine-note]')?.textContent ?? null,
        linkShown: document.querySelector('#demo > a').getClientRects().length > 0,
        after: document.getElementById('after').textContent,
      }));
      assert.deepEqual(seen, { note: null, linkShown: false, after: 'Text after.' });
      noErrors(driver, 'component');
      await driver.screenshot(join(OUT, `${engine}-component.png`));
    });

    test('the offline file alone, from file://, with the network refused: charts and readouts', async () => {
      const file = join(tmp, 'offline', 'attnscale-offline.html');
      await copyFile(join(DIST, 'attnscale-offline.html'), file);
      const requested = await offline(driver, `${pathToFileURL(file).href}${PAGE}`);
      assert.deepEqual(requested, [], 'no request other than file:, data:, blob:');
      const stats = await driver.evaluate(readStats, null);
      assert.deepEqual(stats, reference.page);
      await driver.screenshot(join(OUT, `${engine}-offline.png`));
      // The drill measures in the offline file's Worker too, what the engine measures in Node.
      const config = await driver.evaluate(checkDrillQuestion, 'mistake-dk');
      await driver.waitFor(
        () => !!document.querySelector('[data-question="mistake-dk"][data-verdict] [data-stat="measured"]'),
        [],
        { timeout: 60000, message: 'the drill checked' },
      );
      const value = await driver.evaluate(
        () => document.querySelector('[data-question="mistake-dk"] [data-stat="measured"]').dataset.value,
        null,
      );
      assert.equal(Number(value), (await nodeEngine()).forwardStats(JSON.parse(config)).rawLogitStd);
    });
  });
}
