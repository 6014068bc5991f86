// Chapter 8, "Beyond √d_k", in headless Debian chromium against dist/: its two measured panels
// (the schemes against d_k, attention against T) complete and say what the text says; the new
// config fields (qkNorm, lengthScale, softcap) round-trip through the URL and the controls; the
// chapter's presets set them; screenshots at 1280 and 390 px wide go to tests/output/.
import { describe } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { watchErrors, waitForApp, test } from '../support/browser.js';
import { useSite, OUT } from '../support/site.js';

const site = useSite();

async function open(query, opts = {}) {
  const page = await site.browser.newPage({ reducedMotion: 'reduce', ...opts });
  const errors = watchErrors(page);
  await page.goto(site.server.url + query);
  return { page, errors };
}

const num = async (page, name) => Number(await page.locator(`[data-stat="${name}"]`).first().textContent());
const search = (page) => new URLSearchParams(new URL(page.url()).search);

describe('chapter 8: beyond √d_k', () => {
  test('the schemes and length panels complete, and their readouts say what the text says', async () => {
    const { page, errors } = await open('', { width: 1280, height: 900 });
    await waitForApp(page, { chapter8: true, timeout: 300000 });
    for (const name of ['schemes', 'length']) {
      assert.equal(await page.locator(`[data-panel="${name}"]`).getAttribute('data-drawn'), 'true', name);
    }
    // Mean 1, std 2 at d_k = 2048: 1/√d_k alone leaves σ ≈ √(s⁴ + 2μ²s²) = √24; a layer norm brings it to ≈ 1 and
    // its logits to mean ≈ 0; an RMS norm also fixes the scale but keeps a common offset that grows like √d_k.
    const sqrt = await num(page, 'schemes.shiftedSqrt');
    const layer = await num(page, 'schemes.shiftedLayer');
    const rmsMean = await num(page, 'schemes.shiftedRmsMean');
    const layerMean = await num(page, 'schemes.shiftedLayerMean');
    assert.ok(Math.abs(sqrt - Math.sqrt(24)) < 0.3, `σ with 1/√d_k alone: ${sqrt}`);
    assert.ok(Math.abs(layer - 1) < 0.05, `σ after layer norm: ${layer}`);
    assert.ok(Math.abs(layerMean) < 0.1, `mean logit after layer norm: ${layerMean}`);
    assert.ok(rmsMean > 5, `mean logit after RMS norm: ${rmsMean}`);
    // Correlation 0.5: the norm does not restore the law; 1/d_k keeps the largest logit in range.
    assert.ok((await num(page, 'schemes.correlatedLayer')) > 1.5, 'layer-normed σ with correlation');
    const maxSqrt = await num(page, 'schemes.correlatedSqrtMax');
    const maxLinear = await num(page, 'schemes.correlatedLinearMax');
    assert.ok(
      maxSqrt > 10 * maxLinear,
      `largest logit with correlation: 1/√d_k ${maxSqrt}, 1/d_k ${maxLinear}`,
    );
    // Attention fading: with 1/√d_k the largest weight falls from T = 64 to 2048; the length factor keeps more of it.
    const corr = [await num(page, 'length.corr.maxFirst'), await num(page, 'length.corr.maxLast')];
    const corrLn = [await num(page, 'length.corrLn.maxFirst'), await num(page, 'length.corrLn.maxLast')];
    const iid = [await num(page, 'length.iid.maxFirst'), await num(page, 'length.iid.maxLast')];
    assert.ok(iid[1] < iid[0] / 4 && corr[1] < corr[0] / 4, `fading: i.i.d. ${iid}, correlated ${corr}`);
    assert.ok(corrLn[1] > 5 * corr[1], `with the length factor at T = 2048: ${corrLn[1]} against ${corr[1]}`);
    // Another statistic: the charts are rebuilt, the readouts stay.
    await page.locator('[data-panel="schemes"] .metric-switch button', { hasText: 'entropy' }).click();
    assert.equal(
      await page.locator('[data-panel="schemes"] .metric-switch button[aria-pressed="true"]').textContent(),
      'entropy (nats)',
    );
    assert.equal(await num(page, 'schemes.shiftedLayer'), layer);
    await page.locator('#beyond').screenshot({ path: join(OUT, 'beyond-1280.png') });
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('qkNorm, lengthScale and softcap round-trip through the URL, the controls and a preset', async () => {
    const { page, errors } = await open('?dk=64&qkNorm=layer&lengthScale=0.43&softcap=50', {
      width: 390,
      height: 844,
    });
    await waitForApp(page, { chapter8: true, timeout: 300000 });
    const q = search(page);
    assert.equal(q.get('qkNorm'), 'layer');
    assert.equal(q.get('lengthScale'), '0.43');
    assert.equal(q.get('softcap'), '50');
    assert.match(await page.locator('#app').getAttribute('data-result-query'), /qkNorm=layer/);
    assert.equal(await page.locator('[data-field="qkNorm"] select').inputValue(), 'layer');
    assert.equal(await page.locator('[data-field="softcap"] input[type="number"]').inputValue(), '50');
    assert.equal(await page.locator('#notices .notice').count(), 0);
    // Soft-cap 50: no logit fed to the softmax leaves (−50, 50).
    assert.ok(Math.abs(await num(page, 'logitMax')) < 50 && Math.abs(await num(page, 'logitMin')) < 50);
    // A chapter preset sets its fields from the defaults (qkNorm back to none).
    await page.locator('[data-preset="softcap"]').click();
    await page.waitForFunction(
      () =>
        /softcap=50/.test(location.search) &&
        /scale=none/.test(location.search) &&
        !/qkNorm=layer/.test(location.search),
    );
    await waitForApp(page, { chapter8: true, timeout: 300000 });
    assert.ok((await num(page, 'logitMax')) < 50, 'capped');
    assert.ok((await num(page, 'rawLogitStd')) > 25, 'the raw logits at d_k = 1024 are not');
    await page.locator('#beyond').screenshot({ path: join(OUT, 'beyond-390.png') });
    assert.deepEqual(errors, []);
    await page.close();
  });

  test("the chapter's panels embed (embed.html), and a benign ResizeObserver report does not read as a load failure", async () => {
    const { page, errors } = await open('embed.html?panel=schemes,length', { width: 900, height: 900 });
    await waitForApp(page, { chapter8: true, timeout: 300000 });
    await page.waitForFunction(
      () =>
        [...document.querySelectorAll('[data-panel]')].every(
          (p) => !p.classList.contains('is-stale') && !p.querySelector('.panel-status')?.textContent,
        ),
      null,
      { timeout: 300000 },
    );
    assert.ok(Math.abs((await num(page, 'schemes.shiftedLayer')) - 1) < 0.05);
    assert.equal(await page.locator('[data-load-failure]').count(), 0);
    assert.doesNotMatch(await page.locator('#engine-info').textContent(), /could not load/);
    assert.deepEqual(errors, []);
    await page.close();
  });
});
