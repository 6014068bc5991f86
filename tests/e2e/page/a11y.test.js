// Accessibility, in headless Debian chromium: axe-core on the main page, the
// embed page and a page hosting <attn-scale-demo>, in the light and the dark theme (no violation of
// serious or critical impact); and every chart's text alternative: each chart image (role="img")
// has a name and is described by a short summary of what it shows now, which follows the state,
// and one polite live region announces it once a change settles.
// Screenshots: tests/output/a11y-dark-page.png, a11y-dark-embed.png, a11y-dark-component.png.
import { before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import { access, cp, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer, repoRoot } from '../support/serve-dist.js';
import { launchBrowser, watchErrors, waitForApp, axeAudit as audit, test } from '../support/browser.js';

const OUT = join(repoRoot, 'tests', 'output');
const ALL_PANELS = 'spread,sigma,entropy,gradients,heatmap,precision,training';

let tmp, server, browser;

// --- functions that run in the page (self-contained: they are sent as source) ---
/** True when no CSS transition or animation runs anywhere in the page, shadow roots included. */
const noTransitionRunning = () => document.getAnimations().every((a) => a.playState !== 'running');
/** The background colour of each <attn-scale-demo>'s root. */
const componentBackgrounds = () =>
  [...document.querySelectorAll('attn-scale-demo')].map(
    (el) => getComputedStyle(el.shadowRoot.querySelector('.as-root')).backgroundColor,
  );
/** True once every element's background differs from `before` and no transition runs. */
const componentsRecoloured = (before) =>
  [...document.querySelectorAll('attn-scale-demo')].every(
    (el, i) => getComputedStyle(el.shadowRoot.querySelector('.as-root')).backgroundColor !== before[i],
  ) && document.getAnimations().every((a) => a.playState !== 'running');

before(async () => {
  await access(join(repoRoot, 'dist', 'attn-scale-demo.js')).catch(() => {
    throw new Error('dist/ is missing: run `npm run build` first');
  });
  await mkdir(OUT, { recursive: true });
  tmp = await mkdtemp(join(tmpdir(), 'attnscale-a11y-'));
  await cp(join(repoRoot, 'dist'), tmp, { recursive: true });
  // An ordinary, accessible host page, so that what axe finds is the component's.
  await writeFile(
    join(tmp, 'host.html'),
    `<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><link rel="icon" href="data:,"><title>A post with a demo</title>
<script type="module" src="./attn-scale-demo.js"></script></head><body><main><h1>Why scale attention?</h1>
<p>A paragraph of the host's own text.</p><h2>Try it</h2>
<attn-scale-demo id="one" panel="spread,entropy,heatmap" controls="all" dk="128" scale="none"></attn-scale-demo>
<attn-scale-demo id="two" panel="sigma,gradients,precision" controls="dk,scale,precision"></attn-scale-demo>
</main></body></html>`,
  );
  server = await startServer({ root: tmp });
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await server?.close();
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

async function open(path, opts = {}) {
  const page = await browser.newPage({ reducedMotion: 'reduce', ...opts });
  const errors = watchErrors(page);
  await page.goto(server.url + path);
  return { page, errors };
}

async function waitForDemos(page) {
  await page.waitForFunction(
    () =>
      [...document.querySelectorAll('attn-scale-demo')].every((el) => {
        const root = el.shadowRoot?.querySelector('.as-root');
        const panels = [...(root?.querySelectorAll('[data-panel]') ?? [])];
        return (
          root?.dataset.state === 'ready' &&
          panels.length &&
          panels.every(
            (p) =>
              p.dataset.drawn === 'true' &&
              !p.classList.contains('is-stale') &&
              !p.querySelector('.panel-status')?.textContent,
          )
        );
      }),
    null,
    { timeout: 90000, polling: 200 },
  );
}

/** axe-core's serious and critical violations (axe walks open shadow roots itself). */
/** Every chart image under `rootSel` (light DOM or the shadow roots of `hostSel`): name + description. */
const chartAlternatives = (page, hostSel = null) =>
  page.evaluate((hs) => {
    const roots = hs ? [...document.querySelectorAll(hs)].map((e) => e.shadowRoot) : [document];
    const out = [];
    for (const root of roots) {
      for (const panel of root.querySelectorAll('[data-panel]')) {
        for (const chart of panel.querySelectorAll('[role="img"]')) {
          const ids = (chart.getAttribute('aria-describedby') ?? '').split(/\s+/).filter(Boolean);
          out.push({
            panel: panel.dataset.panel,
            name: chart.getAttribute('aria-label') ?? '',
            description: ids
              .map((id) => root.getElementById(id)?.textContent ?? '')
              .join(' ')
              .trim(),
          });
        }
      }
    }
    return out;
  }, hostSel);

describe('accessibility', () => {
  test('axe: the main page in the light theme and in the dark theme (toggle), no serious or critical violation', async () => {
    const { page, errors } = await open('', { colorScheme: 'light' });
    await waitForApp(page);
    assert.deepEqual(await audit(page), [], 'light');
    await page.locator('#theme-toggle').click();
    assert.equal(await page.evaluate(() => document.documentElement.dataset.theme), 'dark');
    await page.waitForFunction(noTransitionRunning); // axe reads the colours as computed now
    assert.deepEqual(await audit(page), [], 'dark (toggle)');
    await page.screenshot({ path: join(OUT, 'a11y-dark-page.png') });
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('axe: embed.html with every panel and every control, light and dark (system)', async () => {
    for (const colorScheme of ['light', 'dark']) {
      const { page, errors } = await open(`embed.html?panel=${ALL_PANELS}&controls=all&dk=128&scale=none`, {
        colorScheme,
        width: 900,
      });
      await waitForApp(page);
      assert.deepEqual(await audit(page), [], colorScheme);
      if (colorScheme === 'dark') await page.screenshot({ path: join(OUT, 'a11y-dark-embed.png') });
      assert.deepEqual(errors, []);
      await page.close();
    }
  });

  test('axe: a host page with two <attn-scale-demo>, light and dark (system and theme attribute)', async () => {
    for (const colorScheme of ['light', 'dark']) {
      const { page, errors } = await open('host.html', { colorScheme, width: 1000 });
      await waitForDemos(page);
      assert.deepEqual(await audit(page), [], colorScheme);
      if (colorScheme === 'light') {
        // theme="dark" on a light page: the element's own dark theme.
        const lightBackgrounds = await page.evaluate(componentBackgrounds);
        await page.evaluate(() => {
          for (const el of document.querySelectorAll('attn-scale-demo')) el.setAttribute('theme', 'dark');
        });
        // Each element has taken its dark colours, and no transition is still on its way there.
        await page.waitForFunction(componentsRecoloured, lightBackgrounds);
        assert.deepEqual(await audit(page), [], 'theme="dark" on a light page');
        await page.locator('#one').screenshot({ path: join(OUT, 'a11y-dark-component.png') });
      }
      const alts = await chartAlternatives(page, 'attn-scale-demo');
      assert.ok(alts.length >= 6);
      for (const a of alts) assert.ok(a.name && a.description, `${a.panel}: ${JSON.stringify(a)}`);
      assert.deepEqual(errors, []);
      await page.close();
    }
  });

  test('every chart has a text alternative that follows the state, and one live summary', async () => {
    const { page, errors } = await open('?dk=128&scale=none');
    await waitForApp(page, { chapter8: true });
    const alts = await chartAlternatives(page);
    const panels = new Set(alts.map((a) => a.panel));
    for (const p of ['spread', 'sigma', 'entropy', 'gradients', 'heatmap', 'precision'])
      assert.ok(panels.has(p), `${p} has a chart image`);
    for (const a of alts.filter((x) => x.panel !== 'training')) {
      assert.ok(a.name.length > 10, `${a.panel}: name`);
      assert.ok(a.description.length > 20, `${a.panel}: described by a summary (${a.description})`);
    }
    const summary = (name) => page.locator(`[data-panel="${name}"] [data-panel-summary]`).textContent();
    assert.match(await summary('spread'), /d_k = 128.*σ of the raw logits 11\.\d /);
    assert.match(
      await summary('sigma'),
      /σ of the logits fed to the softmax: 11\.\d at d_k = 128 with scaling none\. At d_k = 4096: none 6\d\.?\d*, 1\/√d_k (0\.9|1\.0)\d*, 1\/d_k 0\.01/,
    );
    assert.match(
      await summary('entropy'),
      /at d_k = 128 with scaling none; 2\d(\.\d+)?% of rows saturated\. Saturated rows at d_k = 4096: none [5-9]\d/,
    );
    assert.match(await summary('gradients'), /median row/);
    assert.match(await summary('heatmap'), /256 × 256, at d_k = 128/);
    assert.match(
      await summary('precision'),
      /fp32.*non-finite values logits 0, exp 0, weights 0, output 0; every value stays finite/,
    );
    // One polite live region says what the charts show once the change settles.
    const live = page.locator('[data-live-summary]');
    assert.equal(await live.getAttribute('aria-live'), 'polite');
    await page.waitForFunction(() =>
      /d_k = 128/.test(document.querySelector('[data-live-summary]').textContent),
    );
    // A keyboard change moves the summaries (and, after it settles, the announcement).
    await page.locator('[data-field="dk"] input[type="range"]').focus();
    await page.keyboard.press('ArrowRight');
    await page.waitForFunction(() =>
      /d_k = 256.*σ of the raw logits 1[56](\.\d+)? /.test(
        document.querySelector('[data-panel="spread"] [data-panel-summary]').textContent,
      ),
    );
    await page.waitForFunction(
      () => /d_k = 256/.test(document.querySelector('[data-live-summary]').textContent),
      null,
      { timeout: 60000 },
    );
    // fp16 without max subtraction: the precision summary names the broken stage.
    await page.evaluate(() => {
      history.pushState(null, '', '?dk=128&scale=none&precision=fp16&subtractMax=false');
      dispatchEvent(new PopStateEvent('popstate'));
    });
    await page.waitForFunction(() =>
      /first broken stage: exp/.test(
        document.querySelector('[data-panel="precision"] [data-panel-summary]').textContent,
      ),
    );
    assert.deepEqual(errors, []);
    await page.close();
  });
});
