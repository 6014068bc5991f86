// Chapter 9, "Your model", in headless Debian chromium against dist/: tensor files chosen in the
// page are reported head by head in its Workers (grid cells equal to engine.analyze in Node on the
// same q and k), a click shows one head in full, the what-if settings recompute the grid, the CSV
// holds every head, malformed files get an error that names the problem and leave the page usable,
// Cancel stops the Workers, and no request leaves the page while a file is read. Screenshots at
// 1280 and 360 px go to tests/output/.
import { describe } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { watchErrors, waitForApp, test, openFolds } from '../support/browser.js';
import { OUT, useSite } from '../support/site.js';
import { createEngine } from '../../../web/src/engine/engine.js';
import { writeSafetensors } from '../../../web/src/tensors/write-safetensors.js';
import { gaussians } from '../support/gaussians.js';

const site = useSite();
const PANEL = '[data-panel="report"]';

/** layers × (heads, T, d) q and (kvHeads, T, d) k; layer i's k is scaled by 1 + i (its logits grow). */
function modelFile({ layers, heads, kvHeads = heads, seqLen, dk }) {
  const tensors = {};
  for (let i = 0; i < layers; i++) {
    tensors[`layers.${i}.q`] = { shape: [heads, seqLen, dk], data: gaussians(heads * seqLen * dk, 11 + i) };
    tensors[`layers.${i}.k`] = {
      shape: [kvHeads, seqLen, dk],
      data: gaussians(kvHeads * seqLen * dk, 101 + i, { std: 1 + i }),
    };
  }
  return { tensors, bytes: Buffer.from(writeSafetensors(tensors)) };
}

/** A .npy v1.0 file of float32 `data` with the given header fields. */
function npy(shape, data, { fortran = false, descr = '<f4' } = {}) {
  let header = `{'descr': '${descr}', 'fortran_order': ${fortran ? 'True' : 'False'}, 'shape': (${shape.join(', ')}${shape.length === 1 ? ',' : ''}), }`;
  header += ' '.repeat(64 - ((10 + header.length + 1) % 64)) + '\n';
  const pre = Buffer.alloc(10);
  Buffer.from([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 1, 0]).copy(pre);
  pre.writeUInt16LE(header.length, 8);
  return Buffer.concat([
    pre,
    Buffer.from(header, 'latin1'),
    Buffer.from(data.buffer, data.byteOffset, data.byteLength),
  ]);
}

async function open({ phone = false } = {}) {
  const page = await site.browser.newPage({ reducedMotion: 'reduce', phone });
  const errors = watchErrors(page);
  await page.goto(site.server.url);
  await page.evaluate(openFolds, '[data-panel="report"]'); // its topic under "Going further", opened as a reader would
  await waitForApp(page, { sweeps: false });
  await page.locator(PANEL).scrollIntoViewIfNeeded();
  return { page, errors };
}

const state = (page) => page.locator(PANEL).getAttribute('data-report-state');
const waitState = (page, want, timeout = 120000) =>
  page.waitForFunction(([sel, w]) => document.querySelector(sel)?.dataset.reportState === w, [PANEL, want], {
    timeout,
    polling: 50,
  });
const choose = (page, files) =>
  page
    .locator(`${PANEL} input[data-tensor-input]`)
    .setInputFiles(files.map(([name, buffer]) => ({ name, mimeType: 'application/octet-stream', buffer })));
const cellValues = (page) =>
  page.$$eval(`${PANEL} [data-report-grid] [data-layer]`, (cells) =>
    cells.map((c) => ({ layer: +c.dataset.layer, head: +c.dataset.head, value: Number(c.dataset.value) })),
  );

