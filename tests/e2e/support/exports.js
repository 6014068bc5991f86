// The GIF and SVG downloads of a chart panel, as the e2e tests click them: the file read back, the
// GIF parsed (support/gif-file.js), the SVG parsed by the page's DOMParser. `scope` is a Playwright
// page or locator that holds the panel (an <attn-scale-demo>'s shadow root is pierced by locators).
import assert from 'node:assert/strict';
import { parseGif, countControlBlocks, decodeFrame } from './gif-file.js';

export const GIF_FRAMES = 13; // d_k = 1, 2, 4, … 4096
export const GIF_MAX_BYTES = 2 * 1024 * 1024;

/** Clicks `button` and returns the download: { name, bytes }. */
export async function downloadOf(page, button) {
  const [download] = await Promise.all([page.waitForEvent('download', { timeout: 120000 }), button.click()]);
  const chunks = [];
  for await (const c of await download.createReadStream()) chunks.push(c);
  return { name: download.suggestedFilename(), bytes: new Uint8Array(Buffer.concat(chunks)) };
}

/** The panel's export button `label` (PNG, CSV, SVG, GIF). */
export const exportButton = (scope, panel, label) =>
  scope.locator(`[data-panel="${panel}"] .panel-actions button`, { hasText: new RegExp(`^${label}`) });

/**
 * Clicks the panel's GIF button and checks the file: GIF89a, 13 Graphic Control Extensions and
 * 13 images, the NETSCAPE2.0 loop (forever), at most 2 MB. → { gif, bytes, status }.
 */
export async function gifOf(page, scope, panel) {
  const { name, bytes } = await downloadOf(page, exportButton(scope, panel, 'GIF'));
  assert.equal(name, `attnscale-${panel}.gif`);
  assert.equal(String.fromCharCode(...bytes.subarray(0, 6)), 'GIF89a');
  assert.ok(bytes.length <= GIF_MAX_BYTES, `${panel}: ${bytes.length} bytes`);
  const gif = parseGif(bytes);
  assert.equal(countControlBlocks(bytes), GIF_FRAMES, `${panel}: Graphic Control Extensions`);
  assert.equal(gif.controls.length, GIF_FRAMES);
  assert.equal(gif.frames.length, GIF_FRAMES);
  assert.equal(gif.loops, 0, 'NETSCAPE2.0: loops forever');
  assert.ok(gif.trailer);
  const status = scope.locator(`[data-panel="${panel}"] [data-export-status]`);
  await status.filter({ hasText: /GIF saved/ }).waitFor({ timeout: 10000 });
  return { gif, bytes, status: await status.textContent() };
}

/** Pixels that differ between frames `a` and `b` below row `fromRow` (the d_k stamp is above it). */
export function framesDiffer(gif, a, b, fromRow = 30) {
  const [x, y] = [decodeFrame(gif.frames[a]), decodeFrame(gif.frames[b])];
  let n = 0;
  for (let p = fromRow * gif.width * 4; p < x.length; p += 4)
    if (Math.abs(x[p] - y[p]) + Math.abs(x[p + 1] - y[p + 1]) + Math.abs(x[p + 2] - y[p + 2]) > 30) n++;
  return n;
}

/** Pixels of frame `i` within 40 (summed over r, g, b) of the colour `hex`. */
export function pixelsOf(gif, i, hex) {
  const rgb = [1, 3, 5].map((k) => parseInt(hex.slice(k, k + 2), 16));
  const f = decodeFrame(gif.frames[i]);
  let n = 0;
  for (let p = 0; p < f.length; p += 4)
    if (Math.abs(f[p] - rgb[0]) + Math.abs(f[p + 1] - rgb[1]) + Math.abs(f[p + 2] - rgb[2]) <= 40) n++;
  return n;
}

/**
 * Clicks the panel's SVG button; the page's DOMParser reads the file → { name, bytes, root, shapes,
 * texts, classes: { 'tick-label': [...], 'axis-label': [...] }, images }.
 */
export async function svgOf(page, scope, panel) {
  const { name, bytes } = await downloadOf(page, exportButton(scope, panel, 'SVG'));
  const read = await page.evaluate((text) => {
    const doc = new DOMParser().parseFromString(text, 'image/svg+xml');
    const root = doc.documentElement;
    const texts = (sel) => [...doc.querySelectorAll(sel)].map((t) => t.textContent);
    return {
      root: root.localName,
      error: doc.querySelector('parsererror')?.textContent ?? null,
      width: Number(root.getAttribute('width')),
      shapes: doc.querySelectorAll('path, polyline, line, circle, rect').length,
      texts: texts('text'),
      tickLabels: texts('text.tick-label'),
      axisLabels: texts('text.axis-label'),
      legend: texts('.legend-item text'),
      title: doc.querySelector('text.title')?.textContent,
      images: doc.querySelectorAll('image').length,
    };
  }, new TextDecoder().decode(bytes));
  assert.equal(read.error, null);
  assert.equal(read.root, 'svg');
  return { name, bytes, ...read };
}
