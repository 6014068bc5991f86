// One headless Debian chromium for a whole test file (playwright-core, no browser download).
import { test as nodeTest } from 'node:test';
import { createRequire } from 'node:module';
import { chromium } from 'playwright-core';

// Every browser test has a limit of its own against a hang, and no suite limits the sum of its
// tests: on a loaded machine every test slows down, and a limit on the sum would then fail the
// file's last test for what all of them spent.
export const TEST_TIMEOUT = 300000;

/** node:test's test() with the browser tests' own limit (an explicit `timeout` option wins). */
export function test(name, options, fn) {
  if (typeof options === 'function') return nodeTest(name, { timeout: TEST_TIMEOUT }, options);
  return nodeTest(name, { timeout: TEST_TIMEOUT, ...options }, fn);
}

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
// WebUIOmniboxPopup*: headless Chromium 15x otherwise preloads the omnibox popup's WebUI renderer at
// launch, ~2 s of CPU on this 2-core machine while the first page loads (Puppeteer disables them
// by default since its PR #15278); a reader's browser has that done long before they open the page.
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-features=WebUIOmniboxPopup,WebUIOmniboxAimPopup',
];

/**
 * launchBrowser() → { browser, newPage(opts), close() }. One browser process; every page gets its
 * own fresh context (no cookies, storage, permissions or download state shared between tests).
 */
export async function launchBrowser({ args = [] } = {}) {
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [...CHROMIUM_ARGS, ...args],
  });
  return {
    browser,
    async newPage({
      width = 1280,
      height = 900,
      colorScheme = 'light',
      reducedMotion = 'no-preference',
      phone = false,
    } = {}) {
      // phone: a 360 × 760 touch screen (isMobile: the mobile viewport and a coarse pointer).
      const context = await browser.newContext({
        viewport: phone ? { width: 360, height: 760 } : { width, height },
        ...(phone && { isMobile: true, hasTouch: true, deviceScaleFactor: 2 }),
        colorScheme,
        reducedMotion,
        acceptDownloads: true,
      });
      const page = await context.newPage();
      page.once('close', () => {
        context.close().catch(() => {});
      });
      return page;
    },
    async close() {
      await browser.close();
    },
  };
}

/** Collect console errors and page errors of a page. */
export function watchErrors(page) {
  const errors = [];
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(`console: ${m.text()}`);
  });
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  return errors;
}

/** Chapter 8's panels that measure after the page's setting (fixed studies, the thresholds table). */
export const CHAPTER8_PANELS = ['schemes', 'length', 'thresholds'];

/** In the page (self-contained): true once panel `name` has started measuring (its status no longer says it waits to be seen). */
export const panelStarted = (name) =>
  !/^Measured when/.test(document.querySelector(`[data-panel="${name}"] .panel-status`)?.textContent ?? '');

/**
 * In the page (self-contained): true once panel `name` is built (the page builds a panel when the
 * reader comes near it; until then its element is empty) and has started measuring.
 */
export const panelReached = (name) => {
  const el = document.querySelector(`[data-panel="${name}"]`);
  return (
    !!el &&
    el.childElementCount > 0 &&
    !/^Measured when/.test(el.querySelector('.panel-status')?.textContent ?? '')
  );
};

/** In the page (self-contained): the names of its panels, in the page's order; `unfolded`: only those outside a closed fold. */
export const panelNames = (unfolded = false) =>
  [...document.querySelectorAll('[data-panel]')]
    .filter((el) => !unfolded || !el.closest('details:not([open])'))
    .map((el) => el.dataset.panel);

/** In the page (self-contained): opens the folded topics that hold `sel` (or every one), as a reader's click would. */
export const openFolds = (sel = null) => {
  const els = sel ? [...document.querySelectorAll(sel)] : [...document.querySelectorAll('details.topic')];
  for (const el of els)
    for (let d = el.closest('details:not([open])'); d; d = d.parentElement?.closest('details:not([open])'))
      d.open = true;
};

/**
 * Scrolls each named panel into view (opening its folded topic first), as a reader scrolling
 * through would, and keeps it there until it is built and has started measuring
 * (IntersectionObserver reports after a frame, and a frame can take long on a loaded machine),
 * then scrolls back to the top.
 */
