#!/usr/bin/env node
// Measures the page's budgets on localhost in headless Debian chromium and prints JSON.
// Not a test: the page budgets of docs/performance.md. Needs a built dist/ (npm run build).
//   firstChartMs      navigation start → first chart drawn with engine data (median of N cold loads)
//   transferGzipBytes everything the page transfers on a cold load, gzip, fonts excluded
//   sweepsCompleteMs  navigation start → every panel of the page's setting complete (every sweep and
//                     variant drawn), cold loads at T = 256 and T = 2048 (budgets: ≤ 600 ms and
//                     ≤ 4 s); chapter 8's panels measure only once scrolled near, so not here
//   dkChangeMs        d_k slider input → the frame showing the new forward (spread, σ, entropy,
//                     heatmap, precision), T = 256, d_k ≤ 512 (budget: median ≤ 16.7 ms, one frame
//                     at 60 Hz; p90 ≤ 25 ms); gradientsMedian/P90: → the frame with the gradient panel;
//                     gradientsNextFrameShare: the share of moves whose gradient panel is drawn in
//                     the frame right after the forward's (gradientsFramesAfterForward: each move's
//                     count of frames begun from the forward's to the gradient panel's)
//   duringSweepMs     T = 2048, a change of the mean while the sweep runs (it restarts the sweep):
//                     input → the frame with the new result (budget: ≤ 150 ms), input → the first
//                     point of the new sweep on screen, and how long the stale sweep work kept the
//                     sweep Workers busy after the new request (budget: ≈ 50 ms)
//   sweepLoadsMs      cold loads at T = 256 and 2048, each timed to every sweep chart drawn (estimate
//                     or exact), every sweep chart exact, and every panel complete
//                     (build-scripts/lib/measure/sweep-loads.mjs); with --before DIR, the same loads of that
//                     build interleaved with this one's (budgets at T = 2048: drawn ≤ 1.5 s, exact
//                     ≤ 6 s; at T = 256, exact ≤ 600 ms); --loadRuns N loads of each (default: --runs,
//                     at most 3, as a T = 2048 load takes 10 s or more)
// Budgets of a cold load: firstChartMs ≤ 1000, transferGzipBytes ≤ 300 KB.
// --phone: a 360 × 760 touch screen with the CPU throttled 4× (Lighthouse's phone setting; the
// throttle slows the page's main thread, not its Workers) instead of the desktop sections:
//   phoneFirstChartMs navigation start → first chart drawn, cold loads (budget: ≤ 2500 ms, web.dev's
//                     "good" largest contentful paint)
//   phoneDockDkMs     the dock's d_k slider input → the frame showing the new forward readouts,
//                     T = 256 (budget: median ≤ 100 ms)
//   node build-scripts/measure-budgets.mjs [--runs 5] [--dist DIR] [--only a,b] [--query '&sweepWorkers=2']
//     [--phone] [--before DIR] [--loadRuns N]
//   --only: any of first, sweeps, slider, during, loads (default: all)
import { startServer } from '../tests/e2e/support/serve-dist.js';
import { launchBrowser } from '../tests/e2e/support/browser.js';
import { measureSweepLoads } from './lib/measure/sweep-loads.mjs';
import { measureSliderMoves } from './lib/measure/slider-moves.mjs';
import { median, pct, round } from './lib/measure/stats.mjs';

const arg = (name, fallback) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : fallback;
};
const runs = Number(arg('--runs', 5)) || 5;
const loadRuns = Number(arg('--loadRuns', 0)) || Math.max(1, Math.min(runs, 3));
const phone = process.argv.includes('--phone');
const only = new Set(phone ? [] : arg('--only', 'first,sweeps,slider,during,loads').split(','));
const extraQuery = arg('--query', '');

