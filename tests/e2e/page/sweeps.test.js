// The page's sweeps, in headless Debian chromium against dist/:
//  - a sweep split over 3 sweep Workers (?sweepWorkers=3) draws exactly what 1 Worker draws:
//    every readout and every value of the σ, entropy and gradient panels' CSV exports;
//  - at T = 512 each sweep panel first draws every point as an estimate (data-sweep="estimate",
//    its status naming the rows sampled), then only exact ones; its exact export is the same with
//    1 and 3 sweep Workers;
//  - when the engine cannot get the memory a setting needs (WebAssembly.Memory.grow refused above
//    48 MB, as on a small device), the page says which setting, goes back to the last one that
//    worked with its charts intact, and the engine keeps working. The engine runs on the page's
//    thread there (Workers disabled), so that the test can cap the memory of the page's realm.
import { describe } from 'node:test';
import assert from 'node:assert/strict';
import { watchErrors, waitForApp, stat, test } from '../support/browser.js';
import { useSite } from '../support/site.js';

const SWEEP_PANELS = ['sigma', 'entropy', 'gradients'];
// Counts the Workers the page starts (a subclass, so that everything else stays as it is).
const COUNT_WORKERS = () => {
  window.__workers = 0;
  const Base = globalThis.Worker;
  globalThis.Worker = class extends Base {
    constructor(...args) {
      super(...args);
      window.__workers += 1;
    }
  };
};
const NO_WORKER = () => {
  globalThis.Worker = class Worker {
    constructor() {
      throw new DOMException('Workers are disabled by policy', 'SecurityError');
    }
  };
};
const CAP_MEMORY = () => {
  const grow = WebAssembly.Memory.prototype.grow;
  WebAssembly.Memory.prototype.grow = function capped(pages) {
    if (this.buffer.byteLength + pages * 65536 > 48 * 2 ** 20)
      throw new RangeError('WebAssembly.Memory.grow(): Maximum memory size exceeded');
    return grow.call(this, pages);
  };
};

// Init script: every change of a sweep panel's data-sweep / data-points-drawn, with its status line.
const RECORD_SWEEP_STATES = () => {
  window.__sweepStates = { sigma: [], entropy: [], gradients: [] };
  const note = () => {
    for (const [name, seen] of Object.entries(window.__sweepStates)) {
      const el = document.querySelector(`[data-panel="${name}"]`);
      if (!el?.dataset.pointsTotal) continue;
      const s = {
        sweep: el.dataset.sweep,
        drawn: Number(el.dataset.pointsDrawn),
        total: Number(el.dataset.pointsTotal),
        status: el.querySelector('.panel-status')?.textContent ?? '',
        // charts saying that they wait for the exact points
        waiting: el.querySelectorAll('[data-exact-only]:not([hidden])').length,
      };
      const last = seen[seen.length - 1];
      if (!last || ['sweep', 'drawn', 'status', 'waiting'].some((k) => last[k] !== s[k])) seen.push(s);
    }
  };
  addEventListener('DOMContentLoaded', () =>
    new MutationObserver(note).observe(document.body, {
      subtree: true,
      attributes: true,
      childList: true,
      characterData: true,
    }),
  );
};

const site = useSite();

async function open(query, inits = [], size = {}) {
  const page = await site.browser.newPage({ reducedMotion: 'reduce', ...size });
  for (const init of inits) await page.addInitScript(init);
  const errors = watchErrors(page);
  await page.goto(site.server.url + query);
  return { page, errors };
}

/** The CSV each sweep panel would download, captured where the page clicks its link. */
async function sweepCsvs(page) {
  await page.evaluate(() => {
    window.__files = {};
    HTMLAnchorElement.prototype.click = function click() {
      const name = this.download;
      fetch(this.href)
        .then((r) => r.text())
        .then((t) => {
          window.__files[name] = t;
        });
    };
  });
  const out = {};
  for (const name of SWEEP_PANELS) {
    await page
      .locator(`[data-panel="${name}"]`)
      .getByRole('button', { name: /as CSV/ })
      .click();
    await page.waitForFunction((n) => window.__files[`attnscale-${n}.csv`], name);
    out[name] = await page.evaluate((n) => window.__files[`attnscale-${n}.csv`], name);
  }
  return out;
}

