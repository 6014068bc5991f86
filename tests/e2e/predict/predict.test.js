// The "Test yourself" drill (web/src/panels/predict/) in headless Debian chromium against dist/:
// nothing measured is in the page before Check; a check by keyboard alone measures in the Worker
// exactly what the engine measures in Node on the question's data-config, and announces the
// verdict; the score survives a reload; one question alone in embed.html and in the component;
// bad parameters fall back to the default set with a notice. embed.html carries the drill alone,
// so most tests skip the full page's sweeps.
import { describe } from 'node:test';
import assert from 'node:assert/strict';
import { watchErrors, waitForApp, axeAudit, test } from '../support/browser.js';
import { useSite } from '../support/site.js';
import { createEngine } from '../../../web/src/engine/engine.js';

const site = useSite();
const DRAWN = '[data-panel="predict"][data-drawn="true"]';

async function open(path, opts = {}) {
  const page = await site.browser.newPage(opts);
  const errors = watchErrors(page);
  await page.goto(site.server.url + path);
  // The page builds the drill when the reader comes near it.
  await page.locator('[data-panel="predict"]').first().scrollIntoViewIfNeeded();
  await page.waitForSelector(DRAWN, { timeout: 60000 });
  return { page, errors };
}

/** What the page shows that was measured: it must be nothing before a check. */
const measuredInPage = (page) =>
  page.evaluate(() => ({
    measured: document.querySelectorAll('[data-stat="measured"]').length,
    verdicts: document.querySelectorAll('[data-verdict]').length,
    results: [...document.querySelectorAll('.predict-result')].filter((r) => r.childElementCount).length,
  }));

async function tabTo(page, selector, max = 60) {
  for (let i = 0; i < max; i++) {
    if (await page.evaluate((s) => document.activeElement?.matches(s) ?? false, selector)) return;
    await page.keyboard.press('Tab');
  }
  throw new Error(`${selector} not reached with Tab`);
}