// Every [data-panel] complete: no is-stale class and an empty .panel-status (the markers the e2e
// tests wait for), once the app has asked for its sweeps and variants.
// Every panel of the page's setting (not chapter 8's schemes, length and thresholds, which measure
// once scrolled near).
const ALL_COMPLETE = () => {
  const app = document.getElementById('app');
  const later = ['schemes', 'length', 'thresholds'];
  return (
    app?.dataset.state === 'ready' &&
    Number(app.dataset.sweepRequests) >= 1 &&
    [...document.querySelectorAll('[data-panel]')]
      .filter((p) => !later.includes(p.dataset.panel))
      .every((p) => !p.classList.contains('is-stale') && !p.querySelector('.panel-status')?.textContent)
  );
};
// Init script: records performance.now() the first time ALL_COMPLETE holds (a MutationObserver,
// so the time is exact rather than a polling interval).
const RECORD_COMPLETE = `(() => {
  const done = ${ALL_COMPLETE.toString()};
  const mo = new MutationObserver(() => { if (done()) { window.__allCompleteAt = performance.now(); mo.disconnect(); } });
  addEventListener('DOMContentLoaded', () => mo.observe(document.body, { subtree: true, childList: true, attributes: true, characterData: true }));
})();`;

const server = await startServer(arg('--dist') ? { root: arg('--dist') } : {});
const out = { date: new Date().toISOString(), url: server.url, runs, query: extraQuery };
/** A section's numbers: kept for the JSON at the end, and shown on stderr as soon as they exist. */
const report = (name, value) => {
  out[name] = value;
  console.error(`${name}: ${JSON.stringify(value)}`);
};
/** Navigation start → the page's first chart drawn with engine data (its performance mark), in ms. */
async function firstChartAt(page, timeout) {
  await page.waitForFunction(() => performance.getEntriesByName('attnscale:first-chart').length > 0, null, {
    timeout,
  });
  return page.evaluate(() => performance.getEntriesByName('attnscale:first-chart')[0].startTime);
}
const waitComplete = (page) => page.waitForFunction(ALL_COMPLETE, null, { timeout: 180000, polling: 250 });

