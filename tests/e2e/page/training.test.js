// End-to-end tests of the training panel in headless Debian chromium, against dist/
// (or $ATTNSCALE_DIST) served on 127.0.0.1. One browser for the whole file.
// Documented behaviour checked here: Play grows the curves and advances the step counter; Pause
// stops it (the counter then stays still); Step runs exactly STEP_BUTTON_STEPS (10) steps; Reset
// goes back to step 0; every control works from the keyboard; a one-click comparison reproduces
// the native run's number; clamps of the page's T and of the cost cap are said as plain text in
// the panel (not as a warning: fitting the page's values to the trainer is expected).
import { describe } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { watchErrors, waitForApp, stat, test, openFolds } from '../support/browser.js';
import { STEP_BUTTON_STEPS } from '../../../web/src/panels/training/train-state.js';
import { useSite, OUT } from '../support/site.js';

const site = useSite();

async function open(query = '', opts = {}) {
  const page = await site.browser.newPage({ reducedMotion: 'reduce', ...opts });
  const errors = watchErrors(page);
  await page.goto(site.server.url + query);
  await page.evaluate(openFolds, '[data-panel="training"]'); // its topic under "Going further", opened as a reader would
  await waitForApp(page, { sweeps: false });
  await page.waitForSelector('[data-panel="training"] [data-action="play"]');
  return { page, errors };
}

const steps = async (page) => Number(await stat(page, 'train.step'));
/** Wait until the step counter is ≥ min (or === eq). */
const waitSteps = (page, { min = null, eq = null }, timeout = 60000) =>
  page.waitForFunction(
    ({ min: lo, eq: want }) => {
      const n = Number(document.querySelector('[data-stat="train.step"]').textContent);
      return want !== null ? n === want : n >= lo;
    },
    { min, eq },
    { timeout, polling: 50 },
  );
const waitIdle = (page) =>
  page.waitForFunction(
    () => document.querySelector('[data-panel="training"]').dataset.trainState === 'paused',
    null,
    { timeout: 60000 },
  );

/** A fingerprint of a chart canvas (changes when anything is drawn differently). */
const canvasPrint = (page, index) =>
  page
    .locator('[data-panel="training"] .train-chart canvas')
    .nth(index)
    .evaluate((c) => {
      const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
      let hsh = 0,
        ink = 0;
      for (let i = 0; i < d.length; i += 4) {
        hsh = (Math.imul(hsh, 31) + d[i] + 7 * d[i + 1] + 13 * d[i + 2]) | 0;
        if (d[i + 3] > 0) ink++;
      }
      return { hsh, ink };
    });

