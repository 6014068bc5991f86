// The set-up the embed tests share: a copy of dist/ served three ways (with CORS, as a CDN or a
// static host that allows embedding serves it; under the strict CSP; and a host page's origin of its
// own), one Chromium for the file, and the helpers that read a component's or a frame's state.
// useEmbedSites() registers the file's before/after hooks and returns the servers, the folders and
// open(url), filled in once before() has run.
import { before, after } from 'node:test';
import { access, cp, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer, repoRoot } from './serve-dist.js';
import { launchBrowser, watchErrors } from './browser.js';

export const OUT = join(repoRoot, 'tests', 'output');
export const DIST = join(repoRoot, 'dist');
export const STRICT_CSP =
  "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'; worker-src 'self' blob:";
export const HOSTILE_CSS =
  '* { color: red !important; font-size: 40px } canvas { display: none } div { padding: 30px; border: 3px solid lime }';
export const NO_FAVICON = '<link rel="icon" href="data:,">';

/** → { tmp, site, hostDir, dist, host, csp, browser, open(url, opts) } (see the file's comment). */
export function useEmbedSites() {
  const s = {
    /** Opens a page; console errors and page errors are collected (a data: favicon avoids a 404). */
    async open(url, opts = {}) {
      const page = await s.browser.newPage({ reducedMotion: 'reduce', ...opts });
      const errors = watchErrors(page);
      await page.goto(url);
      return { page, errors };
    },
  };
  before(async () => {
    await access(join(DIST, 'attn-scale-demo.js')).catch(() => {
      throw new Error('dist/ is missing or old: run `npm run build` first');
    });
    await mkdir(OUT, { recursive: true });
    s.tmp = await mkdtemp(join(tmpdir(), 'attnscale-embed-'));
    // The site: a copy of dist/ plus same-origin fixtures; the host: another origin.
    s.site = join(s.tmp, 'site');
    s.hostDir = join(s.tmp, 'host');
    await cp(DIST, s.site, { recursive: true });
    await mkdir(s.hostDir);
    // Cross-origin module scripts need CORS, as on any CDN or static host that allows embedding.
    s.dist = await startServer({ root: s.site, headers: { 'access-control-allow-origin': '*' } });
    s.host = await startServer({ root: s.hostDir });
    s.csp = await startServer({ root: s.site, headers: { 'content-security-policy': STRICT_CSP } });
    s.browser = await launchBrowser();
  });
  after(async () => {
    await s.browser?.close();
    await Promise.all([s.dist?.close(), s.host?.close(), s.csp?.close()]);
    if (s.tmp) await rm(s.tmp, { recursive: true, force: true });
  });
  return s;
}

/** Wait until no panel of any element is still receiving sweep points. */
export const waitForDemoSweeps = (page) =>
  page.waitForFunction(
    () =>
      [...document.querySelectorAll('attn-scale-demo')].every((el) =>
        [...el.shadowRoot.querySelectorAll('[data-panel]')].every(
          (p) => !p.classList.contains('is-stale') && !p.querySelector('.panel-status')?.textContent,
        ),
      ),
    null,
    { timeout: 120000, polling: 200 },
  );

export { canvasColours } from './browser.js';

export const demoStat = async (page, id, name) =>
  parseFloat(await page.locator(`#${id} [data-stat="${name}"]`).first().textContent());
export const demoQuery = (page, id) =>
  page.evaluate(
    (i) => document.getElementById(i).shadowRoot.querySelector('.as-root').dataset.resultQuery,
    id,
  );
/** Wait until the element's last result was computed for a config matching `re`. */
export const waitDemoQuery = (page, id, re) =>
  page.waitForFunction(
    ([i, src]) =>
      new RegExp(src).test(
        document.getElementById(i).shadowRoot.querySelector('.as-root').dataset.resultQuery ?? '',
      ),
    [id, re.source],
    { timeout: 60000 },
  );

/** In the frame (self-contained): every panel drawn and complete, so the content's height is final. */
export const frameSettled = () =>
  document.getElementById('app')?.dataset.state === 'ready' &&
  [...document.querySelectorAll('[data-panel]')].every(
    (p) =>
      p.dataset.drawn === 'true' &&
      !p.classList.contains('is-stale') &&
      !p.querySelector('.panel-status')?.textContent,
  );

/** The frame's content height, as embed.js measures it before it posts it. */
export const contentHeight = () => Math.ceil(document.documentElement.getBoundingClientRect().height);

/**
 * Waits until the iframe #f has nothing left to draw and its fonts are in, then until the host has
 * sized #f to that content height (and, with `posted`, until the last height the frame posted is
 * that one), and then checks that the content height is still the same: a late change (a font, a
 * resize) starts the wait over. Reading the two sides while the frame still changes would compare
 * two different moments. Returns { height, content, posted, sized } from the last, stable round.
 */
export async function waitFrameSized(page, frame, { posted = false, timeout = 120000 } = {}) {
  const until = Date.now() + timeout;
  let last;
  for (;;) {
    const left = Math.max(1000, until - Date.now());
    await frame.waitForFunction(`(${frameSettled})() && document.fonts.status === 'loaded'`, null, {
      timeout: left,
      polling: 200,
    });
    const height = await frame.evaluate(contentHeight);
    const matched = await page
      .waitForFunction(
        ([h, checkPosted]) =>
          document.getElementById('f').clientHeight === h && (!checkPosted || window.__heights.at(-1) === h),
        [height, posted],
        { timeout: Math.min(left, 10000), polling: 100 },
      )
      .then(
        () => true,
        () => false,
      );
    const host = await page.evaluate(() => ({
      sized: document.getElementById('f').clientHeight,
      posted: window.__heights?.at(-1),
    }));
    last = { height, content: await frame.evaluate(contentHeight), ...host };
    if (matched && last.content === height) return last;
    if (Date.now() > until) throw new Error(`the frame's height did not settle: ${JSON.stringify(last)}`);
  }
}

export const LISTENER = `window.__heights = [];
addEventListener('message', (e) => { if (e.data?.type === 'attnscale:height') { window.__heights.push(e.data.height); for (const f of document.querySelectorAll('iframe')) if (f.contentWindow === e.source) f.style.height = e.data.height + 'px'; } });`;