describe('Test yourself', () => {
  test('one question in embed.html, by keyboard alone, dark: measured only on Check, as Node measures it, announced', async () => {
    const engine = await createEngine();
    const { page, errors } = await open('embed.html?panel=predict&question=mistake-dk&quiz=42', {
      colorScheme: 'dark',
    });
    const q = page.locator('[data-question]');
    assert.equal(await q.count(), 1);
    assert.equal(await q.getAttribute('data-question'), 'mistake-dk');
    assert.equal(await q.getAttribute('data-quantity'), 'rawLogitStd');
    assert.equal(await page.locator('.predict-steps').isVisible(), false, 'no steps for one question');
    assert.deepEqual(await measuredInPage(page), { measured: 0, verdicts: 0, results: 0 });

    await tabTo(page, '[data-question] [data-predict]');
    await page.keyboard.press('Control+A');
    await page.keyboard.type('40');
    await tabTo(page, '[data-question] [data-check]');
    await page.keyboard.press('Enter');
    await page.waitForSelector('[data-question][data-verdict]', { timeout: 60000 });

    const cfg = JSON.parse(await q.getAttribute('data-config'));
    const want = engine.forwardStats(cfg).rawLogitStd;
    const shown = page.locator('[data-stat="measured"]');
    assert.equal(Number(await shown.getAttribute('data-value')), want, 'the Worker measured what Node does');
    const close = Math.abs(Math.log(40 / want)) <= Math.log(1.25);
    assert.equal(await q.getAttribute('data-verdict'), close ? 'close' : 'off');
    const live = page.locator('[data-question] [role="status"][aria-live="polite"]');
    assert.match(await live.textContent(), close ? /^Close: you predicted 40; measured / : /^Off: /);
    assert.equal(
      await page.locator('[data-stat="score"]').textContent(),
      `${close ? 1 : 0} of 1 within tolerance`,
    );

    assert.deepEqual(await axeAudit(page), [], 'axe, dark theme, after the check');

    // New numbers: another seed, nothing measured for it yet; the link to the full page follows.
    await page.getByRole('button', { name: 'New numbers' }).click();
    await page.waitForFunction(() => document.querySelector('[data-panel="predict"]').dataset.quiz !== '42');
    const seed = await page.locator('[data-panel="predict"]').getAttribute('data-quiz');
    assert.deepEqual(await measuredInPage(page), { measured: 0, verdicts: 0, results: 0 });
    assert.equal(await page.locator('[data-stat="score"]').textContent(), '0 of 1 within tolerance');
    await page.waitForFunction((s) => document.getElementById('full-link').href.includes(`quiz=${s}`), seed);
    await page.getByRole('button', { name: 'Reset score' }).click();
    assert.equal(await page.evaluate(() => localStorage.getItem('attnscale-predict')), null);
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('the page: every question of the set in its section, nothing measured before Check; the score survives a reload', async () => {
    const { page, errors } = await open('?quiz=7');
    await waitForApp(page, { sweeps: false });
    const drill = page.locator('#predict [data-panel="predict"]');
    assert.equal(await drill.getAttribute('data-quiz'), '7');
    const cards = await page.$$eval('[data-question]', (els) =>
      els.map((e) => ({
        id: e.dataset.question,
        config: JSON.parse(e.dataset.config),
        quantity: e.dataset.quantity,
        hidden: e.hidden,
        predict: !!e.querySelector('[data-predict]'),
        check: !!e.querySelector('[data-check]'),
      })),
    );
    assert.ok(cards.length >= 8);
    assert.equal(cards.filter((c) => !c.hidden).length, 1, 'one question on screen');
    for (const c of cards)
      assert.ok(c.predict && c.check && c.quantity && typeof c.config === 'object', c.id);
    assert.deepEqual(await measuredInPage(page), { measured: 0, verdicts: 0, results: 0 });

    // Question 1 is a choice: pick the first answer and check.
    const first = page.locator('[data-question]').first();
    await first.locator('input[type="radio"]').first().check();
    await first.locator('[data-check]').click();
    await page.waitForSelector('[data-question][data-verdict]', { timeout: 60000 });
    const verdict = await first.getAttribute('data-verdict');
    const score = await page.locator('[data-stat="score"]').textContent();
    assert.equal(score, `${verdict === 'close' ? 1 : 0} of ${cards.length} within tolerance`);
    await page.waitForFunction(() => /quiz=7/.test(location.search));

    await page.reload();
    // Drawn, and the address's set applied (the panels mount one task at a time, the URL after them).
    await page.waitForSelector(`${DRAWN}[data-quiz="7"]`, { timeout: 60000 });
    assert.equal(await page.locator('[data-stat="score"]').textContent(), score, 'the score survives');
    assert.match(await first.locator('.predict-last').textContent(), /^Your last check of these numbers: /);
    assert.equal(await first.locator('input[type="radio"]').first().isChecked(), true, 'the last prediction');
    assert.deepEqual(
      await measuredInPage(page),
      { measured: 0, verdicts: 0, results: 0 },
      'never a stored value',
    );
    const stored = await page.evaluate(() => localStorage.getItem('attnscale-predict'));
    assert.ok(!/\d\.\d{5}/.test(stored), `only predictions and verdicts are stored: ${stored}`);

    // The Embed dialog offers one question alone, with the page's seed.
    await page.locator('#embed-button').click();
    const dialog = page.locator('dialog.embed-dialog');
    await dialog.locator('input[value="spread"]').uncheck();
    await dialog.locator('input[value="predict"]').check();
    await dialog.locator('.embed-drill select').selectOption('why-sqrt');
    const iframe = await dialog.locator('[data-snippet="iframe"] textarea').inputValue();
    assert.match(iframe, /embed\.html\?panel=predict&amp;quiz=7&amp;question=why-sqrt"/);
    const element = await dialog.locator('[data-snippet="web component"] textarea').inputValue();
    assert.match(element, /<attn-scale-demo panel="predict" quiz="7" question="why-sqrt"[ >]/);
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('the component shows one question by its attribute; bad parameters fall back with a notice', async () => {
    const host = `${site.server.url}drill-host.html`;
    const page = await site.browser.newPage();
    const errors = watchErrors(page);
    await page.route(host, (route) =>
      route.fulfill({
        contentType: 'text/html',
        body: `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>A course page</title>
<script type="module" src="attn-scale-demo.js"></script></head><body><main>
<attn-scale-demo id="demo" panel="predict" question="why-sqrt" quiz="5"></attn-scale-demo></main></body></html>`,
      }),
    );
    await page.goto(host);
    const inner = page.locator('#demo [data-panel="predict"][data-drawn="true"]');
    await inner.waitFor({ timeout: 60000 });
    assert.deepEqual(
      await inner.locator('[data-question]').evaluateAll((els) => els.map((e) => e.dataset.question)),
      ['why-sqrt'],
    );
    assert.equal(await inner.getAttribute('data-quiz'), '5');
    await inner.locator('[data-check]').click();
    await inner.locator('[data-question][data-verdict]').waitFor({ timeout: 60000 });
    assert.ok(Number(await inner.locator('[data-stat="measured"]').getAttribute('data-value')) > 0);
    assert.deepEqual(errors, []);
    await page.close();

    const bad = await open('embed.html?panel=predict&question=nope&quiz=abc');
    const notices = await bad.page.locator('#notices').textContent();
    assert.match(notices, /question=nope names no question of the drill/);
    assert.match(notices, /quiz=abc is not a whole number in \[0, 4294967295\]; using quiz=1\./);
    assert.ok((await bad.page.locator('[data-question]').count()) >= 8, 'the default set');
    assert.equal(await bad.page.locator('[data-panel="predict"]').getAttribute('data-quiz'), '1');
    assert.deepEqual(bad.errors, []);
    await bad.page.close();
  });
});
