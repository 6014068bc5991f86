// The learning-rate sweep (chapter 7) in headless Debian chromium against dist/: a small sweep runs
// on the page's Workers and every copy's LR sensitivity equals the one computed in Node from the
// same runs (the trainer gives the same bits in every build, so the text must match exactly); a
// rate outside the trainer's range is refused with the schema's field and range; a cancel stops
// the runs.
import { describe } from 'node:test';
import assert from 'node:assert/strict';
import { watchErrors, waitForApp, test, openFolds } from '../support/browser.js';
import { useSite } from '../support/site.js';
import { createEngine } from '../../../web/src/engine/engine.js';
import { workerJobs } from '../../../web/src/panels/lr-sweep/lr-sweep-job.js';
import { lrSensitivity } from '../../../web/src/panels/lr-sweep/lr-sensitivity.js';
import { LR_SWEEP_SETUP } from '../../../web/src/panels/lr-sweep/lr-sweep.js';
import { fmt } from '../../../web/src/ui/format.js';

const site = useSite();
const RATES = [1e-3, 0.3];
const STEPS = 40;

async function open() {
  const page = await site.browser.newPage();
  const errors = watchErrors(page);
  await page.goto(site.server.url);
  await page.evaluate(openFolds, '[data-panel="lr-sweep"]'); // its topic under "Going further", opened as a reader would
  await waitForApp(page);
  const panel = page.locator('[data-panel="lr-sweep"]');
  await panel.scrollIntoViewIfNeeded();
  return { page, errors, panel };
}

/** The sensitivity of each default copy over RATES, from the Worker job run here in Node. */
async function expected() {
  const engine = await createEngine();
  const choices = engine.trainSchema.find((f) => f.name === 'copies').choices;
  const out = {};
  for (const name of LR_SWEEP_SETUP.copies) {
    const { label, scale, qkNorm, softcap, lengthScale } = choices.find((c) => c.name === name);
    const finals = [];
    let l0 = NaN;
    for (const learningRate of RATES) {
      let done = null;
      const cfg = {
        ...LR_SWEEP_SETUP.base,
        learningRate,
        copies: [{ name, scale, qkNorm, softcap, lengthScale }],
      };
      const job = workerJobs.lrSweep(engine, { session: 1, id: 1, part: 0, cfg, steps: STEPS }, (m) => {
        if (m.type === 'lrSweepDone') done = m;
      });
      while (job.next());
      job.dispose();
      finals.push(done.finalLoss);
      if (Number.isNaN(l0)) l0 = done.initialLoss;
    }
    out[name] = { label, text: fmt(lrSensitivity(finals, l0), 3) };
  }
  return out;
}

describe('learning-rate sweep', () => {
  test('a sweep runs on the Workers, draws, and gives each copy the LR sensitivity Node computes', async () => {
    const want = await expected();
    const { page, errors, panel } = await open();
    assert.equal(await panel.getAttribute('data-lr-sweep'), 'idle');
    await panel.locator('input[aria-label="learning rates"]').fill(RATES.join(', '));
    await panel.locator('input[type="number"]').fill(String(STEPS));
    await panel.locator('[data-action="lr-run"]').click();
    await page.waitForSelector('[data-panel="lr-sweep"][data-lr-sweep="done"]', { timeout: 120000 });
    assert.equal(
      await panel.getAttribute('data-runs-done'),
      String(RATES.length * LR_SWEEP_SETUP.copies.length),
    );
    assert.equal(await panel.getAttribute('data-drawn'), 'true');
    for (const [name, { text }] of Object.entries(want))
      assert.equal(
        await panel.locator(`[data-stat="lrSensitivity"][data-copy="${name}"]`).textContent(),
        text,
        name,
      );
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('a rate outside the trainer’s range gets the schema’s error; cancel stops a sweep', async () => {
    const { page, errors, panel } = await open();
    await panel.locator('input[aria-label="learning rates"]').fill('0.001, 20');
    await panel.locator('[data-action="lr-run"]').click();
    assert.equal(await panel.getAttribute('data-lr-sweep'), 'invalid');
    assert.match(
      await panel.locator('.caption.gaps').textContent(),
      /learning rate 2 \(“20”\): learningRate must be a finite number in \[0\.000001, 10\], got 20/,
    );
    await panel.locator('input[aria-label="learning rates"]').fill('0.001, 0.01, 0.1');
    await panel.locator('input[type="number"]').fill('5000');
    await panel.locator('[data-action="lr-run"]').click();
    assert.equal(await panel.getAttribute('data-lr-sweep'), 'running');
    await panel.locator('[data-action="lr-cancel"]').click();
    assert.equal(await panel.getAttribute('data-lr-sweep'), 'cancelled');
    assert.ok(Number(await panel.getAttribute('data-runs-done')) < 6);
    assert.match(await panel.locator('.caption.gaps').textContent(), /^Cancelled after \d of 6 runs\.$/);
    assert.equal(await panel.locator('[data-action="lr-run"]').isDisabled(), false);
    assert.deepEqual(errors, []);
    await page.close();
  });
});
