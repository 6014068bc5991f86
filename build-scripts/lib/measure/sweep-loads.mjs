// Cold loads of the page, timed to its sweep charts (measure-budgets.mjs --only loads): for each
// T, a fresh browser per load, alternating between this build and an earlier one (--before DIR),
// so that both meet the same machine load. Times are from navigation start (performance.now):
//   drawnMs    every sweep panel (σ, entropy, gradients) has every point drawn, as estimate or
//              exact (data-points-drawn = data-points-total). The gradient panel's ∂L/∂Q, ∂L/∂K and
//              median Jacobian are exact-only, so "drawn" there means its estimable curves.
//   exactMs    every sweep panel shows exact points only, all of them (data-sweep="exact")
//   completeMs every panel of the setting complete (the sweeps, the precision variants, …)
// A build without these attributes (an earlier one) counts a panel drawn and exact once it is
// complete: its status line empty and no stale mark.
import { launchBrowser } from '../../../tests/e2e/support/browser.js';
import { median } from './stats.mjs';

const SWEEP_PANELS = ['sigma', 'entropy', 'gradients'];
const LATER = ['schemes', 'length', 'thresholds'];

// Runs in the page, at every DOM change: records the first time each condition holds.
function recorder(sweepPanels, later) {
  const at = {};
  window.__loadTimes = at;
  const complete = (p) => !p.classList.contains('is-stale') && !p.querySelector('.panel-status')?.textContent;
  const check = () => {
    const app = document.getElementById('app');
    if (app?.dataset.state !== 'ready' || !(Number(app.dataset.sweepRequests) >= 1)) return;
    const sweeps = sweepPanels.map((n) => document.querySelector(`[data-panel="${n}"]`));
    if (sweeps.some((p) => !p)) return;
    const full = (p) =>
      p.dataset.pointsTotal
        ? Number(p.dataset.pointsTotal) > 0 && p.dataset.pointsDrawn === p.dataset.pointsTotal
        : complete(p);
    const t = performance.now();
    if (at.drawnMs === undefined && sweeps.every(full)) at.drawnMs = t;
    if (at.exactMs === undefined && sweeps.every((p) => full(p) && (p.dataset.sweep ?? 'exact') === 'exact'))
      at.exactMs = t;
    if (
      at.completeMs === undefined &&
      [...document.querySelectorAll('[data-panel]')]
        .filter((p) => !later.includes(p.dataset.panel))
        .every(complete)
    )
      at.completeMs = t;
  };
  addEventListener('DOMContentLoaded', () =>
    new MutationObserver(check).observe(document.body, {
      subtree: true,
      childList: true,
      attributes: true,
      characterData: true,
    }),
  );
}

/** One cold load of `url`: its three times, in ms. */
async function load(url) {
  const browser = await launchBrowser();
  try {
    const page = await browser.newPage({ width: 1280, height: 900 });
    await page.addInitScript(
      `(${recorder.toString()})(${JSON.stringify(SWEEP_PANELS)}, ${JSON.stringify(LATER)})`,
    );
    await page.goto(url);
    await page.waitForFunction(
      () => window.__loadTimes?.completeMs !== undefined && window.__loadTimes?.exactMs !== undefined,
      null,
      {
        timeout: 180000,
        polling: 250,
      },
    );
    return await page.evaluate(() => ({ ...window.__loadTimes }));
  } finally {
    await browser.close();
  }
}

/**
 * measureSweepLoads({ builds: { name: baseUrl }, seqLens, runs, query }) → { T<seqLen>: { name:
 * { drawnMs, exactMs, completeMs: { median, all } } } }, the builds' loads interleaved.
 */
export async function measureSweepLoads({ builds, seqLens, runs, query = '' }) {
  const out = {};
  for (const T of seqLens) {
    const all = Object.fromEntries(Object.keys(builds).map((b) => [b, []]));
    for (let i = 0; i < runs; i++)
      for (const [name, base] of Object.entries(builds))
        all[name].push(await load(`${base}?seqLen=${T}${query}`));
    out[`T${T}`] = Object.fromEntries(
      Object.entries(all).map(([name, loads]) => [
        name,
        Object.fromEntries(
          ['drawnMs', 'exactMs', 'completeMs'].map((k) => {
            const xs = loads.map((l) => Math.round(l[k]));
            return [k, { median: median(xs), all: xs }];
          }),
        ),
      ]),
    );
  }
  return out;
}
