// The charts' GIF and SVG downloads on the page, in headless Debian chromium against dist/:
//  - GIF of the logit spread: 13 frames (d_k = 1 … 4096) in a Worker, looping, at most 2 MB, the
//    frames different (real runs), the progress on the button and in its status line;
//  - GIF of the σ sweep chart: the measured points appear d_k by d_k (few of the unscaled curve's
//    pixels in the first frame, many in the last);
//  - SVG of the σ chart and of the spread: shapes and <text> (title, axis labels, tick labels,
//    legend), the heatmap's cells as one image;
//  - which panels have a GIF button (the charts that change with d_k);
//  - with no Worker at all, the GIF is encoded on the page's thread and the status line says so.
import { describe } from 'node:test';
import assert from 'node:assert/strict';
import { watchErrors, waitForApp, scrollPanelsIntoView, test } from '../support/browser.js';
import { useSite } from '../support/site.js';
import { exportButton, gifOf, svgOf, framesDiffer, pixelsOf } from '../support/exports.js';
import { PANELS } from '../../../web/src/panels/index.js';

const site = useSite();
const NONE_COLOR = '#c2410c'; // --c-none in the light theme (panels.css)
const NO_WORKER = () => {
  globalThis.Worker = class Worker {
    constructor() {
      throw new DOMException('Workers are disabled by policy', 'SecurityError');
    }
  };
};

async function open(query = '', init = null) {
  const page = await site.browser.newPage({ reducedMotion: 'reduce' });
  if (init) await page.addInitScript(init);
  const errors = watchErrors(page);
  await page.goto(`${site.server.url}?${query}`);
  await waitForApp(page);
  return { page, errors };
}

