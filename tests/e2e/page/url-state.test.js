// What a reader meets in the page's state, in headless Debian chromium against dist/ (or
// $ATTNSCALE_DIST): no notice at the default settings (the training panel says its T quietly),
// the training settings in the URL like the page's own fields, notices that belong to the URL
// they came from, and Embed snippets that name only what differs from the defaults.
import { describe } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { watchErrors, waitForApp, test, openFolds } from '../support/browser.js';
import { useSite, OUT } from '../support/site.js';

const site = useSite();

async function open(path, opts = {}) {
  const page = await site.browser.newPage({ reducedMotion: 'reduce', ...opts });
  const errors = watchErrors(page);
  await page.goto(site.server.url + path);
  // The training panel's settings are checked here: its topic under "Going further", opened.
  await page.evaluate(openFolds, '[data-panel="training"]');
  await waitForApp(page, { sweeps: opts.sweeps ?? false });
  return { page, errors };
}

const search = (page) => new URLSearchParams(new URL(page.url()).search);
const trainInput = (page, name) =>
  page.locator(`[data-panel="training"] [data-train-field="${name}"] :is(input, select)`);
/** Every notice box in the document, visible or not (none is expected at the defaults). */
const noticeCount = (page) => page.locator('.notice, [role="alert"]').count();
/** Back or forward in the page's own history, then wait until the app has the new URL's result. */
async function travel(page, step) {
  await page.evaluate((n) => history.go(n), step);
  await page.waitForFunction(() =>
    location.search.slice(1).startsWith(document.getElementById('app').dataset.resultQuery ?? '\u0000'),
  );
}