try {
  if (only.has('first')) {
    // --- first chart + transfer: a fresh browser profile per load, so nothing is cached ---
    const firsts = [];
    const phases = [];
    let transfer = null;
    for (let i = 0; i < runs; i++) {
      const browser = await launchBrowser();
      try {
        const page = await browser.newPage({ width: 1280, height: 900 });
        const logStart = server.log.length;
        await page.goto(`${server.url}?${extraQuery}`);
        firsts.push(await firstChartAt(page, 60000));
        phases.push(
          await page.evaluate(() =>
            Object.fromEntries(
              ['main-start', 'engine-ready', 'first-result', 'first-chart']
                .map((n) => [
                  n,
                  Math.round(performance.getEntriesByName(`attnscale:${n}`)[0]?.startTime ?? NaN),
                ])
                .concat([['workerBoot', Number(document.getElementById('app').dataset.engineBootMs)]]),
            ),
          ),
        );
        if (i === 0) {
          // Let every sweep and variant finish, then count every response of this load.
          await waitComplete(page);
          await page.waitForTimeout(500);
          const entries = server.log.slice(logStart);
          const isFont = (e) => /\.(woff2?|ttf|otf)$/.test(e.path);
          const byPath = entries.map((e) => ({
            path: e.path,
            gzipBytes: e.bytes,
            rawBytes: e.raw,
            font: isFont(e),
          }));
          transfer = {
            totalGzipBytesExclFonts: byPath.filter((e) => !e.font).reduce((a, e) => a + e.gzipBytes, 0),
            fontGzipBytes: byPath.filter((e) => e.font).reduce((a, e) => a + e.gzipBytes, 0),
            requests: byPath,
          };
        }
      } finally {
        await browser.close();
      }
    }
    report('firstChartMs', {
      median: round(median(firsts)),
      all: firsts.map((x) => round(x)),
      phases,
      budget: 1000,
    });
    report('transferGzipBytes', {
      total: transfer.totalGzipBytesExclFonts,
      fontsExcluded: transfer.fontGzipBytes,
      budget: 300 * 1024,
      requests: transfer.requests,
    });
  }

  if (only.has('sweeps')) {
    // --- fresh load → every panel complete, at T = 256 and T = 2048 (cold browser each time) ---
    const sweeps = {};
    for (const [T, n, budget] of [
      [256, runs, 600],
      [2048, Math.max(1, Math.min(runs, 3)), 4000],
    ]) {
      const times = [];
      for (let i = 0; i < n; i++) {
        const browser = await launchBrowser();
        try {
          const page = await browser.newPage({ width: 1280, height: 900 });
          await page.addInitScript(RECORD_COMPLETE);
          await page.goto(`${server.url}?seqLen=${T}${extraQuery}`);
          await page.waitForFunction(() => window.__allCompleteAt !== undefined, null, {
            timeout: 180000,
            polling: 250,
          });
          times.push(await page.evaluate(() => window.__allCompleteAt));
        } finally {
          await browser.close();
        }
      }
      sweeps[`T${T}`] = { median: round(median(times)), all: times.map((x) => round(x)), budget };
    }
    report('sweepsCompleteMs', sweeps);
  }

  if (only.has('slider')) {
    // --- d_k change → screen ---
    const browser = await launchBrowser();
    try {
      const page = await browser.newPage({ width: 1280, height: 900 });
      await page.goto(`${server.url}?seqLen=256&dk=64${extraQuery}`);
      await waitComplete(page);
      report('dkChangeMs', await measureSliderMoves(page));
      out.engine = await page.evaluate(() => document.getElementById('engine-info')?.textContent);
    } finally {
      await browser.close();
    }
  }

  if (only.has('during')) {
    // --- a change that restarts the sweep, while a T = 2048 sweep runs ---
    const browser = await launchBrowser();
    try {
      const page = await browser.newPage({ width: 1280, height: 900 });
      await page.goto(`${server.url}?seqLen=2048&dk=64${extraQuery}`);
      await page.waitForFunction(
        () => Number(document.getElementById('app')?.dataset.sweepRequests) >= 1,
        null,
        { timeout: 120000 },
      );
      const samples = [];
      for (const mean of [0.1, 0.2, 0.3, 0.4, 0.5]) {
        await page.waitForTimeout(700); // well into the sweep of the previous setting
        samples.push(
          await page.evaluate(async (m) => {
            const root = document.getElementById('app');
            const slider = document.querySelector('[data-field="mean"] input[type="range"]');
            const sigma = document.querySelector('[data-panel="sigma"]');
            const t0 = performance.now();
            const afterFrame = () =>
              new Promise((r) => {
                requestAnimationFrame(() => r(performance.now() - t0));
              });
            const result = new Promise((resolve) => {
              const mo = new MutationObserver(() => {
                if (new URLSearchParams(root.dataset.resultQuery).get('mean') === String(m)) {
                  mo.disconnect();
                  resolve(afterFrame());
                }
              });
              mo.observe(root, { attributes: true, attributeFilter: ['data-result-query'] });
            });
            // The first point of the new sweep: the sigma panel's stale mark goes away.
            const sweepPoint = new Promise((resolve) => {
              let restarted = false;
              const mo = new MutationObserver(() => {
                if (sigma.classList.contains('is-stale')) restarted = true;
                else if (restarted) {
                  mo.disconnect();
                  resolve(afterFrame());
                }
              });
              mo.observe(sigma, { attributes: true, attributeFilter: ['class'] });
            });
            slider.value = String(m);
            slider.dispatchEvent(new Event('input', { bubbles: true }));
            // Capped at 60 s (the old algorithm finishes its whole point first: seconds at T = 2048).
            const cap = (p) =>
              Promise.race([
                p,
                new Promise((r) => {
                  setTimeout(() => r(Infinity), 60000);
                }),
              ]);
            const [resultMs, firstPointMs] = await Promise.all([cap(result), cap(sweepPoint)]);
            const t = (root.dataset.sweepTiming ?? 'NaN,NaN').split(',').map(Number);
            return { resultMs, firstPointMs, staleWorkMs: t[1] - t[0] };
          }, mean),
        );
      }
      const col = (k) => samples.map((x) => x[k]);
      report('duringSweepMs', {
        seqLen: 2048,
        inputToResultFrame: {
          median: round(median(col('resultMs'))),
          max: round(Math.max(...col('resultMs'))),
          budget: 150,
        },
        inputToFirstNewSweepPoint: {
          median: round(median(col('firstPointMs'))),
          max: round(Math.max(...col('firstPointMs'))),
        },
        staleSweepWorkAfterRequest: {
          median: round(median(col('staleWorkMs'))),
          max: round(Math.max(...col('staleWorkMs'))),
          budget: 50,
        },
        samples: samples.length,
      });
    } finally {
      await browser.close();
    }
  }
  if (phone) {
    // --- a slow phone: 360 × 760, touch, the CPU throttled 4× ---
    const throttled = async (browser) => {
      const page = await browser.newPage({ phone: true });
      const cdp = await page.context().newCDPSession(page);
      await cdp.send('Emulation.setCPUThrottlingRate', { rate: 4 });
      return page;
    };
    const firsts = [];
    for (let i = 0; i < runs; i++) {
      const browser = await launchBrowser();
      try {
        const page = await throttled(browser);
        await page.goto(`${server.url}?${extraQuery}`);
        firsts.push(await firstChartAt(page, 120000));
      } finally {
        await browser.close();
      }
    }
    report('phoneFirstChartMs', {
      median: round(median(firsts)),
      all: firsts.map((x) => round(x)),
      budget: 2500,
    });

    const browser = await launchBrowser();
    try {
      const page = await throttled(browser);
      await page.goto(`${server.url}?seqLen=256&dk=64${extraQuery}`);
      await waitComplete(page);
      const times = [];
      for (const stop of [7, 8, 9, 8, 7, 6, 5, 4, 5, 6, 7, 8, 9, 7, 5, 3, 5, 7, 9, 6]) {
        times.push(
          await page.evaluate(async (s) => {
            const slider = document.querySelector('[data-dock] input[type="range"][name="dk"]');
            const root = document.getElementById('app');
            const dk = String(2 ** s);
            await new Promise((r) => {
              setTimeout(r, 200);
            }); // idle between moves, like a reader
            const t0 = performance.now();
            const shown = new Promise((resolve) => {
              const mo = new MutationObserver(() => {
                const query = root.dataset.forwardQuery ?? root.dataset.resultQuery;
                if (new URLSearchParams(query).get('dk') !== dk) return;
                mo.disconnect();
                requestAnimationFrame(() => resolve(performance.now() - t0));
              });
              mo.observe(root, {
                attributes: true,
                attributeFilter: ['data-forward-query', 'data-result-query'],
              });
            });
            slider.value = String(s);
            slider.dispatchEvent(new Event('input', { bubbles: true }));
            return shown;
          }, stop),
        );
      }
      report('phoneDockDkMs', {
        median: round(median(times)),
        p90: round(pct(times, 0.9)),
        max: round(Math.max(...times)),
        samples: times.length,
        seqLen: 256,
        budget: { median: 100 },
      });
    } finally {
      await browser.close();
    }
  }
  if (only.has('loads')) {
    // --- cold loads timed to the sweep charts, side by side with --before DIR if given ---
    const before = arg('--before') ? await startServer({ root: arg('--before') }) : null;
    try {
      report(
        'sweepLoadsMs',
        await measureSweepLoads({
          builds: { current: server.url, ...(before ? { before: before.url } : {}) },
          seqLens: [256, 2048],
          runs: loadRuns,
          query: extraQuery,
        }),
      );
    } finally {
      await before?.close();
    }
  }
} finally {
  await server.close();
}
console.log(JSON.stringify(out, null, 2));