describe('the training panel', () => {
  test('play grows the curves and the counter, pause stops it, step adds 10, reset clears; screenshots', async () => {
    const { page, errors } = await open('?dk=64&seqLen=32', { width: 1280, height: 900 });
    const panel = page.locator('[data-panel="training"]');
    await panel.scrollIntoViewIfNeeded();
    assert.equal(await steps(page), 0);
    assert.match(await page.locator('[data-train-summary]').textContent(), /No steps yet/);

    // Play: the counter advances and the curves grow.
    const before0 = await canvasPrint(page, 0);
    await panel.locator('[data-action="play"]').click();
    assert.equal(await panel.locator('[data-action="play"]').textContent(), 'Pause');
    await waitSteps(page, { min: 20 });
    const a = await steps(page);
    const printA = await canvasPrint(page, 0);
    await waitSteps(page, { min: a + 30 });
    // The charts redraw on the next animation frame after the counter: poll (up to 5 s) instead of
    // sampling once, so a loaded machine does not read the canvas between the two.
    let printB = await canvasPrint(page, 0);
    for (let t = 0; t < 50 && printB.hsh === printA.hsh; t++) {
      await page.waitForTimeout(100);
      printB = await canvasPrint(page, 0);
    }
    assert.notEqual(printA.hsh, before0.hsh, 'the loss chart drew curves');
    assert.notEqual(printB.hsh, printA.hsh, 'the loss chart keeps changing while playing');
    assert.ok((await steps(page)) > a, 'the counter advances');
    assert.ok(Number(await stat(page, 'train.speed')) > 0, 'a speed readout');

    // Let it pass ~200 steps, then pause: the counter stays still for more than a second.
    await waitSteps(page, { min: 200 });
    await panel.locator('[data-action="play"]').click();
    await waitIdle(page);
    const paused = await steps(page);
    await page.waitForTimeout(1200);
    assert.equal(await steps(page), paused, 'paused: the counter stays still');
    assert.equal(await panel.locator('[data-action="play"]').textContent(), 'Play');

    // Readouts and the text summary hold values.
    for (const copy of ['none', 'sqrt', 'linear']) {
      for (const m of ['loss', 'accuracy', 'entropy', 'saturatedFraction', 'gradNormWq', 'gradNormWk']) {
        const v = Number(await stat(page, `train.${copy}.${m}`));
        assert.ok(Number.isFinite(v), `train.${copy}.${m} = ${v}`);
      }
    }
    assert.match(await page.locator('[data-train-summary]').textContent(), new RegExp(`Step ${paused} `));
    // The heatmaps were painted (many distinct colours in the first one).
    const colours = await panel
      .locator('.train-heat canvas')
      .first()
      .evaluate((c) => {
        const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
        const seen = new Set();
        for (let i = 0; i < d.length; i += 4 * 5) seen.add((d[i] << 16) | (d[i + 1] << 8) | d[i + 2]);
        return seen.size;
      });
    assert.ok(colours > 12, `heatmap colours ${colours}`);
    await page.locator('#training').screenshot({ path: join(OUT, 'training-desktop.png') });

    // Step: exactly STEP_BUTTON_STEPS more, then still.
    await panel.locator('[data-action="step"]').click();
    await waitSteps(page, { eq: paused + STEP_BUTTON_STEPS });
    await waitIdle(page);
    await page.waitForTimeout(500);
    assert.equal(await steps(page), paused + STEP_BUTTON_STEPS);

    // Reset: back to 0, and it stays there.
    await panel.locator('[data-action="reset"]').click();
    await waitSteps(page, { eq: 0 });
    await page.waitForTimeout(1000);
    assert.equal(await steps(page), 0);
    assert.equal(await stat(page, 'train.sqrt.loss'), '—');
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('keyboard: Enter/Space on the buttons, settings by keyboard', async () => {
    const { page, errors } = await open('?dk=16&seqLen=16');
    const play = page.locator('[data-panel="training"] [data-action="play"]');
    await play.focus();
    await page.keyboard.press('Enter');
    await waitSteps(page, { min: 10 });
    await page.keyboard.press('Space'); // focus is still on the (now Pause) button
    await waitIdle(page);
    const n = await steps(page);
    await page.waitForTimeout(800);
    assert.equal(await steps(page), n, 'paused from the keyboard');
    await page.keyboard.press('Tab'); // → Step
    assert.equal(await page.evaluate(() => document.activeElement?.dataset.action), 'step');
    await page.keyboard.press('Enter');
    await waitSteps(page, { eq: n + STEP_BUTTON_STEPS });
    await waitIdle(page);
    await page.keyboard.press('Tab'); // → Reset
    assert.equal(await page.evaluate(() => document.activeElement?.dataset.action), 'reset');
    await page.keyboard.press('Space');
    await waitSteps(page, { eq: 0 });

    // A setting typed in and committed with Tab is used by the next run (the run says so).
    const init = page.locator('[data-train-field="initScale"] input');
    await init.focus();
    await page.keyboard.press('ControlOrMeta+A');
    await page.keyboard.type('2');
    await page.keyboard.press('Tab');
    const opt = page.locator('[data-train-field="optimizer"] select');
    await opt.focus();
    await page.keyboard.press('ArrowDown'); // adam → sgd
    assert.equal(await opt.inputValue(), 'sgd');
    await play.focus();
    await page.keyboard.press('Enter');
    await waitSteps(page, { min: 10 });
    await page.keyboard.press('Enter');
    await waitIdle(page);
    assert.match(await page.locator('[data-train-summary]').textContent(), /SGD lr 0\.001, init scale 2,/);
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('a one-click comparison repeats the native run: d_k 256, init 1 → 1/√d_k reaches 90% at step 112', async () => {
    const { page, errors } = await open('');
    await page.locator('[data-train-preset="dk256"]').click();
    // The page's own settings moved too (the URL is the state).
    await page.waitForFunction(
      () => /(^|&|\?)dk=256(&|$)/.test(location.search) && /seqLen=32(&|$)/.test(location.search),
    );
    await page.waitForFunction(
      () => /^\d+$/.test(document.querySelector('[data-stat="train.sqrt.stepTo90"]')?.textContent ?? ''),
      null,
      { timeout: 120000, polling: 100 },
    );
    assert.equal(await stat(page, 'train.sqrt.stepTo90'), '112');
    await page.locator('[data-panel="training"] [data-action="play"]').click(); // pause
    await waitIdle(page);
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('the page’s T above 128 and the cost cap are clamped and said in the panel; a custom scale adds a copy', async () => {
    const { page, errors } = await open(''); // page default T = 256
    const notes = page.locator('[data-panel="training"] .train-adjust');
    assert.match(
      await notes.textContent(),
      /T = 256 is above the trainer's range 8\.\.128: training uses T = 128/,
    );
    assert.equal(
      await page.locator('[data-panel="training"] .notice').count(),
      0,
      'a plain line, not a warning',
    );
    await notes.getByRole('button', { name: /T to 32/ }).click();
    await page.waitForFunction(() => /seqLen=32(&|$)/.test(location.search));
    await page.waitForFunction(
      () => !document.querySelector('[data-panel="training"] .train-adjust').textContent.includes('T = 256'),
    );
    await page.close();

    const big = await open('?dk=4096&seqLen=128');
    assert.match(
      await big.page.locator('[data-panel="training"] .train-adjust').textContent(),
      /cost cap of 2097152: training uses batch size 4/,
    );
    await big.page.close();

    const custom = await open('?dk=32&seqLen=16&scale=0.05');
    await custom.page.locator('[data-panel="training"] [data-action="step"]').click();
    await waitSteps(custom.page, { eq: STEP_BUTTON_STEPS });
    // The custom copy's readout is filled in the same frame as, or just after, the step counter.
    await custom.page
      .waitForFunction(
        () => {
          const el = document.querySelector('[data-stat="train.custom.loss"]');
          return el && Number.isFinite(Number(el.textContent)) && el.textContent.trim() !== '';
        },
        null,
        { timeout: 60000 },
      )
      .catch(() => {});
    assert.ok(
      Number.isFinite(Number(await stat(custom.page, 'train.custom.loss'))),
      'a fourth copy with the custom multiplier',
    );
    assert.match(await custom.page.locator('[data-panel="training"] .legend').textContent(), /× 0\.05/);
    assert.deepEqual([...errors, ...big.errors, ...custom.errors], []);
    await custom.page.close();
  });

  test('phone (360 px): no horizontal scrolling; screenshot after ~200 steps', async () => {
    const { page, errors } = await open('?dk=64&seqLen=32', { width: 360, height: 760 });
    const panel = page.locator('[data-panel="training"]');
    await panel.locator('[data-action="play"]').click();
    await waitSteps(page, { min: 200 });
    await panel.locator('[data-action="play"]').click();
    await waitIdle(page);
    const overflow = await page.evaluate(
      () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
    );
    assert.ok(overflow <= 0, `no horizontal scrolling at 360 px (overflow ${overflow} px)`);
    await page.locator('#training').screenshot({ path: join(OUT, 'training-phone.png') });
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('copies: picking them (keyboard) trains exactly those, in the legend, table and URL; 8 copies screenshot', async () => {
    const { page, errors } = await open('?dk=16&seqLen=32');
    const panel = page.locator('[data-panel="training"]');
    // By keyboard: Space toggles a focused checkbox.
    await panel.locator('[data-train-copy="rms_sqrt"]').focus();
    await page.keyboard.press('Space');
    await panel.locator('[data-train-copy="linear"]').focus();
    await page.keyboard.press('Space');
    await panel.locator('[data-train-copy="none_cap5"]').check();
    await page.waitForFunction(() =>
      /[?&]trainCopies=none,sqrt,rms_sqrt,none_cap5(&|$)/.test(location.search),
    );
    assert.equal(
      await panel.getByRole('checkbox', { name: 'RMS-norm + 1/√d_k' }).isChecked(),
      true,
      'each checkbox is labelled',
    );
    await panel.locator('[data-action="step"]').click();
    await waitSteps(page, { eq: STEP_BUTTON_STEPS });
    await waitIdle(page);
    const rows = await panel.locator('.train-table tbody th').allTextContents();
    assert.deepEqual(rows, ['none', '1/√d_k', 'RMS-norm + 1/√d_k', 'none + soft-cap 5']);
    for (const c of ['none', 'sqrt', 'rms_sqrt', 'none_cap5'])
      assert.ok(Number.isFinite(Number(await stat(page, `train.${c}.loss`))), c);
    const legend = await panel.locator('.legend').first().textContent();
    assert.match(legend, /RMS-norm \+ 1\/√d_k/);
    assert.doesNotMatch(legend, /1\/d_k(?!_)/);
    assert.equal(await panel.locator('.train-heat-label').count(), 4);
    // Unchecking the last copy is refused with a note.
    for (const c of ['none', 'sqrt', 'rms_sqrt']) await panel.locator(`[data-train-copy="${c}"]`).uncheck();
    await panel.locator('[data-train-copy="none_cap5"]').click();
    assert.equal(await panel.locator('[data-train-copy="none_cap5"]').isChecked(), true);
    assert.match(await panel.locator('.train-notes').textContent(), /At least one copy/);
    // All eight, trained a little: the screenshot shows the legend and eight distinct colours.
    for (const c of ['none', 'sqrt', 'linear', 'rms_sqrt', 'layer_sqrt', 'none_cap50', 'sqrt_logn'])
      await panel.locator(`[data-train-copy="${c}"]`).check();
    await panel.locator('[data-action="step"]').click();
    await waitSteps(page, { eq: STEP_BUTTON_STEPS });
    await waitIdle(page);
    assert.equal(await panel.locator('.train-table tbody tr').count(), 8);
    await panel.screenshot({ path: join(OUT, 'training-eight-copies.png') });
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('copies in the URL: a shared link restores them, an unknown name is dropped with a notice', async () => {
    const { page, errors } = await open('?dk=16&seqLen=32&trainCopies=sqrt,flash,layer_sqrt');
    const panel = page.locator('[data-panel="training"]');
    const checked = await panel
      .locator('[data-train-copy]')
      .evaluateAll((els) => els.filter((e) => e.checked).map((e) => e.value));
    assert.deepEqual(checked, ['sqrt', 'layer_sqrt']);
    assert.match(
      await page.locator('#notices').textContent(),
      /trainCopies=sqrt,flash,layer_sqrt names unknown copies \(flash;.*using trainCopies=sqrt,layer_sqrt/,
    );
    await page.waitForFunction(() => /[?&]trainCopies=sqrt,layer_sqrt(&|$)/.test(location.search));
    assert.match(
      await panel.locator('.train-from-page').textContent(),
      /copies: 1\/√d_k, layer-norm \+ 1\/√d_k/,
    );
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('a findings preset sets what it says: init 2, d_k 256, QK-norm copies; RMS-norm reaches 90% at step 106 as measured', async () => {
    const { page, errors } = await open('');
    const panel = page.locator('[data-panel="training"]');
    await panel.locator('[data-train-preset="qknorm-init2"]').click();
    await page.waitForFunction(
      () =>
        /[?&]dk=256(&|$)/.test(location.search) &&
        /seqLen=32(&|$)/.test(location.search) &&
        /trainInitScale=2(&|$)/.test(location.search) &&
        /trainCopies=none,sqrt,rms_sqrt,layer_sqrt(&|$)/.test(location.search),
    );
    const checked = await panel
      .locator('[data-train-copy]')
      .evaluateAll((els) => els.filter((e) => e.checked).map((e) => e.value));
    assert.deepEqual(checked, ['none', 'sqrt', 'rms_sqrt', 'layer_sqrt']);
    assert.equal(await panel.locator('[data-train-field="initScale"] input').inputValue(), '2');
    assert.match(await panel.locator('.train-preset-note').textContent(), /QK-norm.*RMS-norm \+ 1\/√d_k 106/);
    await page.waitForFunction(
      () => /^\d+$/.test(document.querySelector('[data-stat="train.rms_sqrt.stepTo90"]')?.textContent ?? ''),
      null,
      { timeout: 120000, polling: 100 },
    );
    assert.equal(await stat(page, 'train.rms_sqrt.stepTo90'), '106');
    await panel.locator('[data-action="play"]').click(); // pause
    await waitIdle(page);
    assert.equal(await stat(page, 'train.none.stepTo90'), 'not yet');
    assert.deepEqual(errors, []);
    await page.close();
  });
});
