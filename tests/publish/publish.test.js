// attnscale's charts where blog authors publish: a real Hugo, Jekyll, VitePress, Astro (MDX) and
// MkDocs site, each built from a post that uses the shipped integration (web/integrations/) or,
// where Markdown takes raw HTML, the pasted element. The charts' files come from a second origin
// serving dist/ with CORS, as a CDN serves them. In headless Chromium each post's two charts must
// draw the config their attributes ask for (the readouts the engine gives for it in Node), with one
// module script on the page; a parameter that holds quotes, > or <script> must stay inside its
// attribute. Needs a built dist/ (npm run build) and the engines (bash tests/publish/setup.sh).
import { after, before, describe } from 'node:test';
import assert from 'node:assert/strict';
import { access, cp, mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { launchBrowser, test, waitForDemos, watchErrors } from '../e2e/support/browser.js';
import { startServer, repoRoot } from '../e2e/support/serve-dist.js';
import { waitForDemoSweeps } from '../e2e/support/embed-sites.js';
import { CHARTS, HOSTILE, NODE_MODULES, POST_TEXT, fullPageHref, run } from './sites/common.js';
import { expected } from './expected.js';
import * as hugo from './sites/hugo.js';
import * as jekyll from './sites/jekyll.js';
import * as vitepress from './sites/vitepress.js';
import * as astro from './sites/astro.js';
import * as mkdocs from './sites/mkdocs.js';

const ENGINES = [hugo, jekyll, vitepress, astro, mkdocs];
// The integrations that write the element from parameters, and so must escape them.
const PARAMETERS = new Set(['hugo', 'jekyll', 'astro']);
const OUT = join(repoRoot, 'tests', 'output');

const s = { sites: {} };

before(async () => {
  await access(join(repoRoot, 'dist', 'attn-scale-demo.js')).catch(() => {
    throw new Error('dist/ is missing: run `npm run build` first');
  });
  for (const tool of ['hugo', 'jekyll', 'mkdocs'])
    await run('sh', ['-c', `command -v ${tool}`]).catch(() => {
      throw new Error(`${tool} is missing: run \`bash tests/publish/setup.sh\` (as root) first`);
    });
  await access(join(NODE_MODULES, '.bin', 'astro')).catch(() => {
    throw new Error('tests/publish/node_modules is missing: run `bash tests/publish/setup.sh` first');
  });
  await mkdir(OUT, { recursive: true });
  s.tmp = await mkdtemp(join(tmpdir(), 'attnscale-publish-'));
  // A copy of dist/, so that a build running beside the suite cannot change it under the pages.
  await cp(join(repoRoot, 'dist'), join(s.tmp, 'dist'), { recursive: true });
  s.dist = await startServer({ root: join(s.tmp, 'dist'), headers: { 'access-control-allow-origin': '*' } });
  const base = s.dist.url;
  // The five sites build side by side; each is then served on an origin of its own.
  await Promise.all(
    ENGINES.map(async (engine) => {
      const posts = { charts: CHARTS.map((a) => engine.call(a, base)).join(`\n\n${POST_TEXT}\n\n`) };
      if (PARAMETERS.has(engine.name)) posts.hostile = engine.call(HOSTILE, base);
      const built = await engine.build(join(s.tmp, engine.name), base, posts);
      const server = await startServer({ root: built.out });
      s.sites[engine.name] = { ...built, server, url: (post) => `${server.url}${built.path(post)}` };
    }),
  );
  s.browser = await launchBrowser();
});

after(async () => {
  await s.browser?.close();
  await Promise.all([s.dist?.close(), ...Object.values(s.sites).map((site) => site.server.close())]);
  if (s.tmp) await rm(s.tmp, { recursive: true, force: true });
});

/** A page of the suite: no network beyond the two local origins (a theme's CDN link fails at once). */
async function open(url) {
  const page = await s.browser.newPage({ width: 1100, height: 900, reducedMotion: 'reduce' });
  const errors = watchErrors(page);
  await page.route(/^https?:\/\/(?!127\.0\.0\.1[:/])/, (route) => route.abort());
  await page.goto(url);
  return { page, errors };
}

/** Every element of the page: its attributes, fallback link, result query and readouts. */
const readDemos = () =>
  [...document.querySelectorAll('attn-scale-demo')].map((el) => ({
    attrs: Object.fromEntries([...el.attributes].map((a) => [a.name, a.value])),
    link: el.querySelector('a')?.href ?? null,
    query: el.shadowRoot.querySelector('.as-root').dataset.resultQuery,
    stats: Object.fromEntries(
      [...el.shadowRoot.querySelectorAll('[data-stat]')].map((d) => [d.dataset.stat, d.textContent]),
    ),
  }));

/** A URL with its query's parameters sorted: the integrations may write them in another order. */
const sortedUrl = (href) => {
  const url = new URL(href);
  url.searchParams.sort();
  return url.href;
};

describe('publishing: the charts in real site engines', () => {
  for (const engine of ENGINES) {
    test(`${engine.name}: a post's two charts draw the settings their attributes ask for, with one module script`, async () => {
      const site = s.sites[engine.name];
      const { page, errors } = await open(site.url('charts'));
      await waitForDemos(page);
      await waitForDemoSweeps(page);
      const demos = await page.evaluate(readDemos);
      const scripts = await page.evaluate(() =>
        [...document.querySelectorAll('script[src]')]
          .map((el) => el.src)
          .filter((src) => src.endsWith('/attn-scale-demo.js')),
      );
      assert.deepEqual(scripts, [`${s.dist.url}attn-scale-demo.js`], 'one module script, from the base');
      assert.equal(demos.length, CHARTS.length);
      for (const [i, attrs] of CHARTS.entries()) {
        const shown = demos[i];
        const want = await expected(attrs);
        assert.deepEqual(shown.attrs, attrs, `chart ${i}: its attributes`);
        assert.equal(shown.query, want.query, `chart ${i}: the config of its result`);
        assert.ok(Object.keys(shown.stats).length > 0, `chart ${i} has readouts`);
        for (const [name, text] of Object.entries(shown.stats))
          assert.equal(text, want.stat(name), `chart ${i}: readout ${name}`);
        assert.equal(sortedUrl(shown.link), sortedUrl(fullPageHref(s.dist.url, attrs)), `chart ${i}: link`);
      }
      if (engine.name === 'hugo') {
        const html = await readFile(join(site.out, site.path('charts'), 'index.html'), 'utf8');
        assert.equal(html.split('attn-scale-demo.js').length - 1, 1, 'two shortcodes, one script tag');
      }
      assert.deepEqual(errors, []);
      await page.screenshot({ path: join(OUT, `publish-${engine.name}.png`), fullPage: true });
      await page.close();
    });
  }

  for (const engine of ENGINES.filter((e) => PARAMETERS.has(e.name))) {
    test(`${engine.name}: quotes, > and <script> in a parameter stay inside its attribute`, async () => {
      const { page } = await open(s.sites[engine.name].url('hostile'));
      await page.waitForFunction(() => customElements.get('attn-scale-demo'), null, { timeout: 60000 });
      const seen = await page.evaluate(() => ({
        pwned: window.__pwned ?? null,
        demos: [...document.querySelectorAll('attn-scale-demo')].map((el) =>
          Object.fromEntries([...el.attributes].map((a) => [a.name, a.value])),
        ),
        handlers: document.querySelectorAll('[onmouseover]').length,
        scripts: [...document.scripts].filter((el) => el.textContent.includes('__pwned')).length,
      }));
      assert.deepEqual(seen, { pwned: null, demos: [HOSTILE], handlers: 0, scripts: 0 });
      await page.close();
    });
  }
});
