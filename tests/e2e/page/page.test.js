// End-to-end tests of the page, in headless Debian chromium via playwright-core,
// against dist/ served on 127.0.0.1 by the test itself. One browser for the whole file.
// Run: npm run build && node --test tests/e2e/
import { describe } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startServer, repoRoot } from '../support/serve-dist.js';
import { watchErrors, waitForApp, stat, axeAudit, canvasColours, test } from '../support/browser.js';
import { useSite, OUT } from '../support/site.js';

const PANELS = ['spread', 'sigma', 'entropy', 'gradients', 'heatmap', 'precision'];
const FIELDS = [
  'dk',
  'seqLen',
  'precision',
  'saturate',
  'scale',
  'subtractMax',
  'softmax',
  'blockSize',
  'causal',
  'mean',
  'std',
  'correlation',
  'seed',
];

const site = useSite();

async function open(query = '', opts = {}) {
  // Reduced motion by default: with smooth scrolling, a click can land while the page still moves.
  const page = await site.browser.newPage({ reducedMotion: 'reduce', ...opts });
  const errors = watchErrors(page);
  await page.goto(site.server.url + query);
  await waitForApp(page, { sweeps: opts.sweeps ?? true, chapter8: opts.chapter8 ?? false });
  return { page, errors };
}

const num = async (page, name) => parseFloat(await stat(page, name));

