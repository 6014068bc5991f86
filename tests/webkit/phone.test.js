// WebKitGTK (Safari's engine) at a phone's window size: beside every chart of the setting the dock's
// d_k slider is on screen, uncovered, and a finger drags it (W3C WebDriver touch actions). The
// narrowest window MiniBrowser opens is wider than a phone (its toolbar sets the minimum); the test
// asks for 360 × 760 and checks that the view is narrow enough for the dock.
import { before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import { access, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { startServer, repoRoot } from '../e2e/support/serve-dist.js';
import { waitSettled, OUT } from '../e2e/support/smoke-suite.js';
import { test } from '../e2e/support/browser.js';
import { launchWebKit } from './driver.js';

const DIST = join(repoRoot, 'dist');
const SETTING_CHARTS = ['spread', 'sigma', 'entropy', 'heatmap', 'gradients', 'precision'];
const DOCK_WIDTH = 900; // web/src/styles/page.css: the dock replaces the settings column up to here

// --- functions that run in the page (self-contained: they are sent as source) ---

/**
 * Scrolls chart `name` to the top of the view; where the dock's slider is once it stays put for two
 * frames, and whether it is the element under its own centre.
 */
const sliderBeside = async (name) => {
  // Instant: the page scrolls smoothly unless the reader asks for reduced motion.
  document.querySelector(`[data-panel="${name}"]`).scrollIntoView({ block: 'start', behavior: 'instant' });
  const el = document.querySelector('[data-dock] input[name="dk"]');
  const frames = () =>
    new Promise((resolve) => {
      requestAnimationFrame(() => requestAnimationFrame(resolve));
    });
  let r = el.getBoundingClientRect();
  for (;;) {
    await frames();
    const now = el.getBoundingClientRect();
    if (now.x === r.x && now.y === r.y && now.width === r.width) break;
    r = now;
  }
  const panel = document.querySelector(`[data-panel="${name}"]`).getBoundingClientRect();
  const cx = r.x + r.width / 2;
  const cy = r.y + r.height / 2;
  return {
    x: r.x,
    y: cy,
    width: r.width,
    value: Number(el.value),
    max: Number(el.max),
    onScreen: r.top >= 0 && r.bottom <= innerHeight,
    uncovered: document.elementFromPoint(cx, cy) === el,
    belowPanelTop: r.top > panel.top + 200,
  };
};

describe('webkit on a phone', () => {
  let site, driver;

  before(async () => {
    await access(join(DIST, 'index.html')).catch(() => {
      throw new Error('dist/ is missing: run `npm run build` first');
    });
    await mkdir(OUT, { recursive: true });
    site = await startServer({ root: DIST });
    driver = await launchWebKit({ width: 360, height: 760 });
  });

  after(async () => {
    await driver?.close();
    await site?.close();
  });

  test('beside every chart of the setting the dock slider is on screen and a finger drags it', async () => {
    await driver.goto(`${site.url}?dk=64`);
    await waitSettled(driver);
    const width = await driver.evaluate(() => innerWidth);
    assert.ok(width <= DOCK_WIDTH, `the view is ${width} px wide, narrow enough for the dock`);
    for (const name of SETTING_CHARTS) {
      const s = await driver.evaluate(sliderBeside, name);
      assert.ok(s.onScreen && s.uncovered && s.belowPanelTop, `${name}: ${JSON.stringify(s)}`);
      const before = await driver.evaluate(
        (n) => document.querySelector(`[data-panel="${n}"]`).innerText,
        name,
      );
      // Two stops along, or back where there is no room: a drag, further than a touch's slop.
      const to = s.value + 2 <= s.max ? s.value + 2 : s.value - 2;
      const thumb = 16; // the thumb's width: its centre runs from thumb/2 to width − thumb/2
      const at = (i) => Math.round(s.x + thumb / 2 + ((s.width - thumb) * i) / s.max);
      const y = Math.round(s.y);
      await driver.perform([
        {
          type: 'pointer',
          id: 'finger',
          parameters: { pointerType: 'touch' },
          actions: [
            { type: 'pointerMove', x: at(s.value), y, origin: 'viewport' },
            { type: 'pointerDown', button: 0 },
            { type: 'pointerMove', x: at(to), y, origin: 'viewport', duration: 300 },
            { type: 'pointerUp', button: 0 },
          ],
        },
      ]);
      const moved = await driver.evaluate(() =>
        Number(document.querySelector('[data-dock] input[name="dk"]').value),
      );
      assert.equal(moved, to, `${name}: the finger moved the thumb from stop ${s.value} to ${to}`);
      await driver.waitFor(
        (n, b) => {
          // The dock's value names its field: "d_k = 128".
          const dk = document.querySelector('[data-dock] output').textContent.replace('d_k =', '').trim();
          const query = document.getElementById('app').dataset.resultQuery ?? '';
          return (
            new RegExp(`(^|&)dk=${dk}(&|$)`).test(query) &&
            document.querySelector(`[data-panel="${n}"]`).innerText !== b
          );
        },
        [name, before],
        { message: `${name} redrawn for the dragged d_k` },
      );
    }
    await driver.screenshot(join(OUT, 'webkit-phone-dock.png'));
  });
});
