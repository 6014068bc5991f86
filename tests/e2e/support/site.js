// The set-up most e2e files share: dist/ (or $ATTNSCALE_DIST) served on a free port and one
// Chromium for the whole file, both closed after it. useSite() registers the file's before/after
// hooks and returns { server, browser }, filled in once before() has run.
import { before, after } from 'node:test';
import { access, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { startServer, repoRoot } from './serve-dist.js';
import { launchBrowser } from './browser.js';

export const DIST = process.env.ATTNSCALE_DIST || join(repoRoot, 'dist');
export const OUT = join(repoRoot, 'tests', 'output');

/** browserArgs: extra Chromium flags (e.g. V8's, to switch wasm SIMD off). */
export function useSite({ browserArgs = [] } = {}) {
  const site = { server: null, browser: null };
  before(async () => {
    await access(join(DIST, 'index.html')).catch(() => {
      throw new Error(`${DIST} has no index.html: run \`npm run build\` first`);
    });
    await mkdir(OUT, { recursive: true });
    site.server = await startServer({ root: DIST });
    site.browser = await launchBrowser({ args: browserArgs });
  });
  after(async () => {
    await site.browser?.close();
    await site.server?.close();
  });
  return site;
}
