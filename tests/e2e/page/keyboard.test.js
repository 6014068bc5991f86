// Keyboard only, in headless Debian chromium: every control of the page is
// reached with Tab (and shows a focus ring), and operated with the keys a reader would use: arrow
// keys on the d_k slider and in the scaling radio group, typing a number, Space on checkboxes,
// Enter and Space on buttons and presets, Enter on the settings disclosure. The readouts follow.
// No mouse event and no programmatic focus: the test only presses keys.
import { describe } from 'node:test';
import assert from 'node:assert/strict';
import { watchErrors, waitForApp, stat, test } from '../support/browser.js';
import { useSite } from '../support/site.js';

const site = useSite();

/** The config the readouts on screen were computed for. */
const resultQuery = async (page) =>
  new URLSearchParams(await page.evaluate(() => document.getElementById('app').dataset.resultQuery));
const waitResult = (page, re) =>
  page.waitForFunction(
    (src) => new RegExp(src).test(document.getElementById('app').dataset.resultQuery ?? ''),
    re.source,
  );
const num = async (page, name) => parseFloat(await stat(page, name));

/** Description of the focused element, for messages. */
const focused = (page) =>
  page.evaluate(() => {
    const a = document.activeElement;
    return a
      ? `${a.tagName.toLowerCase()}${a.id ? `#${a.id}` : ''}${a.type ? `[${a.type}]` : ''} ${(a.getAttribute('aria-label') ?? a.textContent ?? '').trim().slice(0, 40)}`
      : 'none';
  });

/** Press Tab (or Shift+Tab) until the focused element matches `selector`; at most `max` presses. */
async function tabTo(page, selector, { back = false, max = 250 } = {}) {
  for (let i = 0; i < max; i++) {
    if (await page.evaluate((s) => document.activeElement?.matches(s) ?? false, selector)) return;
    await page.keyboard.press(back ? 'Shift+Tab' : 'Tab');
  }
  throw new Error(
    `${selector} not reached with ${back ? 'Shift+' : ''}Tab (focus on ${await focused(page)})`,
  );
}