describe('GIF and SVG downloads', () => {
  test('GIF of the logit spread: 13 real frames in a Worker, looping, ≤ 2 MB, with progress', async () => {
    const { page, errors } = await open('seqLen=256');
    const button = exportButton(page, 'spread', 'GIF');
    const seen = new Set();
    // The button counts the frames while the Worker encodes them.
    const watch = page.evaluate(
      () =>
        new Promise((resolve) => {
          const b = [...document.querySelectorAll('[data-panel="spread"] .panel-actions button')].find(
            (x) => x.textContent === 'GIF',
          );
          const texts = [];
          new MutationObserver(() => {
            texts.push(b.textContent);
            if (b.textContent === 'GIF') resolve(texts);
          }).observe(b, { childList: true, characterData: true, subtree: true });
        }),
    );
    const { gif, status } = await gifOf(page, page, 'spread');
    for (const t of await watch) seen.add(t);
    assert.ok(
      [...seen].some((t) => /^GIF \d+\/13$/.test(t)),
      `button texts: ${[...seen]}`,
    );
    assert.equal(await button.textContent(), 'GIF');
    assert.equal(
      await page.locator('[data-panel="spread"] [data-export-status]').getAttribute('role'),
      'status',
    );
    assert.match(status, /^GIF saved: 13 frames, d_k = 1 to 4096/);
    assert.doesNotMatch(status, /No Worker/);
    assert.deepEqual(
      gif.controls.map((c) => c.delay),
      [...Array(12).fill(700), 2000],
    );
    // Every frame is a run of its own: the histograms differ, not only the printed d_k.
    for (const [a, b] of [
      [0, 6],
      [6, 12],
      [5, 6],
    ])
      assert.ok(framesDiffer(gif, a, b) > 500, `frames ${a} and ${b} differ`);
    // The copy drawn off screen is gone; the reader's chart did not change.
    assert.equal(await page.locator('[data-panel="spread"]').count(), 1);
    assert.match(await page.locator('#app').getAttribute('data-result-query'), /(^|&)dk=64(&|$)/);
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('GIF of the σ sweep: the measured points appear d_k by d_k', async () => {
    const { page, errors } = await open('seqLen=256&scale=none');
    const { gif } = await gifOf(page, page, 'sigma');
    const first = pixelsOf(gif, 0, NONE_COLOR);
    const middle = pixelsOf(gif, 6, NONE_COLOR);
    const last = pixelsOf(gif, 12, NONE_COLOR);
    assert.ok(first < middle && middle < last, `unscaled curve's pixels: ${first}, ${middle}, ${last}`);
    assert.ok(last > 4 * first, `${first} → ${last}`);
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('SVG: shapes and text of the σ chart, the spread and the heatmap', async () => {
    const { page, errors } = await open('seqLen=256');
    const sigma = await svgOf(page, page, 'sigma');
    assert.equal(sigma.name, 'attnscale-sigma.svg');
    assert.equal(sigma.title, 'σ of the logits vs d_k');
    assert.ok(sigma.shapes >= 20, `shapes ${sigma.shapes}`);
    assert.deepEqual(sigma.axisLabels, ['d_k', 'σ of logits']);
    // (Half the content's width beside the spread: every other power of two is labelled.)
    for (const t of ['1', '4', '64', '1k', '4k', '0.1', '10'])
      assert.ok(sigma.tickLabels.includes(t), `tick ${t}`);
    for (const t of ['measured, none', 'measured, 1/√d_k', 'measured, 1/d_k', 'theory (each scaling)'])
      assert.ok(sigma.legend.includes(t), `legend ${t}`);
    assert.ok(sigma.texts.includes('d_k = 64'), 'the current-setting marker is text too');
    assert.equal(sigma.images, 0);

    const spread = await svgOf(page, page, 'spread');
    assert.deepEqual(spread.axisLabels, ['logit value', 'density']);
    assert.ok(spread.tickLabels.length >= 8);
    assert.ok(spread.legend.includes('raw logits q·k'));

    const heatmap = await svgOf(page, page, 'heatmap');
    // The page's heatmap stands beside its contrast: two compact squares (the panel's description
    // names the axes), then the colour scale.
    assert.deepEqual(heatmap.axisLabels, []);
    assert.equal(heatmap.images, 3, 'the cells, the other scale’s cells and the colour scale');
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('a GIF button on the charts that change with d_k, an SVG button on every chart with a PNG one', async () => {
    const { page } = await open();
    await scrollPanelsIntoView(page, ['training', 'schemes', 'length']); // built once the reader comes near
    const panels = await page.$$eval('[data-panel]', (els) =>
      els.map((p) => {
        const actions = p.querySelector('.panel-actions');
        const labels = [...(actions?.querySelectorAll('button') ?? [])].map((b) => b.textContent);
        // Nothing but the buttons and the export status in the header's actions (no stray text).
        const stray = [...(actions?.childNodes ?? [])].filter((n) => n.nodeType === Node.TEXT_NODE);
        return [p.dataset.panel, stray.length ? `stray text: ${stray.map((n) => n.data)}` : labels.join(' ')];
      }),
    );
    const byName = Object.fromEntries(panels);
    const withGif = ['spread', 'sigma', 'entropy', 'gradients', 'heatmap', 'precision'];
    // The meta table says the same (the Embed dialog's Markdown route reads it).
    assert.deepEqual(
      Object.values(PANELS)
        .filter((p) => p.meta.gif)
        .map((p) => p.meta.name),
      withGif,
    );
    for (const name of withGif) assert.equal(byName[name], 'PNG CSV SVG GIF', name);
    for (const name of ['training', 'schemes', 'length']) assert.equal(byName[name], 'PNG CSV SVG', name);
    await page.close();
  });

  test('no Worker: the GIF is encoded on the page’s thread, and the status line says so', async () => {
    const { page, errors } = await open('seqLen=64', NO_WORKER);
    const { gif, status } = await gifOf(page, page, 'heatmap');
    assert.match(
      status,
      /No Worker could start here \(Workers are disabled by policy\): encoding on the page’s thread/,
    );
    assert.ok(framesDiffer(gif, 0, 12) > 500);
    assert.deepEqual(errors, []);
    await page.close();
  });
});
