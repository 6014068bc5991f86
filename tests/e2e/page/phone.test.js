// The page on a 360 × 760 touch screen: beside every chart of the setting the dock's d_k slider is
// on screen and works by touch, the settings open as a sheet and close back into their place,
// the dock folds and remembers it, and the first screen reaches the first chart. Also the narrow
// embed and component, whose dock replaces their settings column.
import { describe } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { watchErrors, waitForApp, waitForDemos, waitForSettled, axeAudit, test } from '../support/browser.js';
import { useSite, OUT } from '../support/site.js';

const site = useSite();
const SETTING_CHARTS = ['spread', 'sigma', 'entropy', 'heatmap', 'gradients', 'precision'];
const DOCK_DK = '[data-dock] input[type="range"][name="dk"]';

async function openPhone(path = '', opts = {}) {
  const page = await site.browser.newPage({ phone: true, reducedMotion: 'reduce', ...opts });
  const errors = watchErrors(page);
  await page.goto(`${site.server.url}${path}`);
  return { page, errors };
}

/** A finger on `from`, moved in steps to `to`, lifted (CDP touch events: real touch input). */
async function touchDrag(page, from, to, steps = 6) {
  const cdp = await page.context().newCDPSession(page);
  const at = (t) => [{ x: from.x + (to.x - from.x) * t, y: from.y + (to.y - from.y) * t }];
  await cdp.send('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: at(0) });
  for (let i = 1; i <= steps; i++)
    await cdp.send('Input.dispatchTouchEvent', { type: 'touchMove', touchPoints: at(i / steps) });
  await cdp.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] });
  await cdp.detach();
}

/**
 * The slider's box once it stays put for two frames (a panel that finishes drawing can still move
 * a sticky dock), and its number of stops. A finger aimed at a box read before a layout change
 * lands beside the thumb.
 */
const steadyBox = (slider) =>
  slider.evaluate(async (el) => {
    const frame = () =>
      new Promise((r) => {
        requestAnimationFrame(() => requestAnimationFrame(r));
      });
    const read = () => {
      const r = el.getBoundingClientRect();
      return { x: r.x, y: r.y, w: r.width, h: r.height };
    };
    let last = read();
    for (;;) {
      await frame();
      const now = read();
      if (JSON.stringify(now) === JSON.stringify(last)) return { box: now, n: Number(el.max) };
      last = now;
    }
  });

/** Notes where the next touch comes down and where the slider's box is at that moment (`el.touchAim`). */
const watchTouchStart = (slider) =>
  slider.evaluate((el) => {
    el.touchAim = null;
    const note = (e) => {
      const r = el.getBoundingClientRect();
      const t = e.touches[0];
      el.touchAim = { x: t.clientX, y: t.clientY, box: { x: r.x, y: r.y, w: r.width, h: r.height } };
    };
    document.addEventListener('touchstart', note, { capture: true, once: true, passive: true });
  });

/** Where on the slider (page coordinates) the thumb sits at stop `i` of its `n` stops. */
function stopPoint({ box, n }, i) {
  const thumb = 16; // the thumb's width: its centre runs from thumb/2 to w − thumb/2
  return { x: box.x + thumb / 2 + ((box.w - thumb) * i) / n, y: box.y + box.h / 2 };
}

/**
 * A finger on the slider: a drag over three stops (further than a touch's slop, so it is a drag,
 * not a tap), or with `tap`, a tap on the next stop. The new d_k, once its result is on screen.
 * It aims once nothing is pending and the box stays put; if the thumb did not move and the finger
 * came down outside the box as it was at that moment, it aims again (twice at most).
 */
async function moveWithFinger(page, slider, { root = '#app', within = null, tap = false } = {}) {
  const from = Number(await slider.inputValue());
  const span = tap ? 1 : 3;
  const to = from + span <= Number(await slider.getAttribute('max')) ? from + span : from - span;
  for (let attempt = 1; ; attempt++) {
    // A sweep that finishes clears its status line, which can move a sticky dock after the aim.
    await waitForSettled(page, { root, within });
    const steady = await steadyBox(slider);
    const target = stopPoint(steady, to);
    await watchTouchStart(slider);
    if (tap) await page.touchscreen.tap(target.x, target.y);
    else await touchDrag(page, stopPoint(steady, from), target);
    const value = Number(await slider.inputValue());
    if (value === to) break;
    // Aim again only when the finger came down beside a box that had moved since it was read.
    const aim = await slider.evaluate((el) => el.touchAim);
    const missed =
      aim &&
      (aim.x < aim.box.x ||
        aim.x > aim.box.x + aim.box.w ||
        aim.y < aim.box.y ||
        aim.y > aim.box.y + aim.box.h);
    assert.ok(
      value === from && missed && attempt < 3,
      `the finger moved the thumb from ${from} to ${to}, not ${value} (touch ${JSON.stringify(aim)})`,
    );
  }
  const dk = Number(
    (await slider.evaluate((el) => el.closest('[data-dock]').querySelector('output').textContent)).replace(
      'd_k = ',
      '',
    ),
  );
  await page.waitForFunction(
    ([sel, host, want]) => {
      const scope = host ? document.querySelector(host).shadowRoot : document;
      return new RegExp(`(^|&)dk=${want}(&|$)`).test(scope.querySelector(sel)?.dataset.resultQuery ?? '');
    },
    [root, within, dk],
  );
  return dk;
}

