// What real models multiply q·k by, in headless Debian chromium against dist/: a model's config.json
// chosen with its q and k makes the report measure with the model's multiplier and soft-cap (the
// cells equal engine.analyze in Node with them) and name the fields it used; a head that parks its
// weight on key 0 is flagged as an attention sink; a bad config.json is named and the report falls
// back to 1/√d_k; a model preset button of chapter 8 sets d_k, the multiplier, the soft-cap and the
// QK-norm and measures the model's choice against plain 1/√d_k (the numbers equal the engine's in
// Node). Screenshots go to tests/output/.
import { describe } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { watchErrors, waitForApp, test, openFolds } from '../support/browser.js';
import { OUT, useSite } from '../support/site.js';
import { createEngine } from '../../../web/src/engine/engine.js';
import { gaussians } from '../support/gaussians.js';

const site = useSite();
const PANEL = '[data-panel="report"]';
const T = 64;
const DK = 128;
const GEMMA_27B = {
  model_type: 'gemma2',
  head_dim: 128,
  query_pre_attn_scalar: 144,
  attn_logit_softcapping: 50.0,
};

/** A .npy v1.0 file of float32 `data`. */
function npy(shape, data) {
  let header = `{'descr': '<f4', 'fortran_order': False, 'shape': (${shape.join(', ')}), }`;
  header += ' '.repeat(64 - ((10 + header.length + 1) % 64)) + '\n';
  const pre = Buffer.alloc(10);
  Buffer.from([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 1, 0]).copy(pre);
  pre.writeUInt16LE(header.length, 8);
  return Buffer.concat([pre, Buffer.from(header, 'latin1'), Buffer.from(data.buffer)]);
}

/**
 * Two heads of (T, d_k) q and k. Head 1 is a sink: every query has 3 in component 0 and key 0 has
 * 40 there, so q·k₀/12 ≈ 10 stands far above the other logits (σ ≈ 1) in every row.
 */
function sinkLayer() {
  const q = gaussians(2 * T * DK, 7);
  const k = gaussians(2 * T * DK, 8);
  const head1 = T * DK;
  for (let i = 0; i < T; i++) q[head1 + i * DK] = 3;
  k[head1] = 40;
  return { q, k };
}

const choose = (page, files) =>
  page
    .locator(`${PANEL} input[data-tensor-input]`)
    .setInputFiles(files.map(([name, buffer]) => ({ name, mimeType: 'application/octet-stream', buffer })));
const waitDone = (page) =>
  page.waitForFunction(
    (sel) => ['done', 'error'].includes(document.querySelector(sel)?.dataset.reportState),
    PANEL,
    { timeout: 60000, polling: 50 },
  );
const cellValues = (page) =>
  page.$$eval(`${PANEL} [data-report-grid] [data-layer]`, (cells) =>
    cells.map((c) => ({
      head: +c.dataset.head,
      value: Number(c.dataset.value),
      sink: c.dataset.sink === 'true',
    })),
  );

async function open(site) {
  const page = await site.browser.newPage({ reducedMotion: 'reduce' });
  const errors = watchErrors(page);
  await page.goto(site.server.url);
  await page.evaluate(openFolds, '#model-presets, [data-panel="report"]'); // its topic under "Going further", opened as a reader would
  await waitForApp(page, { sweeps: false });
  return { page, errors };
}

/** The mean largest weight of each head, as the engine in Node gives it with `options`. */
async function nodeMaxWeights({ q, k }, options) {
  const engine = await createEngine();
  try {
    return engine.analyze(q, k, { seqLen: T, dk: DK, heads: 2, ...options }).heads.map((r) => r.maxWeight);
  } finally {
    engine.delete();
  }
}

const files = ({ q, k }, config) => [
  ['layers.0.q.npy', npy([2, T, DK], q)],
  ['layers.0.k.npy', npy([2, T, DK], k)],
  ['config.json', Buffer.from(typeof config === 'string' ? config : JSON.stringify(config))],
];

