// The integrations that take parameters (Hugo's shortcode, Jekyll's include, Astro's component),
// built by the real engines without a browser: with no base they load the CDN copy of this package
// version and link to the hosted page; an unknown parameter or a base without its final / fails
// the build with a message that names it. Needs the engines (bash tests/publish/setup.sh).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from '../e2e/support/serve-dist.js';
import * as hugo from './sites/hugo.js';
import * as jekyll from './sites/jekyll.js';
import * as astro from './sites/astro.js';

const ENGINES = [hugo, jekyll, astro];
const { version } = JSON.parse(await readFile(join(repoRoot, 'package.json'), 'utf8'));
const CDN = `https://cdn.jsdelivr.net/npm/attnscale@${version}/dist/`;
const HOSTED = 'https://attnscale.github.io/attnscale/';

let tmp;
before(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'attnscale-publish-rules-'));
});
after(() => rm(tmp, { recursive: true, force: true }));

/** Builds one post with each engine, side by side: → [{ engine, html } | { engine, error }]. */
const buildAll = (label, base, attrs) =>
  Promise.all(
    ENGINES.map(async (engine) => {
      try {
        const built = await engine.build(join(tmp, `${label}-${engine.name}`), base, {
          post: engine.call(attrs),
        });
        const html = await readFile(join(built.out, built.path('post'), 'index.html'), 'utf8');
        return { engine: engine.name, html };
      } catch (error) {
        return { engine: engine.name, error };
      }
    }),
  );

describe('publishing: the build rules of the integrations', () => {
  test('no base: the CDN copy of this package version, and a link to the hosted page', async () => {
    for (const { engine, html, error } of await buildAll('default', null, { panel: 'sigma', dk: '256' })) {
      assert.ifError(error);
      assert.ok(html.includes(CDN), `${engine}: loads ${CDN}`);
      assert.ok(html.includes(`href="${HOSTED}?dk=256"`), `${engine}: links to ${HOSTED}?dk=256`);
    }
  });

  test('an unknown parameter fails the build, named', async () => {
    for (const { engine, error } of await buildAll('unknown', 'http://127.0.0.1:9/', { sacle: 'none' })) {
      assert.ok(error, `${engine}: the build fails`);
      assert.match(error.output, /\bsacle\b/, `${engine}: the message names sacle`);
    }
  });

  test('a base without its final / fails the build, named', async () => {
    for (const { engine, error } of await buildAll('slash', 'http://127.0.0.1:9/dist', { dk: '256' })) {
      assert.ok(error, `${engine}: the build fails`);
      assert.match(error.output, /base/i, `${engine}: the message names the base`);
    }
  });
});