describe('keyboard only', () => {
  test('Tab reaches every control, each with a visible focus ring', async () => {
    const page = await site.browser.newPage({ reducedMotion: 'reduce' });
    const errors = watchErrors(page);
    await page.goto(site.server.url);
    await waitForApp(page, { sweeps: false });
    // Every element a keyboard user must be able to reach: enabled, visible, not taken out of the
    // tab order; of a radio group only the checked radio is a tab stop (arrows move inside it), or
    // its first radio while none is checked (the drill's answers before a choice).
    const expected = await page.evaluate(() => {
      const sel = 'a[href], button, input, select, textarea, summary, [tabindex]';
      const els = [...document.querySelectorAll(sel)].filter(
        (el) =>
          !el.disabled &&
          el.tabIndex >= 0 &&
          !el.closest('[hidden], [inert]') &&
          !el.closest('details:not([open]) > :not(summary)') && // a closed <details> hides its body
          el.getClientRects().length > 0 &&
          getComputedStyle(el).visibility !== 'hidden' &&
          !(
            el.type === 'radio' &&
            !el.checked &&
            (document.querySelector(`input[type=radio][name="${el.name}"]:checked`) ||
              document.querySelector(`input[type=radio][name="${el.name}"]`) !== el)
          ),
      );
      els.forEach((el, i) => el.setAttribute('data-kbd-walk', String(i)));
      return els.map(
        (el) =>
          `${el.tagName.toLowerCase()} ${(el.getAttribute('aria-label') ?? el.textContent ?? el.name ?? '').trim().slice(0, 30)}`,
      );
    });
    assert.ok(expected.length > 60, `${expected.length} tab stops expected`);
    const controls = await page.locator('#controls [data-kbd-walk], .presets-box [data-kbd-walk]').count();
    assert.ok(controls >= 25, `${controls} controls and presets`);

    const seen = new Set();
    const noRing = [];
    for (let i = 0; i < expected.length + 40 && seen.size < expected.length; i++) {
      await page.keyboard.press('Tab');
      const f = await page.evaluate(() => {
        const a = document.activeElement;
        const cs = a ? getComputedStyle(a) : null;
        const ring =
          cs &&
          ((cs.outlineStyle !== 'none' && parseFloat(cs.outlineWidth) > 0) ||
            (cs.boxShadow && cs.boxShadow !== 'none'));
        return { walk: a?.getAttribute('data-kbd-walk') ?? null, ring: !!ring, tag: a?.tagName };
      });
      if (f.walk === null) continue;
      seen.add(Number(f.walk));
      if (!f.ring) noRing.push(expected[Number(f.walk)]);
    }
    const missed = expected.filter((_, i) => !seen.has(i));
    assert.deepEqual(missed, [], 'controls Tab never reached');
    assert.deepEqual(noRing, [], 'focused without a visible focus ring');
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('operate by keys: d_k arrows, typed number, radio arrows, select arrows, Space on checkboxes, Enter on presets and buttons', async () => {
    const page = await site.browser.newPage({ reducedMotion: 'reduce' });
    const errors = watchErrors(page);
    await page.goto(site.server.url);
    await waitForApp(page, { sweeps: false });
    assert.equal(await stat(page, 'scaleFactor'), '0.125'); // d_k = 64, 1/√d_k

    // d_k slider: arrows step through the powers of two; Home / End jump to the ends.
    await tabTo(page, '[data-field="dk"] input[type="range"]');
    await page.keyboard.press('ArrowRight');
    await waitResult(page, /(^|&)dk=128&/);
    assert.ok(Math.abs((await num(page, 'rawLogitStd')) - 11.36) < 0.05);
    assert.equal(await stat(page, 'scaleFactor'), '0.08839');
    await page.keyboard.press('ArrowLeft');
    await page.keyboard.press('ArrowLeft');
    await waitResult(page, /(^|&)dk=32&/);
    await page.keyboard.press('End');
    await waitResult(page, /(^|&)dk=4096&/);
    await page.keyboard.press('Home');
    await waitResult(page, /(^|&)dk=1&/);
    assert.equal(await stat(page, 'scaleFactor'), '1');

    // The number input beside it: type any integer, Enter.
    await page.keyboard.press('Tab');
    assert.ok(
      await page.evaluate(() => document.activeElement.matches('[data-field="dk"] input[type="number"]')),
      await focused(page),
    );
    await page.keyboard.press('Control+A');
    await page.keyboard.type('100');
    await page.keyboard.press('Enter');
    await waitResult(page, /(^|&)dk=100&/);
    assert.equal(await stat(page, 'scaleFactor'), '0.1');

    // Space toggles the causal mask.
    await tabTo(page, '[data-field="causal"] input[type="checkbox"]');
    await page.keyboard.press('Space');
    await waitResult(page, /causal=true/);
    assert.match(
      await page.locator('[data-panel="heatmap"] [data-panel-summary]').textContent(),
      /causal mask/,
    );
    await page.keyboard.press('Space');
    await waitResult(page, /causal=false/);

    // The scaling radio group: one tab stop; arrows move the choice.
    await tabTo(page, '[data-field="scale"] input[type="radio"]');
    assert.equal(await page.evaluate(() => document.activeElement.value), 'sqrt');
    await page.keyboard.press('ArrowRight');
    await waitResult(page, /scale=linear/);
    assert.equal(await stat(page, 'scaleFactor'), '0.01');
    await page.keyboard.press('ArrowLeft');
    await page.keyboard.press('ArrowLeft');
    await waitResult(page, /scale=none/);
    assert.equal(await stat(page, 'scaleFactor'), '1');

    // Precision: a closed select changes with the arrow keys.
    await tabTo(page, '[data-field="precision"] select');
    await page.keyboard.press('ArrowDown');
    await waitResult(page, /precision=bf16/);
    // subtract max: Space; fp16 without it overflows.
    await page.keyboard.press('ArrowDown');
    await waitResult(page, /precision=fp16/);
    await tabTo(page, '[data-field="subtractMax"] input[type="checkbox"]');
    await page.keyboard.press('Space');
    await waitResult(page, /subtractMax=false/);
    assert.equal(await stat(page, 'firstNonFiniteStage'), 'exp');

    // The seed's Resample button: Enter.
    const seed = (await resultQuery(page)).get('seed');
    await tabTo(page, '[data-field="seed"] button');
    await page.keyboard.press('Enter');
    await page.waitForFunction(
      (s) => new URLSearchParams(document.getElementById('app').dataset.resultQuery).get('seed') !== s,
      seed,
    );

    // Back up to the presets (Shift+Tab): Enter picks one, Space another.
    await tabTo(page, '[data-preset="unscaled"]', { back: true });
    await page.keyboard.press('Enter');
    await waitResult(page, /(^|&)dk=128&seqLen=256&precision=fp32&saturate=false&scale=none&/);
    assert.equal(await page.locator('[data-preset="unscaled"]').getAttribute('aria-pressed'), 'true');
    assert.ok(Math.abs((await num(page, 'rawLogitStd')) - 11.36) < 0.05);
    assert.match(await page.locator('.presets-box .preset-note').textContent(), /Step 2:/);
    await page.keyboard.press('Tab');
    await page.keyboard.press('Space');
    await waitResult(page, /(^|&)dk=1024&/);
    assert.equal(await page.locator('[data-preset="no-gradient"]').getAttribute('aria-pressed'), 'true');

    // The settings disclosure: Enter folds and unfolds it.
    await tabTo(page, '#settings > summary');
    await page.keyboard.press('Enter');
    assert.equal(await page.evaluate(() => document.getElementById('settings').open), false);
    await page.keyboard.press('Enter');
    assert.equal(await page.evaluate(() => document.getElementById('settings').open), true);

    // The theme toggle: Enter.
    await tabTo(page, '#theme-toggle', { back: true });
    await page.keyboard.press('Enter');
    assert.equal(await page.evaluate(() => document.documentElement.dataset.theme), 'dark');
    assert.equal(await page.locator('#theme-toggle').getAttribute('aria-pressed'), 'true');
    assert.deepEqual(errors, []);
    await page.close();
  });
});
