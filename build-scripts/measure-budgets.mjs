#!/usr/bin/env node
// Measures the page's budgets (issue 4) on localhost in headless Debian chromium and prints JSON.
// Not a test: numbers for the README. Needs a built dist/ (npm run build:web).
//   firstChartMs      navigation start → first chart drawn with engine data (median of N cold loads)
//   transferGzipBytes everything the page transfers on a cold load, gzip, fonts excluded
//   dkChangeMs        d_k slider input → the frame showing the new result, T = 256, d_k ≤ 512
// Budgets: firstChartMs ≤ 1000, transferGzipBytes ≤ 300 KB, dkChangeMs ≤ 50.
//   node build-scripts/measure-budgets.mjs [--runs 5]
import { startServer } from '../tests/e2e/serve-dist.js';
import { launchBrowser } from '../tests/e2e/browser.js';

const runs = Number(process.argv[process.argv.indexOf('--runs') + 1]) || 5;
const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2; };
const pct = (xs, p) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.floor(p * s.length))]; };
const round = (x, d = 1) => Math.round(x * 10 ** d) / 10 ** d;

const server = await startServer();
const out = { date: new Date().toISOString(), url: server.url, runs };
try {
  // --- first chart + transfer: a fresh browser profile per load, so nothing is cached ---
  const firsts = [];
  const phases = [];
  let transfer = null;
  for (let i = 0; i < runs; i++) {
    const browser = await launchBrowser();
    try {
      const page = await browser.newPage({ width: 1280, height: 900 });
      const logStart = server.log.length;
      await page.goto(server.url);
      await page.waitForFunction(() => performance.getEntriesByName('attnscale:first-chart').length > 0, null, { timeout: 60000 });
      firsts.push(await page.evaluate(() => performance.getEntriesByName('attnscale:first-chart')[0].startTime));
      phases.push(await page.evaluate(() => Object.fromEntries(['main-start', 'engine-ready', 'first-result', 'first-chart']
        .map((n) => [n, Math.round(performance.getEntriesByName(`attnscale:${n}`)[0]?.startTime ?? NaN)])
        .concat([['workerBoot', Number(document.getElementById('app').dataset.engineBootMs)]]))));
      if (i === 0) {
        // Let every sweep and variant finish, then count every response of this load.
        await page.waitForFunction(() => document.getElementById('app')?.dataset.state === 'ready', null, { timeout: 60000 });
        await page.waitForFunction(() => [...document.querySelectorAll('[data-panel]')].every((p) =>
          !p.classList.contains('is-stale') && !p.querySelector('.panel-status')?.textContent), null, { timeout: 120000, polling: 250 });
        await page.waitForTimeout(500);
        const entries = server.log.slice(logStart);
        const isFont = (e) => /\.(woff2?|ttf|otf)$/.test(e.path);
        const byPath = entries.map((e) => ({ path: e.path, gzipBytes: e.bytes, rawBytes: e.raw, font: isFont(e) }));
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
  out.firstChartMs = { median: round(median(firsts)), all: firsts.map((x) => round(x)), phases, budget: 1000 };
  out.transferGzipBytes = { total: transfer.totalGzipBytesExclFonts, fontsExcluded: transfer.fontGzipBytes, budget: 300 * 1024, requests: transfer.requests };

  // --- d_k change → screen ---
  const browser = await launchBrowser();
  try {
    const page = await browser.newPage({ width: 1280, height: 900 });
    await page.goto(`${server.url}?seqLen=256&dk=64`);
    await page.waitForFunction(() => document.getElementById('app')?.dataset.state === 'ready', null, { timeout: 60000 });
    await page.waitForFunction(() => [...document.querySelectorAll('[data-panel]')].every((p) =>
      !p.classList.contains('is-stale') && !p.querySelector('.panel-status')?.textContent), null, { timeout: 120000, polling: 250 });
    // Slider stops: index 0 → d_k 1 … 9 → 512.
    const sequence = [7, 8, 9, 8, 7, 6, 5, 6, 7, 8, 9, 9 - 1, 6, 4, 2, 0, 3, 6, 9, 7, 8, 9, 6, 7];
    const samples = [];
    for (const stop of sequence) {
      const ms = await page.evaluate(async (s) => {
        const slider = document.querySelector('[data-field="dk"] input[type="range"]');
        const root = document.getElementById('app');
        const dk = 2 ** s;
        if (new URLSearchParams(root.dataset.resultQuery).get('dk') === String(dk)) return null;
        await new Promise((r) => setTimeout(r, 120)); // idle between moves, like a reader
        const t0 = performance.now();
        const shown = new Promise((resolve) => {
          const mo = new MutationObserver(() => {
            if (new URLSearchParams(root.dataset.resultQuery).get('dk') === String(dk)) {
              mo.disconnect();
              // The charts were updated synchronously; the next frame puts them on screen.
              const upd = Number(root.dataset.updateMs), work = Number(root.dataset.workerMs);
              const [toWorker, inWorker, fromWorker, sentAt] = (root.dataset.timing ?? 'NaN,NaN,NaN,NaN').split(',').map(Number);
              const shownAt = performance.now();
              requestAnimationFrame(() => resolve({ total: performance.now() - t0, worker: work, update: upd, toWorker, inWorker, fromWorker,
                beforeSend: sentAt - (performance.timeOrigin + t0), toFrame: performance.now() - shownAt }));
            }
          });
          mo.observe(root, { attributes: true, attributeFilter: ['data-result-query'] });
        });
        slider.value = String(s);
        slider.dispatchEvent(new Event('input', { bubbles: true }));
        return shown;
      }, stop);
      if (ms !== null) samples.push(ms);
    }
    const col = (k) => samples.map((x) => x[k]);
    if (process.env.BUDGET_DEBUG) console.error(samples.map((x) => Object.values(x).map((v) => round(v)).join(" ")).join("\n"));
    out.dkChangeMs = {
      median: round(median(col('total'))), p90: round(pct(col('total'), 0.9)), max: round(Math.max(...col('total'))),
      workerComputeMedian: round(median(col('worker'))), mainThreadUpdateMedian: round(median(col('update'))),
      messageToWorkerMedian: round(median(col('toWorker'))), messageFromWorkerMedian: round(median(col('fromWorker'))),
      inputToSendMedian: round(median(col('beforeSend'))), resultToFrameMedian: round(median(col('toFrame'))),
      samples: samples.length, seqLen: 256, dkRange: '1..512', budget: 50,
    };
    out.engine = await page.evaluate(() => document.getElementById('engine-info')?.textContent);
  } finally {
    await browser.close();
  }
} finally {
  await server.close();
}
console.log(JSON.stringify(out, null, 2));
