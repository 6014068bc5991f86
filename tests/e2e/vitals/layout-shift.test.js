// Nothing moves while the page loads: the layout shifts (a buffered PerformanceObserver of
// `layout-shift` entries, those without recent input summed, as Cumulative Layout Shift counts
// them) of the page, embed.html with two charts, and an author's post with the Embed dialog's
// component snippet and with its iframe snippet, at a phone's width (360 px) and a desktop's
// (1280 px). Each is read once everything the load computes is drawn. A layout property, not a
// timing: the boxes must have their final size before their data arrives, however late it comes.
import { describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer, repoRoot } from '../support/serve-dist.js';
import {
  launchBrowser,
  watchErrors,
  waitForApp,
  waitForSettled,
  waitForDemos,
  test,
} from '../support/browser.js';
import { writePosts, POST_PANELS } from '../../../build-scripts/lib/vitals/posts.mjs';

/** Largest cumulative shift allowed in each place (Lighthouse's "good" is 0.1). */
const MAX_CLS = 0.02;
const DIST = process.env.ATTNSCALE_DIST || join(repoRoot, 'dist');

/** Installed before the page's own scripts: every shift with its moved nodes, for the message. */
function recordShifts() {
  window.__shifts = [];
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      if (e.hadRecentInput) continue;
      window.__shifts.push({
        value: e.value,
        at: Math.round(e.startTime),
        sources: (e.sources ?? []).map((s) => {
          const n = s.node;
          const name = n
            ? `${n.nodeName.toLowerCase()}${n.id ? `#${n.id}` : ''}${n.className && typeof n.className === 'string' ? `.${n.className.split(' ').join('.')}` : ''}`
            : '?';
          return `${name} ${Math.round(s.previousRect.y)}→${Math.round(s.currentRect.y)} (h ${Math.round(s.previousRect.height)}→${Math.round(s.currentRect.height)})`;
        }),
      });
    }
  }).observe({ type: 'layout-shift', buffered: true });
}

const s = { dist: null, host: null, browser: null, tmp: null };
before(async () => {
  s.tmp = await mkdtemp(join(tmpdir(), 'attnscale-shift-'));
  // The demo as a CDN serves it (CORS), the author's blog on an origin of its own.
  s.dist = await startServer({ root: DIST, headers: { 'access-control-allow-origin': '*' } });
  s.host = await startServer({ root: s.tmp });
  await writePosts(s.tmp, s.dist.url);
  s.browser = await launchBrowser();
});
after(async () => {
  await s.browser?.close();
  await Promise.all([s.dist?.close(), s.host?.close()]);
  if (s.tmp) await rm(s.tmp, { recursive: true, force: true });
});

/** Two frames after the last draw: a shift caused by it has been recorded. */
const afterFrames = (page) =>
  page.evaluate(
    () =>
      new Promise((r) => {
        requestAnimationFrame(() => requestAnimationFrame(r));
      }),
  );

const PLACES = {
  page: {
    url: () => `${s.dist.url}index.html`,
    ready: (page) => waitForApp(page),
  },
  embed: {
    url: () => `${s.dist.url}embed.html?panel=${POST_PANELS.join(',')}`,
    ready: (page) => waitForApp(page),
  },
  component: {
    url: () => `${s.host.url}component.html`,
    ready: async (page) => {
      await waitForDemos(page);
      await waitForSettled(page, { within: 'attn-scale-demo' });
    },
  },
  iframe: {
    url: () => `${s.host.url}iframe.html`,
    ready: async (page) => {
      const frame = await (await page.waitForSelector('iframe')).contentFrame();
      await waitForApp(frame);
      // the frame has the height of its content, as its last message said
      await page.waitForFunction(
        () => {
          const f = document.querySelector('iframe');
          const inner = f.contentDocument?.documentElement.scrollHeight;
          return f.style.height !== '' || Math.abs(f.clientHeight - (inner ?? 0)) <= 1;
        },
        null,
        { timeout: 60000, polling: 100 },
      );
    },
  },
};

describe('layout shift while loading', () => {
  for (const width of [360, 1280])
    for (const [place, { url, ready }] of Object.entries(PLACES))
      test(`${place} at ${width} px: cumulative layout shift ≤ ${MAX_CLS}`, async (t) => {
        const page = await s.browser.newPage(width === 360 ? { phone: true } : { width, height: 900 });
        const errors = watchErrors(page);
        await page.addInitScript(recordShifts);
        await page.goto(url());
        await ready(page);
        await afterFrames(page);
        const shifts = await page.evaluate(() => window.__shifts);
        const cls = shifts.reduce((a, e) => a + e.value, 0);
        t.diagnostic(`cumulative layout shift ${cls.toFixed(4)} (${shifts.length} shifts)`);
        assert.ok(
          cls <= MAX_CLS,
          `${place} at ${width} px shifted by ${cls.toFixed(4)}:\n${shifts
            .map((e) => `  ${e.value.toFixed(4)} at ${e.at} ms: ${e.sources.join('; ')}`)
            .join('\n')}`,
        );
        assert.deepEqual(errors, []);
        await page.close();
      });
});