describe('sweeps', () => {
  test('3 sweep Workers draw exactly what 1 draws', async () => {
    const seen = {};
    for (const n of [1, 3]) {
      const { page, errors } = await open(`?seqLen=64&dk=32&scale=none&mean=0.2&sweepWorkers=${n}`, [
        COUNT_WORKERS,
      ]);
      await waitForApp(page, { chapter8: true, timeout: 120000 });
      seen[n] = {
        workers: await page.evaluate(() => window.__workers),
        readouts: await page.$$eval('[data-stat]', (els) =>
          els.map((e) => `${e.dataset.stat}=${e.textContent}`),
        ),
        csv: await sweepCsvs(page),
      };
      assert.deepEqual(errors, []);
      await page.close();
    }
    assert.equal(
      seen[3].workers - seen[1].workers,
      2,
      `Workers started: ${seen[1].workers} with 1 sweep Worker, ${seen[3].workers} with 3`,
    );
    for (const name of SWEEP_PANELS) {
      const rows = seen[1].csv[name].trim().split('\r\n');
      assert.ok(rows.length >= 1 + 3 * 13, `${name}: ${rows.length} rows`);
      assert.equal(seen[3].csv[name], seen[1].csv[name], name);
    }
    assert.deepEqual(seen[3].readouts, seen[1].readouts);
  });

  test('at T = 512 the sweep panels draw an estimate of every point first, then the exact values', async () => {
    const exports = {};
    for (const n of [1, 3]) {
      // A window tall enough that the three sweep panels are near at load, so each is built before
      // the sweep starts (the page builds a panel when the reader comes near it).
      const { page, errors } = await open(
        `?seqLen=512&dk=16&correlation=0.3&sweepWorkers=${n}`,
        [RECORD_SWEEP_STATES],
        { height: 1500 },
      );
      await waitForApp(page, { timeout: 120000 });
      const states = await page.evaluate(() => window.__sweepStates);
      for (const name of SWEEP_PANELS) {
        const seen = states[name];
        const where = `${name} with ${n} sweep Workers: ${JSON.stringify(seen)}`;
        assert.ok(
          seen.some((s) => s.sweep === 'estimate' && s.drawn === 39 && s.total === 39),
          `every point drawn as an estimate: ${where}`,
        );
        assert.ok(
          seen.some((s) => /^Estimate from 128 of 512 query rows/.test(s.status)),
          `the status names the sample: ${where}`,
        );
        const last = seen[seen.length - 1];
        assert.deepEqual([last.sweep, last.drawn, last.total], ['exact', 39, 39], `ends exact: ${where}`);
        // Once exact, never an estimate again.
        const firstExact = seen.findIndex((s) => s.sweep === 'exact' && s.drawn === 39);
        assert.ok(
          seen.slice(firstExact).every((s) => s.sweep === 'exact'),
          where,
        );
        // The gradients to Q and K have no estimate: their chart says so until an exact point is in.
        assert.ok(
          seen.every((s) => s.waiting === 0 || s.sweep === 'estimate'),
          `a waiting note only beside estimates: ${where}`,
        );
        assert.equal(last.waiting, 0, `no waiting note once exact: ${where}`);
        // While estimates are drawn and no exact point is in, the RMS gradient chart says it waits.
        // (The panel may mount after the first exact points: each panel mounts in a task of its
        // own, and what the Workers sent before is replayed to it at once.)
        if (name === 'gradients')
          assert.ok(
            seen
              .filter((s) => s.sweep === 'estimate' && !/[1-9]\d* of \d+ exact/.test(s.status))
              .every((s) => s.waiting === 1),
            `the RMS gradient chart says it waits for the exact points while none is in: ${where}`,
          );
      }
      exports[n] = await sweepCsvs(page);
      assert.deepEqual(errors, []);
      await page.close();
    }
    for (const name of SWEEP_PANELS) {
      assert.equal(exports[3][name], exports[1][name], name);
      assert.ok(exports[1][name].trim().split('\r\n').length >= 1 + 3 * 13, name);
    }
  });

  test('a setting the engine has no memory for: a notice naming it, the last good charts, the engine still works', async () => {
    const { page, errors } = await open('?seqLen=256&dk=64', [NO_WORKER, CAP_MEMORY]);
    await waitForApp(page, { chapter8: true, timeout: 120000 });
    const before = await stat(page, 'rawLogitStd');
    const sigmaCsv = (await sweepCsvs(page)).sigma;

    const t = page.locator('[data-field="seqLen"] input[type="number"]');
    await t.fill('2048');
    await t.press('Enter');
    const notice = page.locator('#notices .notice.error', { hasText: 'needs more memory' });
    await notice.waitFor({ timeout: 120000 });
    assert.match(
      await notice.textContent(),
      /The setting T = 2048, d_k = 64 needs more memory than this browser gives the engine\. The charts show T = 256, d_k = 64, the last setting that worked/,
    );
    // Back to the last good setting: controls, URL and charts agree.
    await page.waitForFunction(
      () =>
        /seqLen=256&/.test(document.getElementById('app').dataset.resultQuery) &&
        /seqLen=256&/.test(location.search),
    );
    // (the number input keeps what was typed while it has the focus; its slider shows the value used)
    assert.match(
      await page.locator('[data-field="seqLen"] input[type="range"]').getAttribute('aria-valuetext'),
      / 256$/,
    );
    assert.equal(await stat(page, 'rawLogitStd'), before);
    assert.equal((await sweepCsvs(page)).sigma, sigmaCsv);
    for (const name of SWEEP_PANELS)
      assert.equal(await page.locator(`[data-panel="${name}"]`).getAttribute('data-drawn'), 'true');

    // The engine was restarted: the next change computes as usual.
    const slider = page.locator('[data-field="dk"] input[type="range"]');
    await slider.focus();
    await page.keyboard.press('ArrowRight');
    await page.waitForFunction(
      () => /dk=128&/.test(document.getElementById('app').dataset.resultQuery),
      null,
      { timeout: 60000 },
    );
    assert.ok(Math.abs(parseFloat(await stat(page, 'rawLogitStd')) - Math.sqrt(128)) < 0.5);
    // Emscripten's own report of the abort is the only console message.
    assert.deepEqual(
      errors.filter((e) => !/Aborted\(\)/.test(e)),
      [],
    );
    await page.close();
  });
});