describe('on a phone', () => {
  test('beside every chart of the setting the d_k slider is on screen and a finger moves it', async () => {
    const { page, errors } = await openPhone('?dk=64');
    await waitForApp(page);
    const slider = page.locator(DOCK_DK);
    for (const name of SETTING_CHARTS) {
      const panel = page.locator(`[data-panel="${name}"]`);
      await panel.evaluate((el) => el.scrollIntoView({ block: 'start' }));
      const seen = await page.evaluate(
        ([p, s]) => {
          const panelBox = document.querySelector(p).getBoundingClientRect();
          const dock = document.querySelector('[data-dock]').getBoundingClientRect();
          const knob = document.querySelector(s).getBoundingClientRect();
          return { panelTop: panelBox.top, dockTop: dock.top, knobBottom: knob.bottom, vh: innerHeight };
        },
        [`[data-panel="${name}"]`, DOCK_DK],
      );
      assert.ok(
        seen.knobBottom <= seen.vh && seen.dockTop > seen.panelTop + 200,
        `${name}: ${JSON.stringify(seen)}`,
      );
      assert.ok(await slider.isVisible(), `${name}: the dock's slider is visible`);
      const before = await panel.innerText();
      const dk = await moveWithFinger(page, slider, { tap: name === 'heatmap' });
      await page.waitForFunction(
        ([p, b]) => document.querySelector(p).innerText !== b,
        [`[data-panel="${name}"]`, before],
      );
      assert.match(await page.evaluate(() => location.search), new RegExp(`[?&]dk=${dk}(&|$)`));
    }
    // A readout scrolled to the end of the view ends above the dock (the page's scroll padding).
    const readout = page.locator('[data-panel="sigma"] .readout').first();
    await readout.evaluate((el) => el.scrollIntoView({ block: 'end' }));
    const gap = await page.evaluate(
      () =>
        document.querySelector('[data-dock]').getBoundingClientRect().top -
        document.querySelector('[data-panel="sigma"] .readout').getBoundingClientRect().bottom,
    );
    assert.ok(gap >= 0, `the readout ends ${-gap} px under the dock`);
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('a tap on a chart shows the values under the finger; a drag across it scrolls the page', async () => {
    const { page, errors } = await openPhone('?dk=64');
    await waitForApp(page);
    const chart = page.locator('[data-panel="sigma"] .chart').first();
    await chart.evaluate((el) => el.scrollIntoView({ block: 'center', behavior: 'instant' }));
    const box = await chart.locator('.u-over').boundingBox();
    const probe = chart.locator('[data-probe]');
    assert.equal(await probe.isVisible(), false, 'no readout before a finger');
    await page.touchscreen.tap(box.x + box.width * 0.6, box.y + box.height * 0.5);
    await probe.waitFor({ state: 'visible' });
    // d_k = <a power of two>: then each scaling's σ at that d_k, as numbers.
    assert.match(await probe.textContent(), /^d_k = \d+ — measured: none \d[\d.]* · 1\/√d_k \d/);
    await page.locator('[data-panel="sigma"]').screenshot({ path: join(OUT, 'phone-probe.png') });
    const before = await page.evaluate(() => scrollY);
    const mid = { x: box.x + box.width * 0.5, y: box.y + box.height * 0.8 };
    await touchDrag(page, mid, { x: mid.x, y: mid.y - 150 }, 10);
    await page.waitForFunction((y) => scrollY > y + 50, before);
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('the first screen: the steps in one row, the first chart within 1.5 screens of the short answer; targets ≥ 44 px', async () => {
    const { page, errors } = await openPhone();
    await waitForApp(page, { sweeps: false });
    const layout = await page.evaluate(() => {
      const tops = [...document.querySelectorAll('.presets-box .preset')].map((b) =>
        Math.round(b.getBoundingClientRect().top),
      );
      const small = [
        ...document.querySelectorAll('[data-dock] :is(button, select, input), .presets-box .preset'),
      ]
        .filter((el) => el.checkVisibility())
        .map((el) => [el.className || el.name, el.getBoundingClientRect()])
        .filter(([, r]) => r.width < 44 || r.height < 44)
        .map(([n, r]) => `${n} ${Math.round(r.width)}×${Math.round(r.height)}`);
      return {
        rows: new Set(tops).size,
        answerEnd: document.getElementById('answer').getBoundingClientRect().bottom + scrollY,
        firstChart: document.querySelector('[data-panel]').getBoundingClientRect().top + scrollY,
        small,
        sidebar: document.querySelector('.sidebar').checkVisibility(),
        overflow: document.documentElement.scrollWidth - document.documentElement.clientWidth,
      };
    });
    assert.equal(layout.rows, 1, 'the steps are one row');
    // The short answer comes first; the first chart follows it and chapter 1's opening.
    assert.ok(
      layout.firstChart - layout.answerEnd <= 1.5 * 760,
      `the first chart starts ${layout.firstChart - layout.answerEnd} px after the short answer`,
    );
    assert.deepEqual(layout.small, [], 'tap targets under 44 × 44 px');
    assert.equal(layout.sidebar, false, 'the settings column gives way to the dock');
    assert.ok(layout.overflow <= 0, `no horizontal scrolling (overflow ${layout.overflow} px)`);
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('Settings opens the one set of settings as a sheet; Escape closes it, focus returns', async () => {
    for (const colorScheme of ['light', 'dark']) {
      const { page, errors } = await openPhone('?dk=128', { colorScheme });
      await waitForApp(page);
      await page.locator('[data-panel="sigma"]').evaluate((el) => el.scrollIntoView({ block: 'start' }));
      await page.screenshot({ path: join(OUT, `phone-dock-${colorScheme}.png`) });
      assert.deepEqual(await axeAudit(page), [], `axe, the dock (${colorScheme})`);
      await page.locator('.dock-settings').tap();
      const sheet = page.locator('[data-settings-sheet]');
      await sheet.waitFor();
      assert.equal(
        await page.locator('[data-settings-sheet] #controls').count(),
        1,
        'the controls are in the sheet',
      );
      assert.equal(await page.locator('[data-field]').count(), await sheet.locator('[data-field]').count());
      await page.screenshot({ path: join(OUT, `phone-sheet-${colorScheme}.png`) });
      assert.deepEqual(await axeAudit(page), [], `axe, the sheet (${colorScheme})`);
      // A change in the sheet reaches the dock: one state.
      await sheet.locator('[data-field="scale"] input[value="none"]').check();
      await page.waitForFunction(() => /scale=none/.test(document.getElementById('app').dataset.resultQuery));
      assert.equal(await page.locator('[data-dock] select[name="scale"]').inputValue(), 'none');
      await page.keyboard.press('Escape');
      await sheet.waitFor({ state: 'hidden' });
      assert.equal(
        await page.evaluate(() => document.getElementById('controls').parentElement.id),
        'settings',
      );
      assert.equal(
        await page.evaluate(() => document.activeElement?.classList.contains('dock-settings')),
        true,
      );
      // And a change on the dock reaches the settings.
      await page.locator('[data-dock] select[name="scale"]').selectOption('linear');
      await page.waitForFunction(() =>
        /scale=linear/.test(document.getElementById('app').dataset.resultQuery),
      );
      assert.equal(
        await page.locator('#controls [data-field="scale"] input[value="linear"]').isChecked(),
        true,
      );
      assert.deepEqual(errors, []);
      await page.close();
    }
  });

  test('the dock folds to one button, stays folded on the next visit, and the keyboard works it', async () => {
    const { page, errors } = await openPhone('?dk=64');
    await waitForApp(page, { sweeps: false });
    await page.locator('.dock-fold').tap();
    const dock = page.locator('[data-dock]');
    assert.equal(await dock.getAttribute('data-dock-state'), 'folded');
    assert.equal(await page.locator(DOCK_DK).isVisible(), false);
    assert.equal(await page.locator('.dock-unfold').textContent(), 'd_k 64 ▴');
    await page.screenshot({ path: join(OUT, 'phone-dock-folded.png') });
    await page.reload();
    await waitForApp(page, { sweeps: false });
    assert.equal(await dock.getAttribute('data-dock-state'), 'folded');
    await page.locator('.dock-unfold').focus();
    await page.keyboard.press('Enter');
    assert.equal(await dock.getAttribute('data-dock-state'), 'open');
    assert.equal(await page.evaluate(() => document.activeElement?.className), 'btn dock-fold');
    await page.locator(DOCK_DK).focus();
    await page.keyboard.press('ArrowRight');
    await page.waitForFunction(() =>
      /(^|&)dk=128(&|$)/.test(document.getElementById('app').dataset.resultQuery),
    );
    assert.equal(await page.locator('[data-dock] output').textContent(), 'd_k = 128');
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('desktop keeps its settings column and has no dock', async () => {
    const page = await site.browser.newPage({ reducedMotion: 'reduce' });
    await page.goto(site.server.url);
    await waitForApp(page, { sweeps: false });
    assert.equal(await page.locator('.sidebar').isVisible(), true);
    assert.equal(await page.locator('[data-dock]').isVisible(), false);
    await page.close();
  });

  test('a narrow embed and a narrow component: the dock in place of their settings, moved by a finger', async () => {
    const { page, errors } = await openPhone('embed.html?panel=sigma&controls=dk,scale&dk=64');
    await waitForApp(page);
    assert.equal(await page.locator('#controls').isVisible(), false, 'the dock replaces the settings column');
    assert.equal(await page.locator('.dock-settings').count(), 0, 'no sheet: the dock holds both settings');
    await moveWithFinger(page, page.locator(DOCK_DK));
    await page.screenshot({ path: join(OUT, 'phone-embed.png') });
    await page.close();

    // A frame its host sizes to its content (taller than the view): the dock is lifted to the bottom
    // of the part of the frame on screen.
    const framed = await site.browser.newPage({ phone: true, reducedMotion: 'reduce' });
    await framed.route('**/phone-frame-host.html', (route) =>
      route.fulfill({
        contentType: 'text/html',
        body: `<!doctype html><meta name="viewport" content="width=device-width"><body style="margin:0">
          <p style="height:300px">Text above the frame.</p>
          <iframe id="f" style="border:0;width:100%;height:2400px"
            src="./embed.html?panel=sigma,entropy,gradients&controls=all&dk=64"></iframe>`,
      }),
    );
    await framed.goto(`${site.server.url}phone-frame-host.html`);
    const frame = framed.frameLocator('#f');
    await frame.locator('[data-dock]').waitFor();
    for (const y of [300, 1200]) {
      await framed.evaluate((top) => scrollTo(0, top), y);
      await framed.waitForFunction(() => {
        const doc = document.getElementById('f').contentDocument;
        const dock = doc.querySelector('[data-dock]').getBoundingClientRect();
        const bottom = document.getElementById('f').getBoundingClientRect().top + dock.bottom;
        return bottom <= innerHeight + 1 && bottom >= innerHeight - 2;
      });
    }
    await framed.screenshot({ path: join(OUT, 'phone-frame-dock.png') });
    await framed.close();

    // A host page of the same origin (served by the route), with the component in its full width.
    const hostPage = await site.browser.newPage({ phone: true, reducedMotion: 'reduce' });
    const host = { page: hostPage, errors: watchErrors(hostPage) };
    await host.page.route('**/phone-host.html', (route) =>
      route.fulfill({
        contentType: 'text/html',
        body: `<!doctype html><meta name="viewport" content="width=device-width"><body style="margin:0">
          <script type="module" src="./attn-scale-demo.js"></script>
          <attn-scale-demo id="d" panel="sigma,entropy" controls="all" dk="64"></attn-scale-demo>`,
      }),
    );
    await host.page.goto(`${site.server.url}phone-host.html`);
    await waitForDemos(host.page);
    const inner = host.page.locator('#d').locator(DOCK_DK);
    assert.equal(await host.page.locator('#d .as-controls').isVisible(), false);
    await host.page
      .locator('#d [data-panel="entropy"]')
      .evaluate((el) => el.scrollIntoView({ block: 'start' }));
    assert.ok(await inner.isVisible());
    await moveWithFinger(host.page, inner, { root: '.as-root', within: '#d' });
    await host.page.locator('#d .dock-settings').tap();
    await host.page.locator('#d [data-settings-sheet] .as-controls').waitFor();
    await host.page.screenshot({ path: join(OUT, 'phone-component-sheet.png') });
    await host.page.keyboard.press('Escape');
    assert.deepEqual([...errors, ...host.errors], []);
    await host.page.close();
  });
});
