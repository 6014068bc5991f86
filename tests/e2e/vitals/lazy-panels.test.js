// The page builds a chart only when the reader comes near it: at load, the panels of the first
// screens are built and the rest of the page is its text alone; the sweep is computed once a chart
// of it is built, and the sweep Workers boot after the first chart is drawn. A panel built later
// shows what one built at load would show for the same setting (the latest run and sweep are given
// to it), a folded topic's panel is built when the topic is opened, and a panel's own settings in
// the address stay there, and apply, before it is built.
import { describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer } from '../support/serve-dist.js';
import { launchBrowser, watchErrors, waitForSettled, test } from '../support/browser.js';

/** The app shows its first result and the panels built at load have nothing pending (nothing scrolled). */
async function loaded(page) {
  await page.waitForFunction(() => document.getElementById('app')?.dataset.state === 'ready', null, {
    timeout: 60000,
  });
  await waitForSettled(page);
}

/** In the page: the names of the panels built so far (a panel's element is empty until then). */
const builtPanels = () =>
  [...document.querySelectorAll('[data-panel]')]
    .filter((el) => el.childElementCount > 0)
    .map((el) => el.dataset.panel);

/** Scrolls panel `name` into view and waits until it is built and drawn, with nothing pending. */
async function reach(page, name) {
  await page.locator(`[data-panel="${name}"]`).scrollIntoViewIfNeeded();
  await page.waitForFunction(
    (n) => document.querySelector(`[data-panel="${n}"]`).dataset.drawn === 'true',
    name,
    {
      timeout: 60000,
    },
  );
  await waitForSettled(page, { root: `[data-panel="${name}"]`, skip: [] });
}

/** In the page: every readout of panel `name`, as text by its stat. */
const readouts = (name) =>
  Object.fromEntries(
    [...document.querySelectorAll(`[data-panel="${name}"] [data-stat]`)].map((el) => [
      el.dataset.stat,
      el.textContent,
    ]),
  );

const s = { server: null, browser: null };
before(async () => {
  s.server = await startServer();
  s.browser = await launchBrowser();
});
after(async () => {
  await s.browser?.close();
  await s.server?.close();
});