describe('the page’s state as a reader meets it', () => {
  test('default settings: no notice anywhere; the training panel says its T in a plain line; screenshot', async () => {
    const { page, errors } = await open('', { sweeps: true, width: 1280, height: 900 });
    assert.equal(await noticeCount(page), 0, 'no notice at the defaults');
    const adjust = page.locator('[data-panel="training"] .train-adjust');
    assert.match(
      await adjust.textContent(),
      /T = 256 is above the trainer's range 8\.\.128: training uses T = 128/,
    );
    assert.equal(await adjust.locator('.notice').count(), 0, 'said as text, not as a warning');
    assert.match(
      await page.locator('[data-panel="training"] .train-from-page').textContent(),
      /d_k 64, T 128, precision fp32/,
    );
    // The URL holds the page's fields and no training setting (they are at their defaults).
    assert.deepEqual(
      [...search(page).keys()].filter((k) => k.startsWith('train')),
      [],
    );
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.screenshot({ path: join(OUT, 'page-defaults.png') });
    await page
      .locator('[data-panel="training"] .train-controls')
      .screenshot({ path: join(OUT, 'training-defaults.png') });
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('training settings: a shared link restores them, a control writes them back, defaults stay out', async () => {
    const q =
      '?dk=16&seqLen=32&trainOptimizer=sgd&trainLearningRate=1&trainInitScale=0.5&trainBatchSize=8&trainSeed=3&trainStopAt=40';
    const { page, errors } = await open(q);
    assert.equal(await trainInput(page, 'optimizer').inputValue(), 'sgd');
    assert.equal(await trainInput(page, 'learningRate').inputValue(), '1');
    assert.equal(await trainInput(page, 'initScale').inputValue(), '0.5');
    assert.equal(await trainInput(page, 'batchSize').inputValue(), '8');
    assert.equal(await trainInput(page, 'seed').inputValue(), '3');
    assert.equal(await trainInput(page, 'stopAt').inputValue(), '40');
    assert.equal(await noticeCount(page), 0);
    // The run uses them: Play pauses at step 40 with this config.
    await page.locator('[data-panel="training"] [data-action="play"]').click();
    await page.waitForFunction(
      () =>
        document.querySelector('[data-stat="train.step"]').textContent === '40' &&
        document.querySelector('[data-panel="training"]').dataset.trainState === 'paused',
      null,
      { timeout: 60000 },
    );
    assert.match(
      await page.locator('[data-train-summary]').textContent(),
      /d_k 16, T 32, batch 8, SGD lr 1, init scale 0\.5, fp32, seed 3/,
    );
    // The URL keeps them, after the page's own fields.
    const s = search(page);
    assert.equal(s.get('dk'), '16');
    assert.equal(s.get('trainOptimizer'), 'sgd');
    assert.equal(s.get('trainSeed'), '3');

    // A control changes the URL; a value back at its default leaves it.
    await trainInput(page, 'seed').fill('11');
    await trainInput(page, 'seed').press('Tab');
    await page.waitForFunction(() => new URLSearchParams(location.search).get('trainSeed') === '11');
    await trainInput(page, 'optimizer').selectOption('adam');
    await page.waitForFunction(() => !new URLSearchParams(location.search).has('trainOptimizer'));
    await trainInput(page, 'learningRate').fill('0.001');
    await trainInput(page, 'learningRate').press('Tab');
    await page.waitForFunction(() => !new URLSearchParams(location.search).has('trainLearningRate'));
    assert.equal(search(page).get('seed'), '1', 'the page’s own seed is another field');
    // The written link restores the same panel in a fresh page.
    const again = await open(new URL(page.url()).search);
    assert.equal(await trainInput(again.page, 'seed').inputValue(), '11');
    assert.equal(await trainInput(again.page, 'optimizer').inputValue(), 'adam');
    assert.equal(await trainInput(again.page, 'batchSize').inputValue(), '8');
    assert.deepEqual([...errors, ...again.errors], []);
    await page.close();
    await again.page.close();
  });

  test('bad training values in a link are clamped with a notice naming them, and the URL is corrected', async () => {
    const { page, errors } = await open(
      '?trainLearningRate=20&trainOptimizer=rmsprop&trainBatchSize=0&trainSeed=x',
    );
    const notice = page.locator('#notices .notice');
    await notice.waitFor();
    const text = await notice.textContent();
    assert.match(
      text,
      /trainLearningRate=20 is above the allowed range 0\.000001\.\.10; using trainLearningRate=10\./,
    );
    assert.match(text, /trainOptimizer=rmsprop is not one of adam, sgd; using trainOptimizer=adam\./);
    assert.match(text, /trainBatchSize=0 is below the allowed range 1\.\.\d+; using trainBatchSize=1\./);
    assert.match(text, /trainSeed=x is not a number; using trainSeed=1\./);
    assert.equal(await trainInput(page, 'learningRate').inputValue(), '10');
    assert.equal(await trainInput(page, 'batchSize').inputValue(), '1');
    await page.waitForFunction(() => new URLSearchParams(location.search).get('trainLearningRate') === '10');
    const s = search(page);
    assert.equal(s.get('trainBatchSize'), '1');
    assert.ok(!s.has('trainOptimizer') && !s.has('trainSeed'), 'reset to the default: left out');
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('a notice belongs to its URL: back/forward to a URL with no bad value clears it', async () => {
    const { page, errors } = await open('?dk=32');
    assert.equal(await noticeCount(page), 0);
    // Two entries of the app's own history: a bad link, then a good one.
    await page.evaluate(() => {
      history.pushState(null, '', '?dk=99999&trainSeed=-1');
      history.pushState(null, '', '?dk=16');
    });
    await travel(page, -1); // → the bad link
    const notice = page.locator('#notices .notice');
    await notice.waitFor();
    assert.match(await notice.textContent(), /dk=99999 is above the allowed range 1\.\.4096; using dk=4096/);
    assert.match(await notice.textContent(), /trainSeed=-1 is below the allowed range/);
    await travel(page, 1); // → the good one
    await page.waitForFunction(() => !document.querySelector('#notices .notice'));
    assert.equal(await noticeCount(page), 0, 'the stale notice is gone');
    assert.equal(search(page).get('dk'), '16');
    // The bad entry was rewritten to the values used: going back to it needs no notice.
    await travel(page, -1);
    assert.equal(search(page).get('dk'), '4096');
    assert.equal(search(page).get('trainSeed'), '0');
    assert.equal(await noticeCount(page), 0);
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('Embed dialog: the snippets name only what differs from the defaults (training settings too)', async () => {
    const { page, errors } = await open('', { width: 1100, height: 900 });
    await page.locator('#embed-button').click();
    const dialog = page.locator('dialog.embed-dialog');
    await dialog.waitFor();
    const iframeCode = dialog.locator('[data-snippet="iframe"] textarea');
    const componentCode = dialog.locator('[data-snippet="web component"] textarea');
    assert.match(await iframeCode.inputValue(), /embed\.html\?panel=spread" title=/);
    // no attribute but the panel; inside, the fallback link to the full page
    assert.match(
      await componentCode.inputValue(),
      /<attn-scale-demo panel="spread" style="[^"]*">\n {2}<a href="[^"?]*index\.html">Open the attnscale demo<\/a>\n<\/attn-scale-demo>/,
    );
    await page.keyboard.press('Escape');

    // Change a page field and a training setting, then embed the training panel.
    await page.locator('[data-train-preset="dk256-init2"]').click();
    await page.waitForFunction(() => new URLSearchParams(location.search).get('trainInitScale') === '2');
    await page.locator('[data-panel="training"] [data-action="play"]').click(); // pause the preset's run
    await page.locator('#embed-button').click();
    await dialog.getByLabel('Training side by side').check();
    const iframe = await iframeCode.inputValue();
    assert.match(
      iframe,
      /embed\.html\?panel=spread,training&amp;dk=256&amp;seqLen=32&amp;trainInitScale=2" title=/,
    );
    assert.match(
      await componentCode.inputValue(),
      /<attn-scale-demo panel="spread,training" dk="256" seq-len="32" style="[^"]*">\n {2}<a href="[^"?]*index\.html\?dk=256&amp;seqLen=32&amp;trainInitScale=2">Open the attnscale demo<\/a>\n<\/attn-scale-demo>/,
    );
    assert.match(
      await dialog.locator('.embed-summary').textContent(),
      /training settings go in the iframe only/,
    );

    // The iframe's URL restores the training setting in embed.html.
    const src = /src="([^"]+)"/.exec(iframe)[1].replaceAll('&amp;', '&');
    const embed = await open(new URL(src).pathname.slice(1) + new URL(src).search);
    assert.equal(await trainInput(embed.page, 'initScale').inputValue(), '2');
    assert.match(
      await embed.page.locator('[data-panel="training"] .train-from-page').textContent(),
      /d_k 256, T 32/,
    );
    assert.equal(await noticeCount(embed.page), 0);
    assert.deepEqual([...errors, ...embed.errors], []);
    await page.close();
    await embed.page.close();
  });
});