describe('chapter 9: your model, head by head', () => {
  test('a grouped-query file: every cell equals engine.analyze in Node; no request leaves the page', async () => {
    const shape = { layers: 2, heads: 4, kvHeads: 2, seqLen: 64, dk: 16 };
    const { tensors, bytes } = modelFile(shape);
    const { page, errors } = await open();
    await page.waitForTimeout(500); // what the page still loads after its first result (fonts, chunks)
    const requests = [];
    page.on('request', (r) => requests.push(`${r.method()} ${r.url()}`));
    await choose(page, [['gqa.safetensors', bytes]]);
    await waitState(page, 'done');
    assert.deepEqual(requests, [], 'no request while the file is read and reported');
    const panel = page.locator(PANEL);
    assert.equal(await panel.getAttribute('data-report-heads-total'), '8');
    assert.equal(await panel.getAttribute('data-report-heads-done'), '8');
    assert.ok(
      Number(await panel.getAttribute('data-report-memory')) <= 256 * 2 ** 20,
      'peak wasm memory ≤ 256 MB',
    );

    // The engine in Node, on the same q and k: head h reads key head ⌊h / 2⌋. Tolerance 1e-6 relative:
    // the same kernels; only a browser without wasm SIMD would differ, by float rounding.
    const engine = await createEngine();
    const expected = (stat) => {
      const out = [];
      for (let l = 0; l < shape.layers; l++) {
        const { heads } = engine.analyze(tensors[`layers.${l}.q`].data, tensors[`layers.${l}.k`].data, {
          seqLen: shape.seqLen,
          dk: shape.dk,
          heads: shape.heads,
          kvHeads: shape.kvHeads,
        });
        for (const r of heads) out.push({ layer: l, head: r.head, value: stat(r) });
      }
      return out;
    };
    const close = (got, want) => {
      assert.equal(got.length, want.length);
      for (const [i, g] of got.entries()) {
        assert.equal(g.layer, want[i].layer);
        assert.equal(g.head, want[i].head);
        assert.ok(
          Math.abs(g.value - want[i].value) <= 1e-6 * Math.max(1, Math.abs(want[i].value)),
          `cell ${i}: ${g.value} vs ${want[i].value}`,
        );
      }
    };
    close(
      await cellValues(page),
      expected((r) => r.rawLogitStd / r.iidRawLogitStd),
    );
    await panel.locator('[data-report-stat]').selectOption('saturated');
    close(
      await cellValues(page),
      expected((r) => r.saturatedFraction),
    );
    const summary = await panel.locator('[data-report-summary]').textContent();
    assert.match(summary, /of 8 heads in 2 layers/);
    assert.match(await panel.locator('[data-report-privacy]').textContent(), /Nothing leaves this machine/);

    // The CSV: a header and one row per head, with the engine's field names.
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      panel.locator('[data-report-csv]').click(),
    ]);
    const csv = (await readFile(await download.path(), 'utf8')).trim().split('\n');
    assert.equal(csv.length, 9);
    for (const field of [
      'layer',
      'head',
      'kvHead',
      'rawLogitStd',
      'iidRawLogitStd',
      'saturatedFraction',
      'nonFinite.weights',
    ])
      assert.ok(csv[0].split(',').includes(field), `CSV column ${field}`);
    assert.match(csv[8], /^layers\.1\.,3,1,/);

    // A click: the head in full (its spread, weights, rows and precision table).
    await panel.locator('[data-layer="1"][data-head="3"]').click();
    await page.waitForFunction((sel) => document.querySelector(sel).dataset.reportDetail === 'done', PANEL);
    assert.match(await panel.locator('[data-report-detail-title]').textContent(), /head 3 \(key head 1\)/);
    // The detail read that head and its key head from the file: its spread shows their σ (a readout of
    // 4 significant digits, so within 5e-4 relative of the Node engine's).
    const shownStd = parseFloat(
      await panel.locator('[data-report-part="spread"] [data-stat="rawLogitStd"]').textContent(),
    );
    const nodeStd = expected((r) => r.rawLogitStd)[7].value;
    assert.ok(Math.abs(shownStd - nodeStd) <= 5e-4 * nodeStd, `detail σ ${shownStd} vs ${nodeStd}`);
    assert.equal(await panel.locator('[data-report-precision] td[data-nonfinite]').count(), 10);
    const fp16 = await panel
      .locator('[data-report-precision] td[data-precision="fp16"][data-subtract-max="true"]')
      .getAttribute('data-nonfinite');
    assert.equal(fp16, '0', 'with the max subtracted, fp16 stays finite');
    await panel.screenshot({ path: join(OUT, 'report-1280.png') });
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('what-if: no scaling recomputes every head, and saturates more than 1/√d_k', async () => {
    const { bytes } = modelFile({ layers: 2, heads: 2, seqLen: 128, dk: 64 });
    const { page, errors } = await open();
    await choose(page, [['m.safetensors', bytes]]);
    await waitState(page, 'done');
    const panel = page.locator(PANEL);
    await panel.locator('[data-report-stat]').selectOption('maxWeight');
    const scaled = await cellValues(page);
    await panel.locator('[data-report-whatif] [data-whatif-field="scale"]').selectOption('none');
    await waitState(page, 'running');
    await waitState(page, 'done');
    const unscaled = await cellValues(page);
    assert.equal(unscaled.length, 4);
    for (const [i, c] of unscaled.entries())
      assert.ok(c.value > scaled[i].value, `head ${i}: ${c.value} > ${scaled[i].value}`);
    // A number out of range is clamped and said.
    await panel.locator('[data-report-whatif] [data-whatif-field="softcap"]').fill('5000');
    await panel.locator('[data-report-whatif] [data-whatif-field="softcap"]').dispatchEvent('change');
    await waitState(page, 'done');
    assert.match(
      await panel.locator('[data-report-notes]').textContent(),
      /soft-cap c 5000 is outside 0…1000; set to 1000/,
    );
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('malformed files get an error naming the problem; the next good file is reported', async () => {
    const { page, errors } = await open();
    const panel = page.locator(PANEL);
    const q = gaussians(8 * 4, 1);
    const cases = [
      [
        [['junk.safetensors', Buffer.from('hello, this is not a tensor file')]],
        /junk\.safetensors: not a \.npy or \.safetensors file \(bad magic number\)/,
      ],
      [
        [
          [
            'long.safetensors',
            Buffer.concat([Buffer.from([0xff, 0xff, 0, 0, 0, 0, 0, 0]), Buffer.from('{}')]),
          ],
        ],
        /header length 65535 is longer than the file/,
      ],
      [
        [
          ['q.npy', npy([8, 4], q, { fortran: true })],
          ['k.npy', npy([8, 4], q)],
        ],
        /q\.npy: Fortran-order arrays are not supported/,
      ],
      [
        [
          ['q.npy', npy([8, 4], q, { descr: '<i4' })],
          ['k.npy', npy([8, 4], q)],
        ],
        /unsupported dtype '<i4'/,
      ],
      [
        [
          ['q.npy', npy([8, 4], q)],
          ['k.npy', npy([8, 5], gaussians(40, 2))],
        ],
        /different head dimensions d_k \(q: 4, k: 5\)/,
      ],
      [
        [
          ['q.npy', npy([8, 5], q)],
          ['k.npy', npy([8, 4], q)],
        ],
        /shape \(8, 5\) needs 160 bytes, the file has 128/,
      ],
      [
        [
          ['q.npy', npy([3, 8, 4], gaussians(96, 3))],
          ['k.npy', npy([2, 8, 4], gaussians(64, 4))],
        ],
        /3 heads, not a multiple of the 2 key heads/,
      ],
      [
        [
          ['q.npy', npy([4096, 1], gaussians(4096, 3))],
          ['k.npy', npy([4096, 1], gaussians(4096, 4))],
        ],
        /T = 4096 of 'q' is outside the engine's range 2…2048/,
      ],
    ];
    for (const [files, message] of cases) {
      await choose(page, files);
      await waitState(page, 'error');
      assert.match(await panel.locator('[data-report-error]').textContent(), message);
    }
    await choose(page, [
      ['q.npy', npy([8, 4], q)],
      ['k.npy', npy([8, 4], gaussians(32, 5))],
    ]);
    await waitState(page, 'done');
    assert.equal(await panel.locator('[data-report-error]').isHidden(), true);
    assert.equal(await panel.locator('[data-report-grid] [data-layer]').count(), 1);
    assert.equal(await page.locator('#app').getAttribute('data-state'), 'ready');
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('Cancel stops the Workers: no head is reported after it', async () => {
    const { bytes } = modelFile({ layers: 16, heads: 8, seqLen: 2048, dk: 8 });
    const { page, errors } = await open();
    const panel = page.locator(PANEL);
    await choose(page, [['big.safetensors', bytes]]);
    await page.waitForFunction(
      (sel) => Number(document.querySelector(sel).dataset.reportHeadsDone) >= 2,
      PANEL,
      { timeout: 60000 },
    );
    await panel.locator('[data-report-cancel]').click();
    assert.equal(await state(page), 'cancelled');
    const at = await panel.getAttribute('data-report-heads-done');
    await page.waitForTimeout(1500);
    assert.equal(await panel.getAttribute('data-report-heads-done'), at);
    assert.ok(Number(at) < 128, `cancelled at ${at} of 128`);
    assert.match(
      await panel.locator('.report-progress-text').textContent(),
      /Cancelled after \d+ of 128 heads/,
    );
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('the trained sample: the unscaled copy saturates, 1/√d_k and 1/d_k do not (360 px too)', async () => {
    for (const width of [1280, 360]) {
      const { page, errors } = await open({ phone: width === 360 });
      const panel = page.locator(PANEL);
      await panel.locator('[data-report-sample]').click();
      await waitState(page, 'done');
      await panel.locator('[data-report-stat]').selectOption('maxWeight');
      const layers = await page.$$eval(`${PANEL} [data-report-grid] tbody th`, (ths) =>
        ths.map((t) => t.textContent),
      );
      assert.deepEqual(layers, ['linear', 'none', 'sqrt'], 'layers in natural order of their names');
      const [linear, none, sqrt] = (await cellValues(page)).map((c) => c.value);
      // Each copy scaled as it was trained (the file's metadata): the unscaled one is the sharpest.
      assert.equal(
        await panel.locator('[data-report-whatif] [data-whatif-field="scale"]').inputValue(),
        'file',
      );
      assert.match(
        await panel.locator('[data-report-notes]').textContent(),
        /linear × 0\.015625, none × 1, sqrt × 0\.125/,
      );
      assert.ok(none > sqrt && sqrt > linear, `largest weight: none ${none}, sqrt ${sqrt}, linear ${linear}`);
      await panel.locator('[data-layer="1"][data-head="0"]').click();
      await page.waitForFunction((sel) => document.querySelector(sel).dataset.reportDetail === 'done', PANEL);
      const box = await panel.boundingBox();
      assert.ok(box.width <= width, `the panel fits ${width} px (${box.width})`);
      const scrollWidth = await page.evaluate(() => document.documentElement.scrollWidth);
      assert.ok(scrollWidth <= width, `no sideways scroll at ${width} px (${scrollWidth})`);
      await panel.screenshot({ path: join(OUT, `report-sample-${width}.png`) });
      assert.deepEqual(errors, []);
      await page.close();
    }
  });

  test('the component: <attn-scale-demo panel="report" src="…"> reports the file it fetches', async () => {
    const { page, errors } = await open();
    // The component's script as a host page loads it (a URL of the served site, not a module here).
    await page.evaluate(async (script) => {
      await import(script);
      const el = document.createElement('attn-scale-demo');
      el.id = 'own-report';
      el.setAttribute('panel', 'report');
      el.setAttribute('src', 'samples/trained-sample.safetensors');
      document.body.append(el);
    }, '/attn-scale-demo.js');
    await page.waitForFunction(
      () =>
        document.getElementById('own-report').shadowRoot?.querySelector('[data-panel="report"]')?.dataset
          .reportState === 'done',
      null,
      { timeout: 120000, polling: 100 },
    );
    const cells = await page.evaluate(
      () =>
        document.getElementById('own-report').shadowRoot.querySelectorAll('[data-report-grid] [data-layer]')
          .length,
    );
    assert.equal(cells, 3);
    const sampleHidden = await page.evaluate(
      () => document.getElementById('own-report').shadowRoot.querySelector('[data-report-sample]').hidden,
    );
    assert.equal(sampleHidden, true, 'the sample button is the page’s, not the component’s');
    assert.deepEqual(errors, []);
    await page.close();
  });
});