describe('real models: their config.json in the report, and chapter 8’s model presets', () => {
  test('a Gemma-2-27B-like config.json: × 1/12 and soft-cap 50, fields named; head 1 is a sink', async () => {
    const layer = sinkLayer();
    const { page, errors } = await open(site);
    await page.locator(PANEL).scrollIntoViewIfNeeded();
    await choose(page, files(layer, GEMMA_27B));
    await waitDone(page);
    const panel = page.locator(PANEL);
    assert.equal(await panel.getAttribute('data-report-state'), 'done');
    const said = await panel.locator('[data-report-config]').textContent();
    assert.match(said, /query_pre_attn_scalar = 144 → × 144\^−0\.5 = 1\/12/);
    assert.match(said, /attn_logit_softcapping = 50 → soft-cap 50/);
    assert.match(said, /measured with × 144\^−0\.5 = 1\/12 ≈ 0\.08333 and soft-cap 50/);
    assert.equal(await panel.locator('[data-whatif-field="scale"]').inputValue(), 'config');
    assert.equal(await panel.locator('[data-whatif-field="softcap"]').inputValue(), '50');

    // The cells are the engine's with the model's multiplier and soft-cap, not with 1/√d_k.
    // Tolerance 1e-6 relative: the same kernels (float rounding only without wasm SIMD).
    await panel.locator('[data-report-stat]').selectOption('maxWeight');
    const cells = await cellValues(page);
    const model = await nodeMaxWeights(layer, { scale: 1 / 12, softcap: 50 });
    const plain = await nodeMaxWeights(layer, {});
    for (const c of cells) {
      assert.ok(Math.abs(c.value - model[c.head]) <= 1e-6, `head ${c.head}: ${c.value} vs ${model[c.head]}`);
      if (c.head === 0) assert.ok(Math.abs(c.value - plain[0]) > 1e-4, 'differs from 1/√d_k');
    }
    assert.deepEqual(
      cells.map((c) => c.sink),
      [false, true],
      'head 1 is flagged as a sink',
    );
    assert.match(await panel.locator('[data-report-summary]').textContent(), /1 head is an attention sink/);
    await panel.locator('[data-layer="0"][data-head="1"]').click();
    await page.waitForFunction((sel) => document.querySelector(sel).dataset.reportDetail === 'done', PANEL);
    const facts = await panel.locator('[data-report-detail-facts]').textContent();
    assert.match(facts, /This head is an attention sink/);
    assert.match(facts, /arXiv 2309\.17453/);
    await panel.screenshot({ path: join(OUT, 'models-report-config.png') });
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('a bad config.json is named with its field, and the report uses 1/√d_k', async () => {
    const layer = sinkLayer();
    const { page, errors } = await open(site);
    const panel = page.locator(PANEL);
    await panel.scrollIntoViewIfNeeded();
    await choose(page, files(layer, { model_type: 'gemma2', head_dim: '128' }));
    await waitDone(page);
    const said = await panel.locator('[data-report-config]').textContent();
    assert.match(said, /config\.json: head_dim is the string "128"; it must be a positive integer\./);
    assert.match(said, /every head is measured with 1\/√d_k/);
    assert.equal(await panel.locator('[data-whatif-field="scale"] option[value="config"]').count(), 0);
    await panel.locator('[data-report-stat]').selectOption('maxWeight');
    const plain = await nodeMaxWeights(layer, {});
    for (const c of await cellValues(page))
      assert.ok(Math.abs(c.value - plain[c.head]) <= 1e-6, `head ${c.head} measured with 1/√d_k`);

    await choose(page, files(layer, '{"head_dim": 128,'));
    await waitDone(page);
    assert.match(await panel.locator('[data-report-config]').textContent(), /config\.json is not JSON \(/);
    assert.equal(await panel.getAttribute('data-report-state'), 'done');
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('the Gemma 2 27B button sets d_k 128, × 1/12, soft-cap 50; its measured sentence is the engine’s', async () => {
    const { page, errors } = await open(site);
    const box = page.locator('#model-presets');
    await box.scrollIntoViewIfNeeded();
    await box.locator('[data-model-preset="gemma-2-27b"]').click();
    await page.waitForFunction(
      () => /softcap=50/.test(document.getElementById('app').dataset.resultQuery ?? ''),
      null,
      { timeout: 30000 },
    );
    const query = new URLSearchParams(await page.locator('#app').getAttribute('data-result-query'));
    assert.equal(query.get('dk'), '128');
    assert.equal(Number(query.get('scale')), 1 / 12);
    assert.equal(query.get('softcap'), '50');
    assert.equal(query.get('qkNorm'), 'none');
    assert.match(await box.locator('[data-model-setting]').textContent(), /query_pre_attn_scalar = 144/);
    const sentence = box.locator('[data-model-measured="gemma-2-27b"]');
    await sentence.waitFor({ timeout: 30000 });
    const text = await sentence.textContent();
    const [, mine, plain] = text.match(/σ of the logits ([\d.]+).*plain 1\/√d_k gives σ ([\d.]+)/);
    // The same measurement in Node: the page's defaults, d_k 128; readouts of 4 significant digits.
    const engine = await createEngine();
    const cfg = { ...engine.defaults() };
    const want = engine.sweepScales({ ...cfg, softcap: 50 }, [DK], [1 / 12])[String(1 / 12)].logitStd[0];
    const wantPlain = engine.sweepScales(cfg, [DK], ['sqrt']).sqrt.logitStd[0];
    engine.delete();
    assert.ok(Math.abs(Number(mine) - want) <= 5e-4 * want, `σ ${mine} vs ${want}`);
    assert.ok(Math.abs(Number(plain) - wantPlain) <= 5e-4 * wantPlain, `plain σ ${plain} vs ${wantPlain}`);
    await box.screenshot({ path: join(OUT, 'models-presets.png') });

    await box.locator('[data-model-preset="qwen3-8b"]').click();
    await page.waitForFunction(
      () => /qkNorm=rms/.test(document.getElementById('app').dataset.resultQuery ?? ''),
      null,
      { timeout: 30000 },
    );
    assert.equal(await box.locator('[data-model-preset="qwen3-8b"]').getAttribute('aria-pressed'), 'true');
    assert.deepEqual(errors, []);
    await page.close();
  });
});
