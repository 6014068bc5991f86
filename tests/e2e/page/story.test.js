// The page's story, as a reader meets it: the short answer in the first screen, the core (up to the
// common mistakes) at most nine screens tall at load with every other topic folded under "Going further" (each with its
// takeaway), links and deep links that open a fold, the heatmap beside its contrast, the topics'
// own presets, and on a phone the dock's "d_k = 64", folded legends, charts at least 220 px tall,
// rows that show they scroll, a dock that never covers the last line, and the training panel's
// start before its first step. Screenshots: tests/output/story-desktop.png, story-phone.png.
import { describe } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { watchErrors, waitForApp, test } from '../support/browser.js';
import { useSite, OUT } from '../support/site.js';

const site = useSite();

async function open(path = '', opts = {}) {
  const page = await site.browser.newPage({ reducedMotion: 'reduce', ...opts });
  const errors = watchErrors(page);
  await page.goto(`${site.server.url}${path}`);
  await waitForApp(page, { sweeps: false });
  return { page, errors };
}

/** The folded topics: [{ id, open, takeaway }]. */
const topics = () =>
  [...document.querySelectorAll('details.topic')].map((d) => ({
    id: d.id,
    open: d.open,
    takeaway: d.querySelector(':scope > summary .takeaway')?.textContent.trim() ?? '',
  }));

