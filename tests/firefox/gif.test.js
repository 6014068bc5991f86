// Firefox ESR (Debian firefox-esr over WebDriver BiDi, puppeteer-core): the GIF button of the
// logit spread, against dist/. WebDriver BiDi has no download events here: the page's
// URL.createObjectURL is wrapped before its scripts run, so the GIF's Blob is read back from the
// page. The file: GIF89a, 13 Graphic Control Extensions and images, the NETSCAPE2.0 loop, at most
// 2 MB, encoded in a Worker, its frames different.
import { before, after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { startServer, repoRoot } from '../e2e/support/serve-dist.js';
import { parseGif, countControlBlocks } from '../e2e/support/gif-file.js';
import { framesDiffer, GIF_FRAMES, GIF_MAX_BYTES } from '../e2e/support/exports.js';
import { launchFirefox } from './driver.js';

const DIST = process.env.ATTNSCALE_DIST || join(repoRoot, 'dist');
// Every Blob the page turns into a URL (the downloads), kept for the test to read.
const KEEP_BLOBS = `(() => {
  window.__blobs = [];
  const make = URL.createObjectURL;
  URL.createObjectURL = function (b) {
    if (b instanceof Blob) window.__blobs.push(b);
    return make.call(URL, b);
  };
})();`;

let server, driver;
before(async () => {
  server = await startServer({ root: DIST });
  driver = await launchFirefox();
  await driver.page.evaluateOnNewDocument(KEEP_BLOBS);
});
after(async () => {
  await driver?.close();
  await server?.close();
});

describe('Firefox: the GIF download', () => {
  test(
    'GIF of the logit spread: 13 frames, looping, ≤ 2 MB, from a Worker',
    { timeout: 300000 },
    async () => {
      await driver.goto(`${server.url}?seqLen=128`);
      await driver.waitFor(() => document.getElementById('app')?.dataset.state === 'ready', [], {
        timeout: 120000,
      });
      await driver.waitFor(() => document.querySelector('[data-panel="spread"]')?.dataset.drawn === 'true');
      await driver.evaluate(() =>
        [...document.querySelectorAll('[data-panel="spread"] .panel-actions button')]
          .find((b) => b.textContent === 'GIF')
          .click(),
      );
      const status = await driver.waitFor(
        () => {
          const t = document.querySelector('[data-panel="spread"] [data-export-status]')?.textContent ?? '';
          return /GIF saved|could not/.test(t) && t;
        },
        [],
        { timeout: 120000 },
      );
      assert.match(status, /^GIF saved: 13 frames/);
      const base64 = await driver.evaluate(async () => {
        const blob = window.__blobs.findLast((b) => b.type === 'image/gif');
        const bytes = new Uint8Array(await blob.arrayBuffer());
        let s = '';
        for (let i = 0; i < bytes.length; i += 0x8000)
          s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
        return btoa(s);
      });
      const bytes = new Uint8Array(Buffer.from(base64, 'base64'));
      assert.equal(String.fromCharCode(...bytes.subarray(0, 6)), 'GIF89a');
      assert.ok(bytes.length <= GIF_MAX_BYTES, `${bytes.length} bytes`);
      assert.equal(countControlBlocks(bytes), GIF_FRAMES);
      const gif = parseGif(bytes);
      assert.equal(gif.frames.length, GIF_FRAMES);
      assert.equal(gif.loops, 0);
      assert.ok(framesDiffer(gif, 0, 12) > 500, 'the frames differ');
      assert.deepEqual(driver.errors, []);
    },
  );
});
