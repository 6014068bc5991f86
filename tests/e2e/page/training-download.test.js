// The training panel's "Download q, k (.safetensors)" in headless Debian chromium, against dist/
// (or $ATTNSCALE_DIST): after some steps the browser downloads attnscale-trained-step-<n>.safetensors,
// which readTensorFile reads back as <copy>.q, <copy>.k of shape (T, d_k) for every copy, with the
// run in its metadata and the same bits as the trainer's qk in Node at that step. And the trained
// sample the build ships is served next to the page, for a same-origin fetch.
import { describe } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { watchErrors, waitForApp, test, openFolds } from '../support/browser.js';
import { STEP_BUTTON_STEPS } from '../../../web/src/panels/training/train-state.js';
import { readTensorFile } from '../../../web/src/tensors/read-tensors.js';
import { pairHeads } from '../../../web/src/tensors/pair-heads.js';
import { createEngine } from '../../../web/src/engine/engine.js';
import { join } from 'node:path';
import { DIST, useSite } from '../support/site.js';

const site = useSite();
const COPIES = ['none', 'sqrt', 'linear'];

async function open(query) {
  const page = await site.browser.newPage({ reducedMotion: 'reduce' });
  const errors = watchErrors(page);
  await page.goto(site.server.url + query);
  await page.evaluate(openFolds, '[data-panel="training"]'); // its topic under "Going further", opened as a reader would
  await waitForApp(page, { sweeps: false });
  await page.waitForSelector('[data-panel="training"] [data-download-qk]');
  return { page, errors };
}

/** Waits until the panel shows `n` steps and has nothing left in flight. */
const waitPausedAt = (page, n) =>
  page.waitForFunction(
    (want) => {
      const panel = document.querySelector('[data-panel="training"]');
      return panel.dataset.trainState === 'paused' && panel.dataset.trainSteps === String(want);
    },
    n,
    { timeout: 60000, polling: 50 },
  );

/** Clicks the download button; → { name, file } with the file read back. */
async function downloadQk(page) {
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.locator('[data-panel="training"] [data-download-qk]').click(),
  ]);
  const bytes = await readFile(await download.path());
  return { name: download.suggestedFilename(), file: readTensorFile(bytes) };
}

const bitsOf = (a) => Array.from(new Uint32Array(a.buffer, a.byteOffset, a.length));

describe('the training panel’s q, k download', () => {
  test('after 20 steps: every copy’s q and k, (T, d_k), the run in the metadata, the bits of qk in Node', async () => {
    const { page, errors } = await open('?dk=16&seqLen=8');
    const panel = page.locator('[data-panel="training"]');
    await panel.scrollIntoViewIfNeeded();
    assert.equal(await panel.locator('[data-download-qk]').textContent(), 'Download q, k (.safetensors)');
    for (let i = 1; i <= 2; i++) {
      await panel.locator('[data-action="step"]').click();
      await waitPausedAt(page, i * STEP_BUTTON_STEPS);
    }
    const steps = 2 * STEP_BUTTON_STEPS;
    const { name, file } = await downloadQk(page);
    assert.equal(name, `attnscale-trained-step-${steps}.safetensors`);
    assert.equal(file.format, 'safetensors');
    assert.deepEqual(
      Object.keys(file.tensors),
      COPIES.flatMap((c) => [`${c}.q`, `${c}.k`]),
    );
    for (const t of Object.values(file.tensors)) {
      assert.equal(t.dtype, 'F32');
      assert.deepEqual(t.shape, [8, 16]);
    }
    const meta = file.metadata;
    assert.equal(meta.steps, String(steps));
    assert.equal(meta.seed, '1');
    assert.equal(meta.copies, COPIES.join(','));
    assert.equal(meta['sqrt.scale'], String(Math.fround(1 / 4)));
    assert.equal(meta['sqrt.scaling'], '1/√d_k');
    const cfg = JSON.parse(meta.config);
    assert.deepEqual([cfg.dk, cfg.seqLen], [16, 8]);
    assert.deepEqual(
      pairHeads(file.tensors).map((l) => [l.layer, l.heads, l.seqLen, l.dk]),
      [
        ['linear.', 1, 8, 16],
        ['none.', 1, 8, 16],
        ['sqrt.', 1, 8, 16],
      ],
    );
    // The same run in Node: the browser's trainer (wasm SIMD) gives the same bits.
    const engine = await createEngine();
    const trainer = engine.train(cfg);
    trainer.step(steps);
    for (const copy of COPIES) {
      const { q, k } = trainer.qk(copy);
      assert.deepEqual(bitsOf(file.tensors[`${copy}.q`].data), bitsOf(q), `${copy}.q`);
      assert.deepEqual(bitsOf(file.tensors[`${copy}.k`].data), bitsOf(k), `${copy}.k`);
    }
    trainer.reset();
    const start = trainer.qk('none');

    // After Reset the download is the starting weights' q and k, named step 0. (A pause first:
    // Chromium's download limiter may drop a download that follows another within milliseconds.)
    await page.waitForTimeout(1500);
    await panel.locator('[data-action="reset"]').click();
    await waitPausedAt(page, 0);
    const again = await downloadQk(page);
    assert.equal(again.name, 'attnscale-trained-step-0.safetensors');
    assert.equal(again.file.metadata.steps, '0');
    assert.deepEqual(bitsOf(again.file.tensors['none.q'].data), bitsOf(start.q));
    trainer.delete();
    engine.delete();
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('the trained sample is served next to the page: a same-origin fetch gets the built file', async () => {
    const { page, errors } = await open('');
    const fetched = await page.evaluate(async () => {
      const r = await fetch('samples/trained-sample.safetensors');
      return { status: r.status, bytes: Array.from(new Uint8Array(await r.arrayBuffer())) };
    });
    assert.equal(fetched.status, 200);
    const built = await readFile(join(DIST, 'samples', 'trained-sample.safetensors'));
    assert.ok(
      Buffer.from(fetched.bytes).equals(built),
      'the bytes of dist/samples/trained-sample.safetensors',
    );
    const { tensors } = readTensorFile(Uint8Array.from(fetched.bytes));
    assert.deepEqual(
      Object.keys(tensors),
      COPIES.flatMap((c) => [`${c}.q`, `${c}.k`]),
    );
    assert.deepEqual(errors, []);
    await page.close();
  });
});