describe('the story: the answer first, the rest folded', () => {
  test('1280 × 800: the short answer in the first screen, the core at most nine screens tall', async () => {
    const { page, errors } = await open('', { width: 1280, height: 800 });
    const answer = await page.locator('#answer').boundingBox();
    assert.ok(answer.y + answer.height <= 800, `the short answer ends at ${answer.y + answer.height} px`);
    assert.equal(await page.locator('#answer .katex').count(), 1, 'the formula');
    assert.equal(await page.locator('#answer .answer-points > li').count(), 4, 'four sentences');
    for (const href of ['#variance', '#saturation', '#gradients', '#why-sqrt', '#assumption'])
      assert.equal(await page.locator(`#answer a[href="${href}"]`).count(), 1, `a link to ${href}`);
    assert.match(await page.locator('#answer pre code').textContent(), /np\.sqrt\(d_k\)/);
    // The core (the short answer, chapters 1–6, the questions and the mistakes) fits in nine screens.
    const coreEnd = await page.evaluate(
      () => document.getElementById('mistakes').getBoundingClientRect().bottom + scrollY,
    );
    assert.ok(coreEnd <= 9 * 800, `the core ends at ${coreEnd} px (${(coreEnd / 800).toFixed(1)} screens)`);
    const list = await page.evaluate(topics);
    assert.ok(list.length >= 6, `${list.length} topics`);
    for (const t of list) {
      assert.equal(t.open, false, `${t.id} folded at load`);
      assert.ok(t.takeaway.length > 30, `${t.id} shows its takeaway`);
    }
    // Its text is in the page (search engines, Ctrl+F) although folded.
    assert.ok((await page.locator('#training').textContent()).includes('16 possible values'));
    await page.screenshot({ path: join(OUT, 'story-desktop.png') });
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('a deep link, an in-page link and a preset open the topic they need', async () => {
    const { page, errors } = await open('#chart-training');
    assert.equal(await page.locator('#training').evaluate((d) => d.open), true, 'the deep link opened it');
    await page.locator('#mistakes').scrollIntoViewIfNeeded();
    await page.locator('#ask-next a[href="#thresholds"]').click();
    await page.waitForFunction(() => document.getElementById('thresholds').open);
    assert.ok(await page.locator('[data-panel="thresholds"]').isVisible());
    // A topic's own presets: a press sets the page and says what to look at.
    await page.locator('#beyond > summary').click();
    await page.locator('[data-preset="qknorm-layer"]').click();
    await page.waitForFunction(() => new URLSearchParams(location.search).get('qkNorm') === 'layer');
    assert.equal(await page.locator('[data-preset="qknorm-layer"]').getAttribute('aria-pressed'), 'true');
    assert.match(await page.locator('[data-presets="qk-norm"] .preset-note').textContent(), /layer norm/);
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('the heatmap beside the other scale, measured: unscaled rows are sharper', async () => {
    const { page, errors } = await open('?dk=128');
    const other = page.locator('#chart-heatmap .heatmap-half').nth(1);
    await page.waitForFunction(
      () => document.querySelectorAll('#chart-heatmap .heatmap-half')[1]?.dataset.contrastScale === 'none',
    );
    const weight = (text) => Number(/largest weight ([\d.]+)/.exec(text)[1]);
    const mine = await page.locator('#chart-heatmap .heatmap-half-title').first().textContent();
    const theirs = await other.locator('.heatmap-half-title').textContent();
    assert.match(mine, /^Your setting: 1\/√d_k/);
    assert.ok(weight(theirs) > 5 * weight(mine), `${theirs} against ${mine}`);
    // The page unscaled: the contrast is 1/√d_k.
    await page.evaluate(() => {
      history.replaceState(null, '', '?dk=128&scale=none');
      dispatchEvent(new PopStateEvent('popstate'));
    });
    await page.waitForFunction(
      () => document.querySelectorAll('#chart-heatmap .heatmap-half')[1]?.dataset.contrastScale === 'sqrt',
    );
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('360 × 760: the dock names d_k, legends fold, charts stand 220 px, rows show they scroll, the dock covers nothing', async () => {
    const { page, errors } = await open('', { phone: true });
    assert.equal(await page.locator('[data-dock] .dock-value').textContent(), 'd_k = 64');
    const facts = await page.evaluate(() => {
      const presets = document.querySelector('.presets-box .preset-list');
      return {
        scrolls: presets.scrollWidth > presets.clientWidth,
        shadow: getComputedStyle(presets).backgroundImage.includes('radial-gradient'),
        legendOpen: document.querySelector('#chart-entropy .legend-fold').open,
        chartHeights: [...document.querySelectorAll('#main .chart')]
          .filter((c) => c.getBoundingClientRect().width > 0 && !c.closest('details:not([open])'))
          .map((c) => c.getBoundingClientRect().height),
      };
    });
    assert.ok(facts.scrolls && facts.shadow, 'the steps scroll sideways and show it');
    assert.equal(facts.legendOpen, false, 'the long legend is folded');
    assert.ok(
      facts.chartHeights.every((hgt) => hgt >= 220 || hgt < 200),
      `chart heights ${facts.chartHeights.map(Math.round)}`,
    );
    await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
    const gap = await page.evaluate(() => {
      const last = document.querySelector('.site-foot p:last-child').getBoundingClientRect();
      const dock = document.querySelector('[data-dock]').getBoundingClientRect();
      return dock.top - last.bottom;
    });
    assert.ok(gap >= 0, `the dock covers the footer's last line by ${-gap} px`);
    // The training panel before its first step: what it will show, and a start beside it.
    await page.locator('#training > summary').click();
    const start = page.locator('[data-start-training]');
    await start.waitFor(); // the panel is built as its topic opens
    assert.ok(await start.isVisible());
    assert.equal(await page.locator('[data-panel="training"] .train-chart').first().isVisible(), false);
    await start.click();
    await page.waitForFunction(
      () => Number(document.querySelector('[data-stat="train.step"]').textContent) > 0,
      null,
      { timeout: 90000 }, // the trainer's own Worker boots on the first press
    );
    await page.locator('[data-panel="training"] [data-action="play"]').click(); // pause
    assert.ok(await page.locator('[data-panel="training"] .train-chart').first().isVisible());
    await page.screenshot({ path: join(OUT, 'story-phone.png') });
    assert.deepEqual(errors, []);
    await page.close();
  });
});
