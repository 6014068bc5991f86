// The GIF button of the built page (dist/) in headless Debian chromium: from the click to the file
// handed to the browser (the download link's click), for 13 frames at T = 256 (the default), and
// the page's main-thread tasks meanwhile (PerformanceObserver 'longtask': every task over 50 ms).
// Each run clicks the button again on the same page; the first click of a page also loads the
// exporter's code. Not a test: numbers for docs/performance.md (target: ≤ 3 s, no task over 50 ms).
//   node tests/bench/gif-export.mjs [--runs 5] [--panels spread,heatmap,sigma,gradients] [--query 'seqLen=256']
import { startServer } from '../e2e/support/serve-dist.js';
import { launchBrowser, waitForApp } from '../e2e/support/browser.js';
import { parseGif } from '../e2e/support/gif-file.js';
import { median, round } from '../../build-scripts/lib/measure/stats.mjs';

const arg = (name, fallback) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : fallback;
};
const runs = Number(arg('--runs', 5)) || 5;
const panels = arg('--panels', 'spread,heatmap,sigma,gradients').split(',');
const query = arg('--query', 'seqLen=256');

// Before the page's scripts: long tasks, and the time of each GIF's download link click.
const RECORD = `(() => {
  window.__longTasks = [];
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) window.__longTasks.push({ start: e.startTime, ms: e.duration });
  }).observe({ type: 'longtask', buffered: true });
  window.__gifSaved = [];
  const click = HTMLAnchorElement.prototype.click;
  HTMLAnchorElement.prototype.click = function () {
    if (this.download.endsWith('.gif')) window.__gifSaved.push(performance.now());
    return click.call(this);
  };
})();`;

const server = await startServer();
const browser = await launchBrowser();
const out = { date: new Date().toISOString(), query, runs, panels: {} };
try {
  const page = await browser.newPage({ width: 1280, height: 900 });
  await page.addInitScript(RECORD);
  await page.goto(`${server.url}?${query}`);
  await waitForApp(page, { timeout: 180000 });
  for (const name of panels) {
    const times = [];
    let longest = 0;
    let longCount = 0;
    let size = 0;
    for (let r = 0; r < runs; r++) {
      const [download, start] = await Promise.all([
        page.waitForEvent('download', { timeout: 120000 }),
        page.evaluate((n) => {
          const t = performance.now();
          [...document.querySelectorAll(`[data-panel="${n}"] .panel-actions button`)]
            .find((b) => b.textContent === 'GIF')
            .click();
          return t;
        }, name),
      ]);
      const bytes = new Uint8Array(await (await download.createReadStream()).toArray().then(Buffer.concat));
      const gif = parseGif(bytes);
      if (gif.frames.length !== 13) throw new Error(`${name}: ${gif.frames.length} frames`);
      size = bytes.length;
      const { saved, tasks } = await page.evaluate(
        (t0) => ({
          saved: window.__gifSaved.at(-1),
          tasks: window.__longTasks.filter((e) => e.start >= t0 - 1),
        }),
        start,
      );
      times.push(saved - start);
      longCount += tasks.length;
      longest = Math.max(longest, ...tasks.map((e) => e.ms));
      // The button is back to "GIF" once the file is out: the next run may start.
      await page.waitForFunction((n) => !document.querySelector(`[data-panel="${n}"] [aria-disabled]`), name);
      process.stderr.write(
        `${name} run ${r + 1}: ${Math.round(times.at(-1))} ms, ${tasks.length} long tasks\n`,
      );
    }
    out.panels[name] = {
      medianMs: round(median(times)),
      allMs: times.map((t) => Math.round(t)),
      firstClickMs: Math.round(times[0]),
      longTasksOver50ms: longCount,
      longestTaskMs: round(longest),
      gifBytes: size,
    };
  }
} finally {
  await browser.close();
  await server.close?.();
}
console.log(JSON.stringify(out, null, 2));