describe('the page', () => {
  test('loads with no console errors, renders every chart non-empty, saves screenshots', async () => {
    const { page, errors } = await open('', { width: 1280, height: 900, chapter8: true });
    for (const name of PANELS) {
      const panel = page.locator(`[data-panel="${name}"]`);
      assert.equal(await panel.getAttribute('data-drawn'), 'true', `${name} drew`);
      // Real pixels: the first canvas of the panel has many distinct colours.
      const colours = await canvasColours(panel);
      assert.ok(colours > 8, `${name} canvas has ${colours} colours`);
    }
    // Every readout holds a value as text (the training panel's fill in once it runs: training.test.js).
    const empty = await page.$$eval('[data-stat]', (els) =>
      els
        .filter(
          (e) => !e.dataset.stat.startsWith('train.') && (!e.textContent.trim() || e.textContent === '—'),
        )
        .map((e) => e.dataset.stat),
    );
    assert.deepEqual(empty, []);
    await page.screenshot({ path: join(OUT, 'page-desktop.png'), fullPage: true });
    assert.deepEqual(errors, []);
    await page.close();

    const phone = await open('', { width: 360, height: 760 });
    const overflow = await phone.page.evaluate(
      () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
    );
    assert.ok(overflow <= 0, `no horizontal scrolling at 360 px (overflow ${overflow} px)`);
    await phone.page.screenshot({ path: join(OUT, 'page-phone.png'), fullPage: true });
    assert.deepEqual(phone.errors, []);
    await phone.page.close();

    const dark = await open('?dk=128&scale=none&precision=fp16&subtractMax=false', {
      width: 360,
      height: 760,
      colorScheme: 'dark',
    });
    await dark.page.screenshot({ path: join(OUT, 'page-phone-dark.png'), fullPage: true });
    assert.deepEqual(dark.errors, []);
    await dark.page.close();
  });

  test('?dk=128&scale=none shows rawLogitStd ≈ 11.3', async () => {
    const { page, errors } = await open('?dk=128&scale=none', { sweeps: false });
    const v = await num(page, 'rawLogitStd');
    assert.ok(Math.abs(v - Math.sqrt(128)) < 0.3, `rawLogitStd ${v}`);
    assert.equal(await num(page, 'scaleFactor'), 1);
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('dist/ works under a sub-path (served from /dist/ of another root)', async () => {
    const other = await startServer({ root: repoRoot });
    try {
      const page = await site.browser.newPage({ reducedMotion: 'reduce' });
      const errors = watchErrors(page);
      await page.goto(`${other.url}dist/?dk=128&scale=none`);
      await waitForApp(page, { sweeps: false });
      assert.ok(Math.abs((await num(page, 'rawLogitStd')) - Math.sqrt(128)) < 0.3);
      assert.ok(
        other.log.every((e) => e.path.startsWith('/dist/')),
        'every request stays under /dist/',
      );
      assert.deepEqual(errors, []);
      await page.close();
    } finally {
      await other.close();
    }
  });

  test('a keyboard change of d_k updates the readouts', async () => {
    const { page, errors } = await open('', { sweeps: false });
    assert.equal(await stat(page, 'scaleFactor'), '0.125');
    const slider = page.locator('[data-field="dk"] input[type="range"]');
    await slider.focus();
    await page.keyboard.press('ArrowRight');
    await page.waitForFunction(
      () => document.querySelector('[data-stat="scaleFactor"]').textContent === '0.08839',
    );
    assert.equal(await page.locator('[data-field="dk"] input[type="number"]').inputValue(), '128');
    assert.ok(Math.abs((await num(page, 'rawLogitStd')) - 11.3) < 0.3);
    // (The URL follows once the whole result, the backward's too, is shown.)
    await page.waitForFunction(() => /dk=128/.test(location.search));
    // Typing in the number input works too (any integer, not only powers of two).
    const input = page.locator('[data-field="dk"] input[type="number"]');
    await input.fill('100');
    await input.press('Enter');
    await page.waitForFunction(
      () => document.querySelector('[data-stat="scaleFactor"]').textContent === '0.1',
    );
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('a d_k change shows the forward first, then the gradient panel with the backward', async () => {
    const { page, errors } = await open('?seqLen=256&dk=64', { sweeps: false });
    const seen = await page.evaluate(
      () =>
        new Promise((resolve) => {
          const root = document.getElementById('app');
          const gradients = document.querySelector('[data-panel="gradients"]');
          const dk = (q) => new URLSearchParams(q ?? '').get('dk');
          const events = [];
          const mo = new MutationObserver(() => {
            const e = [
              dk(root.dataset.forwardQuery),
              dk(root.dataset.resultQuery),
              gradients.dataset.backward,
            ];
            if (events.at(-1)?.join() !== e.join()) events.push(e);
            if (e[1] === '256') {
              mo.disconnect();
              resolve(events);
            }
          });
          mo.observe(root, {
            attributes: true,
            attributeFilter: ['data-forward-query', 'data-result-query'],
          });
          mo.observe(gradients, { attributes: true, attributeFilter: ['data-backward'] });
          const slider = document.querySelector('[data-field="dk"] input[type="range"]');
          slider.value = '8'; // d_k = 256
          slider.dispatchEvent(new Event('input', { bubbles: true }));
        }),
    );
    // [forward's d_k, whole result's d_k, the gradient panel's state], as they changed.
    const forwardShown = seen.findIndex(([f]) => f === '256');
    assert.ok(forwardShown >= 0, JSON.stringify(seen));
    assert.deepEqual(seen[forwardShown], ['256', '64', 'pending'], JSON.stringify(seen));
    assert.deepEqual(seen.at(-1), ['256', '256', 'done'], JSON.stringify(seen));
    assert.match(
      await page.locator('[data-panel="gradients"] [data-panel-summary]').textContent(),
      /d_k = 256/,
    );
    assert.ok(Number.isFinite(await num(page, 'gradNormQ')), 'RMS ∂L/∂Q is a number');
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('a URL round-trip restores every field', async () => {
    const q =
      'dk=300&seqLen=100&precision=bf16&saturate=true&scale=0.2&subtractMax=false&softmax=online&blockSize=16' +
      '&causal=true&mean=0.25&std=1.5&correlation=-0.3&seed=12345';
    const { page, errors } = await open(`?${q}`, { sweeps: false });
    const got = new URLSearchParams(new URL(page.url()).search);
    const want = new URLSearchParams(q);
    for (const f of FIELDS) assert.equal(got.get(f), want.get(f), `field ${f}`);
    // The controls show the restored values.
    assert.equal(await page.locator('[data-field="dk"] input[type="number"]').inputValue(), '300');
    assert.equal(await page.locator('[data-field="precision"] select').inputValue(), 'bf16');
    assert.equal(await page.locator('[data-field="causal"] input').isChecked(), true);
    assert.equal(await page.locator('[data-field="scale"] input[value="custom"]').isChecked(), true);
    assert.equal(await stat(page, 'scaleFactor'), '0.2');
    const readouts = await page.$$eval('[data-stat]', (els) => els.map((e) => e.textContent));

    // Change things through the UI, then reopen the URL the page wrote: same state, same numbers.
    await page.locator('[data-field="precision"] select').selectOption('fp16');
    await page.locator('[data-field="scale"] input[value="linear"]').check();
    await page.waitForFunction(
      () => /precision=fp16/.test(location.search) && /scale=linear/.test(location.search),
    );
    await page.waitForFunction(
      () => document.getElementById('app').dataset.resultQuery === location.search.slice(1),
    );
    const url2 = page.url();
    const readouts2 = await page.$$eval('[data-stat]', (els) => els.map((e) => e.textContent));
    assert.notDeepEqual(readouts2, readouts);
    const again = await open(new URL(url2).search, { sweeps: false });
    assert.equal(new URL(again.page.url()).search, new URL(url2).search);
    const readouts3 = await again.page.$$eval('[data-stat]', (els) => els.map((e) => e.textContent));
    // Same config ⇒ the same deterministic numbers (timings are not shown as readouts).
    assert.deepEqual(readouts3, readouts2);
    assert.deepEqual([...errors, ...again.errors], []);
    await page.close();
    await again.page.close();
  });

  test('bad URL values give a notice naming them and a working page; URL text is never HTML', async () => {
    const evil = encodeURIComponent('<img src=x onerror="window.__pwned=1">');
    const q = `?dk=99999&precision=fp7&scale=-2&seqLen=abc&saturate=maybe&correlation=5&mean=${evil}&blockSize=0`;
    const { page, errors } = await open(q, { sweeps: false });
    const notice = page.locator('#notices .notice');
    await notice.waitFor();
    const text = await notice.textContent();
    for (const f of ['dk', 'precision', 'scale', 'seqLen', 'saturate', 'correlation', 'mean', 'blockSize'])
      assert.match(text, new RegExp(`\\b${f}=`), `notice names ${f}`);
    assert.match(text, /dk=99999 is above the allowed range 1\.\.4096; using dk=4096/);
    assert.equal(await page.locator('#notices img').count(), 0, 'no element made from URL text');
    assert.equal(await page.evaluate(() => window.__pwned), undefined);
    // The page works with the clamped / default values.
    assert.equal(await page.locator('[data-field="dk"] input[type="number"]').inputValue(), '4096');
    const search = new URLSearchParams(new URL(page.url()).search);
    assert.equal(search.get('dk'), '4096');
    assert.equal(search.get('precision'), 'fp32');
    assert.equal(search.get('correlation'), '1');
    assert.ok(Number.isFinite(await num(page, 'rawLogitStd')));
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('presets apply', async () => {
    const { page, errors } = await open('', { sweeps: false });
    const buttons = page.locator('.presets-box [data-preset]');
    const n = await buttons.count();
    assert.equal(n, 6, `${n} steps, one per chapter`);
    const expect = {
      unscaled: async () => assert.ok(Math.abs((await num(page, 'rawLogitStd')) - 11.3) < 0.3),
      overscaled: async () => assert.ok(Math.abs((await num(page, 'scaleFactor')) - 1 / 128) < 1e-5),
      'fp16-overflow': async () => assert.equal(await stat(page, 'firstNonFiniteStage'), 'exp'),
      'fp16-fixed': async () => assert.equal(await stat(page, 'firstNonFiniteStage'), 'none'),
      online: async () => assert.notEqual(await stat(page, 'onlineMaxAbsDiff'), 'n/a (two-pass)'),
    };
    for (let i = 0; i < n; i++) {
      const b = buttons.nth(i);
      const id = await b.getAttribute('data-preset');
      const before = await page.evaluate(() => ({ ...document.getElementById('app').dataset }));
      await b.click();
      assert.equal(await b.getAttribute('aria-pressed'), 'true', `${id} pressed`);
      // A preset that changes the setting requests a run at once (data-run-requests); the URL is
      // written once its result is shown, so until then the old result and the old URL agree: wait
      // for a new result. A preset equal to the current setting requests nothing.
      await page.waitForFunction((prev) => {
        const now = document.getElementById('app').dataset;
        const requested = now.runRequests !== prev.runRequests;
        return (
          now.resultQuery === location.search.slice(1) && (!requested || now.resultQuery !== prev.resultQuery)
        );
      }, before);
      await expect[id]?.();
      assert.ok(await page.locator('.presets-box .preset-note').textContent());
    }
    // The precision topic's own presets, under "Going further".
    await page.locator('#thresholds > summary').click();
    for (const id of ['fp16-fixed', 'online']) {
      const before = await page.evaluate(() => document.getElementById('app').dataset.resultQuery);
      await page.locator(`[data-preset="${id}"]`).click();
      await page.waitForFunction((prev) => {
        const now = document.getElementById('app').dataset.resultQuery;
        return now !== prev && now === location.search.slice(1);
      }, before);
      await expect[id]();
    }
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('compute is coalesced while dragging; sweeps recompute only when their inputs change', async () => {
    const { page, errors } = await open('', { sweeps: true });
    const counters = () => page.evaluate(() => ({ ...document.getElementById('app').dataset }));
    const c0 = await counters();
    const slider = page.locator('[data-field="dk"] input[type="range"]');
    // A burst of 24 input events, as a drag produces: far fewer runs are computed than requested.
    await slider.evaluate((el) => {
      for (let i = 0; i < 24; i++) {
        el.value = String(i % 13);
        el.dispatchEvent(new Event('input', { bubbles: true }));
      }
      el.value = '10';
      el.dispatchEvent(new Event('input', { bubbles: true }));
    });
    // (The URL takes a setting being computed once its result is shown.)
    await page.waitForFunction(
      () =>
        /dk=1024/.test(location.search) &&
        document.getElementById('app').dataset.resultQuery === location.search.slice(1),
    );
    const c1 = await counters();
    const requested = Number(c1.runRequests) - Number(c0.runRequests);
    const computed = Number(c1.runResults) - Number(c0.runResults);
    assert.ok(requested >= 20, `requested ${requested}`);
    assert.ok(computed < requested, `computed ${computed} of ${requested}`);
    // d_k and the scaling are the sweep's x axis and series: changing them reuses the sweep.
    assert.equal(c1.sweepRequests, c0.sweepRequests);
    await page.locator('[data-field="scale"] input[value="none"]').check();
    await page.waitForFunction(
      () =>
        /scale=none/.test(location.search) &&
        document.getElementById('app').dataset.resultQuery === location.search.slice(1),
    );
    assert.equal((await counters()).sweepRequests, c0.sweepRequests);
    // T is an input of the sweep: changing it recomputes the sweep, once.
    const t = page.locator('[data-field="seqLen"] input[type="number"]');
    await t.fill('64');
    await t.press('Enter');
    await page.waitForFunction(
      () =>
        /seqLen=64/.test(location.search) &&
        document.getElementById('app').dataset.resultQuery === location.search.slice(1),
    );
    assert.equal(Number((await counters()).sweepRequests), Number(c0.sweepRequests) + 1);
    await waitForApp(page);
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('exports a PNG and a CSV per chart', async () => {
    const { page, errors } = await open('', { sweeps: true });
    // 1. The real browser download path, once per kind (a pause between downloads: Chromium's
    //    download limiter may drop a second download that follows the first within milliseconds).
    const sigma = page.locator('[data-panel="sigma"]');
    const [csv] = await Promise.all([
      page.waitForEvent('download'),
      sigma.getByRole('button', { name: /as CSV/ }).click(),
    ]);
    assert.equal(csv.suggestedFilename(), 'attnscale-sigma.csv');
    const text = await readFile(await csv.path(), 'utf8');
    assert.match(text, /^scale,dk,logitStd,rawLogitStd,rawLogitStdTheory,scaleFactor\r\n/);
    assert.equal(text.trim().split('\n').length, 1 + 3 * 13, 'three scalings × 13 powers of two');
    await page.waitForTimeout(1500);
    const [png] = await Promise.all([
      page.waitForEvent('download'),
      sigma.getByRole('button', { name: /as PNG/ }).click(),
    ]);
    assert.equal(png.suggestedFilename(), 'attnscale-sigma.png');
    assert.equal((await readFile(await png.path())).subarray(1, 4).toString(), 'PNG');

    // 2. Every panel's files, captured at the anchor the page clicks (what would be downloaded).
    await page.evaluate(() => {
      window.__files = {};
      HTMLAnchorElement.prototype.click = function click() {
        const name = this.download;
        fetch(this.href)
          .then((r) => r.arrayBuffer())
          .then((b) => {
            window.__files[name] = Array.from(new Uint8Array(b));
          });
      };
    });
    for (const name of PANELS) {
      const panel = page.locator(`[data-panel="${name}"]`);
      await panel.getByRole('button', { name: /as CSV/ }).click();
      await panel.getByRole('button', { name: /as PNG/ }).click();
      await page.waitForFunction(
        (n) => window.__files[`attnscale-${n}.csv`] && window.__files[`attnscale-${n}.png`],
        name,
      );
      const [csvBytes, pngBytes] = await page.evaluate(
        (n) => [window.__files[`attnscale-${n}.csv`], window.__files[`attnscale-${n}.png`]],
        name,
      );
      const rows = Buffer.from(csvBytes).toString('utf8').trim().split('\n');
      assert.ok(rows.length > 3, `${name} CSV has ${rows.length} rows`);
      assert.equal(Buffer.from(pngBytes).subarray(1, 4).toString(), 'PNG', `${name} PNG signature`);
      assert.ok(pngBytes.length > 3000, `${name} PNG is ${pngBytes.length} bytes`);
    }
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('theme toggle, reduced motion and claim links', async () => {
    const { page, errors } = await open('', { sweeps: false, reducedMotion: 'reduce' });
    assert.equal(
      await page.evaluate(() => getComputedStyle(document.documentElement).scrollBehavior),
      'auto',
    );
    const bg = () => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    const light = await bg();
    await page.locator('#theme-toggle').click();
    assert.equal(await page.evaluate(() => document.documentElement.dataset.theme), 'dark');
    assert.notEqual(await bg(), light);
    assert.equal(await page.locator('#theme-toggle').getAttribute('aria-pressed'), 'true');
    // Every explanation claim links to a chart that exists.
    const targets = await page.$$eval('a.claim', (as) => as.map((a) => a.getAttribute('href')));
    assert.ok(targets.length >= 10);
    for (const href of targets) assert.equal(await page.locator(`${href}[data-panel]`).count(), 1, href);
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('axe-core finds no serious or critical violation (light desktop, dark phone)', async () => {
    for (const opts of [
      { width: 1280, height: 900 },
      { width: 360, height: 760, colorScheme: 'dark' },
    ]) {
      const { page } = await open('', { ...opts, sweeps: true });
      const violations = await axeAudit(page);
      assert.deepEqual(violations, [], JSON.stringify(opts));
      await page.close();
    }
  });
});