export async function scrollPanelsIntoView(page, names, { timeout = 60000 } = {}) {
  for (const name of names) {
    const panel = page.locator(`[data-panel="${name}"]`).first();
    if (!(await panel.count())) continue;
    await page.evaluate(openFolds, `[data-panel="${name}"]`);
    await panel.scrollIntoViewIfNeeded();
    await page.waitForFunction(panelReached, name, { timeout, polling: 100 });
  }
  await page.evaluate(() => window.scrollTo(0, 0));
}

/**
 * Wait until the app has drawn a result and every panel outside a folded topic is built (the
 * reader brought near each in turn: the page builds a panel only then; a folded one is built
 * when its topic opens), and with `sweeps` until every sweep/variant job has finished; with
 * `chapter8`, every panel of the page, each folded topic opened (chapter 8's panels measure
 * fixed studies once built, so tests that do not look at them do not build them).
 */
export async function waitForApp(page, { sweeps = true, chapter8 = false, timeout = 60000 } = {}) {
  await page.waitForFunction(() => document.getElementById('app')?.dataset.state === 'ready', null, {
    timeout,
  });
  const names = chapter8
    ? await page.evaluate(panelNames)
    : (await page.evaluate(panelNames, true)).filter((n) => !CHAPTER8_PANELS.includes(n));
  await scrollPanelsIntoView(page, names, { timeout });
  if (sweeps) await waitForSettled(page, { skip: chapter8 ? [] : CHAPTER8_PANELS, timeout });
}

/**
 * Wait until no panel under `root` (a selector; `within`: the host whose shadow root holds it) has
 * work pending: no is-stale class and an empty status line. Panels named in `skip` are not awaited.
 */
export function waitForSettled(
  page,
  { root = null, within = null, skip = CHAPTER8_PANELS, timeout = 60000 } = {},
) {
  return page.waitForFunction(
    ([sel, host, names]) => {
      const scope = host ? document.querySelector(host).shadowRoot : document;
      const base = sel ? scope.querySelector(sel) : scope;
      return [...base.querySelectorAll('[data-panel]')].every(
        (p) =>
          names.includes(p.dataset.panel) ||
          (!p.classList.contains('is-stale') && !p.querySelector('.panel-status')?.textContent),
      );
    },
    [root, within, skip],
    { timeout, polling: 200 },
  );
}

export const stat = (page, name) => page.locator(`[data-stat="${name}"]`).first().textContent();

/** Wait until every <attn-scale-demo> on the page is ready and each of its panels has drawn. */
export async function waitForDemos(page, { timeout = 60000 } = {}) {
  await page.waitForFunction(
    () => {
      const els = [...document.querySelectorAll('attn-scale-demo')];
      return (
        els.length > 0 &&
        els.every((el) => {
          const panels = [...(el.shadowRoot?.querySelectorAll('[data-panel]') ?? [])];
          return (
            el.shadowRoot?.querySelector('.as-root')?.dataset.state === 'ready' &&
            panels.length > 0 &&
            panels.every((p) => p.dataset.drawn === 'true')
          );
        })
      );
    },
    null,
    { timeout, polling: 100 },
  );
}

const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

/** axe-core over the page: its serious and critical violations, one line each (none: []). */
export async function axeAudit(page) {
  await page.addScriptTag({ path: AXE });
  return page.evaluate(async () => {
    const r = await window.axe.run(document, { resultTypes: ['violations'] });
    return r.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map(
        (v) =>
          `${v.id} (${v.impact}): ${v.nodes
            .slice(0, 3)
            .map((n) => JSON.stringify(n.target))
            .join(' | ')}`,
      );
  });
}

/** Distinct colours in the first canvas under `locator` (real pixels, not a blank canvas). */
export const canvasColours = (locator) =>
  locator
    .locator('canvas')
    .first()
    .evaluate((c) => {
      const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
      const seen = new Set();
      for (let i = 0; i < d.length; i += 4 * 7) seen.add((d[i] << 16) | (d[i + 1] << 8) | d[i + 2]);
      return seen.size;
    });
