// The overflow-thresholds panel (chapter 8) in headless Debian chromium against dist/:
// the table fills in (every cell measured, the panel's completion markers cleared) and shows what
// the formats' ranges imply: unscaled without max subtraction fp16 breaks at a small d_k, bf16 only
// much later (it keeps fp32's exponent range, so it fails in exp where fp32 does), fp32 not before
// bf16; with the max subtracted no exponential overflows in any format.
import { describe } from 'node:test';
import assert from 'node:assert/strict';
import { watchErrors, waitForApp, test, openFolds } from '../support/browser.js';
import { useSite } from '../support/site.js';

const site = useSite();

async function open(query = '') {
  const page = await site.browser.newPage();
  const errors = watchErrors(page);
  await page.goto(site.server.url + query);
  await page.evaluate(openFolds, '[data-panel="thresholds"]'); // its topic under "Going further", opened as a reader would
  await waitForApp(page, { chapter8: true, timeout: 120000 });
  return { page, errors };
}

/** { 'fp16:nosub:none': { dk: number | 'never', stage } , … } from the table. */
const readTable = (page) =>
  page.evaluate(() =>
    Object.fromEntries(
      [...document.querySelectorAll('[data-threshold]')].map((td) => [
        td.dataset.threshold,
        { dk: td.dataset.dk === 'never' ? 'never' : Number(td.dataset.dk), stage: td.dataset.stage },
      ]),
    ),
  );

describe('overflow thresholds', () => {
  test('every cell measured; fp16 small, bf16 much larger, fp32 not smaller; max subtraction never fails in exp', async () => {
    const { page, errors } = await open('');
    const panel = page.locator('[data-panel="thresholds"]');
    assert.equal(await panel.evaluate((p) => p.classList.contains('is-stale')), false);
    assert.equal(await panel.locator('.panel-status').textContent(), '');
    const t = await readTable(page);
    assert.equal(Object.keys(t).length, 30);
    for (const [k, v] of Object.entries(t))
      assert.ok(v.dk === 'never' || (Number.isInteger(v.dk) && v.dk >= 1 && v.dk <= 4096), `${k}: ${v.dk}`);

    const fp16 = t['fp16:nosub:none'],
      bf16 = t['bf16:nosub:none'],
      fp32 = t['fp32:nosub:none'];
    assert.equal(fp16.stage, 'exp');
    assert.ok(Number.isInteger(fp16.dk) && fp16.dk <= 64, `fp16 unscaled fails at d_k ${fp16.dk}`);
    assert.equal(bf16.stage, 'exp', 'bf16 fails in exp, not in the logits');
    assert.ok(Number.isInteger(bf16.dk) && bf16.dk >= 8 * fp16.dk, `bf16 ${bf16.dk} vs fp16 ${fp16.dk}`);
    assert.ok(fp32.dk === 'never' || fp32.dk >= bf16.dk, `fp32 ${fp32.dk} vs bf16 ${bf16.dk}`);
    for (const [k, v] of Object.entries(t)) if (k.includes(':sub:')) assert.notEqual(v.stage, 'exp', k);
    // 1/√d_k keeps fp16 and bf16 finite all the way.
    assert.equal(t['fp16:nosub:sqrt'].dk, 'never');
    assert.equal(t['bf16:nosub:sqrt'].dk, 'never');

    // The "why" line of fp16 quotes ln(65504) and a largest logit above it.
    const why = await panel.locator('.thresholds-why').textContent();
    assert.match(
      why,
      new RegExp(
        `fp16, none, no max subtraction: at d_k ${fp16.dk} the largest logit is [\\d.]+ .*ln\\(65504\\) = 11\\.09`,
      ),
    );
    assert.match(
      await panel.locator('[data-row="bf16:nosub"] [data-largest-finite]').textContent(),
      /^3\.39e38 \(88\.72\)$/,
    );
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('follows the page: T and seed from the URL, a T above the cap is said', async () => {
    const { page, errors } = await open('?seqLen=512&seed=3');
    const caption = await page.locator('[data-panel="thresholds"] .caption:not(.gaps)').textContent();
    assert.match(caption, /^T = 256 \(the page’s T = 512, capped at 256/);
    assert.match(caption, /seed 3/);
    // A new setting measures again.
    await page.evaluate(() => {
      history.replaceState(null, '', '?seqLen=32&seed=3');
      dispatchEvent(new PopStateEvent('popstate'));
    });
    await page.waitForFunction(
      () =>
        /^T = 32,/.test(document.querySelector('[data-panel="thresholds"] .caption:not(.gaps)').textContent),
      null,
      { timeout: 60000 },
    );
    await waitForApp(page, { chapter8: true, timeout: 120000 });
    assert.equal(
      Object.values(await readTable(page)).filter((v) => v.dk === undefined || Number.isNaN(v.dk)).length,
      0,
    );
    assert.deepEqual(errors, []);
    await page.close();
  });
});