describe('panels built when the reader comes near', () => {
  test('a phone builds the first screens only; a panel reached later shows the current setting', async () => {
    const page = await s.browser.newPage({ phone: true });
    const errors = watchErrors(page);
    await page.goto(`${s.server.url}?dk=64`);
    await loaded(page);
    const atLoad = await page.evaluate(builtPanels);
    assert.ok(atLoad.includes('spread'), `the first chart is built at load (built: ${atLoad})`);
    for (const far of ['gradients', 'precision', 'training', 'report', 'thresholds'])
      assert.ok(!atLoad.includes(far), `${far} is not built before the reader comes near (built: ${atLoad})`);

    // A new setting (back/forward to another address) while those panels are not built.
    await page.evaluate(() => {
      history.pushState(null, '', '?dk=256');
      dispatchEvent(new PopStateEvent('popstate'));
    });
    await page.waitForFunction(() =>
      /(^|&)dk=256(&|$)/.test(document.getElementById('app').dataset.resultQuery),
    );
    await waitForSettled(page);
    for (const name of ['gradients', 'sigma']) await reach(page, name);
    const late = {
      gradients: await page.evaluate(readouts, 'gradients'),
      sigma: await page.evaluate(readouts, 'sigma'),
    };

    // The same setting loaded afresh, its panels reached the same way: the same readouts.
    const fresh = await s.browser.newPage({ phone: true });
    await fresh.goto(`${s.server.url}?dk=256`);
    await loaded(fresh);
    for (const name of ['gradients', 'sigma']) await reach(fresh, name);
    for (const name of ['gradients', 'sigma']) {
      const want = await fresh.evaluate(readouts, name);
      assert.ok(Object.keys(want).length > 0, `${name} has readouts`);
      assert.deepEqual(late[name], want, `${name}, built after the change, reads as one built for d_k = 256`);
    }
    assert.deepEqual(errors, []);
    await Promise.all([page.close(), fresh.close()]);
  });

  test("a phone's load computes no sweep, and boots the sweep Worker once its first chart is drawn", async () => {
    const page = await s.browser.newPage({ phone: true });
    const errors = watchErrors(page);
    // when each Worker is created, on the page's clock
    await page.addInitScript(() => {
      const Base = window.Worker;
      window.Worker = class extends Base {
        constructor(...args) {
          super(...args);
          (window.workersCreatedAt ??= []).push(performance.now());
        }
      };
    });
    await page.goto(s.server.url);
    await loaded(page);
    await page.waitForFunction(() => (window.workersCreatedAt ?? []).length >= 2);
    const { created, firstChart, sweeps } = await page.evaluate(() => ({
      created: window.workersCreatedAt,
      firstChart: performance.getEntriesByName('attnscale:first-chart')[0].startTime,
      sweeps: document.getElementById('app').dataset.sweepRequests,
    }));
    assert.equal(sweeps, '0', 'no chart near the first screens draws the d_k sweep');
    assert.ok(created[0] < firstChart, 'the foreground Worker computes the first chart');
    for (const at of created.slice(1))
      assert.ok(
        at > firstChart,
        `a sweep Worker booted at ${at} ms, before the first chart at ${firstChart} ms`,
      );
    await reach(page, 'sigma'); // the sweep is sent once the reader comes near a chart of it
    assert.equal(await page.evaluate(() => document.getElementById('app').dataset.sweepRequests), '1');
    assert.deepEqual(errors, []);
    await page.close();
  });

  test("a folded topic's panel is built once the reader opens the topic", async () => {
    const page = await s.browser.newPage();
    const errors = watchErrors(page);
    await page.goto(s.server.url);
    await loaded(page);
    assert.ok(!(await page.evaluate(builtPanels)).includes('length'));
    const summary = page.locator('#length > summary');
    await summary.scrollIntoViewIfNeeded();
    await page.waitForTimeout(300); // the panel stays unbuilt while its topic is closed, however near
    assert.ok(!(await page.evaluate(builtPanels)).includes('length'), 'a closed topic builds nothing');
    await summary.click();
    await page.waitForFunction(() => document.querySelector('[data-panel="length"]').childElementCount > 0);
    assert.deepEqual(errors, []);
    await page.close();
  });

  test("a panel's own settings in the address stay there until it is built, and apply then", async () => {
    const page = await s.browser.newPage();
    const errors = watchErrors(page);
    await page.goto(`${s.server.url}?quiz=5&trainSeed=7`);
    await loaded(page);
    // The training topic opens for its settings, and so its panel is built; the drill, far below,
    // is not.
    assert.ok(await page.evaluate(() => document.getElementById('training').open));
    await page.waitForFunction(() => document.querySelector('[data-panel="training"]').childElementCount > 0);
    const built = await page.evaluate(builtPanels);
    assert.ok(built.includes('training') && !built.includes('predict'), `built at load: ${built}`);
    // A change of the page's setting keeps them in the address.
    const input = page.locator('[data-field="dk"] input[type="number"]');
    await input.fill('128');
    await input.press('Enter');
    await page.waitForFunction(() => /[?&]dk=128(&|$)/.test(location.search));
    const search = await page.evaluate(() => location.search);
    assert.match(search, /[?&]quiz=5(&|$)/);
    assert.match(search, /[?&]trainSeed=7(&|$)/);
    // Reached, the drill reads them.
    await page.locator('[data-panel="predict"]').scrollIntoViewIfNeeded();
    await page.waitForFunction(() => document.querySelector('[data-panel="predict"]').dataset.quiz === '5');
    assert.match(await page.evaluate(() => location.search), /[?&]quiz=5(&|$)/);
    assert.deepEqual(errors, []);
    await page.close();
  });
});
