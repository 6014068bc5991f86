// The site-engine integrations shipped under web/integrations/ (docs/publishing.md) cannot drift
// from the package: every CDN address they hold pins package.json's version, package.json ships
// them, and the parameters of Hugo's shortcode, Jekyll's include and Astro's component are exactly
// the attributes of <attn-scale-demo> (the engine's schema in kebab-case plus the options the
// element's code reads), each mapped to the engine's own field name for the full page's link.
import { test, before, describe } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createEngine } from '../../../web/src/engine/engine.js';
import { kebab } from '../../../web/src/embed/embed-snippets.js';

const repoRoot = resolve(fileURLToPath(new URL('../../..', import.meta.url)));
const read = (rel) => readFileSync(join(repoRoot, rel), 'utf8');
const pkg = JSON.parse(read('package.json'));
const sorted = (xs) => [...xs].sort();

const INTEGRATIONS = 'web/integrations';
const files = (dir) =>
  readdirSync(join(repoRoot, dir), { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(join(dir, e.name)) : [join(dir, e.name)],
  );
const shipped = files(INTEGRATIONS).map((f) => relative(repoRoot, join(repoRoot, f)));

/** The element's own attributes besides the config fields, as its code reads them. */
function componentOptions() {
  const src = read('web/src/embed/attn-scale-demo.js');
  const names = new Set();
  for (const m of src.matchAll(/\b(?:getAttribute|attr)\('([a-z-]+)'\)/g)) names.add(m[1]);
  const set = /\bOPTION_ATTRIBUTES = new Set\(\[([^\]]*)\]\)/.exec(src);
  assert.ok(set, 'attn-scale-demo.js declares OPTION_ATTRIBUTES');
  for (const m of set[1].matchAll(/'([a-z-]+)'/g)) names.add(m[1]);
  const page = /\bPAGE_ATTRIBUTE = '([a-z-]+)'/.exec(src);
  assert.ok(page, 'attn-scale-demo.js declares PAGE_ATTRIBUTE');
  names.add(page[1]);
  return sorted(names);
}

const quoted = (s) => [...s.matchAll(/["']([^"']+)["']/g)].map((m) => m[1]);
const pairs = (xs) => Object.fromEntries(xs.flatMap((x, i) => (i % 2 ? [] : [[x, xs[i + 1]]])));

/** Each integration with parameters: { options: [attribute], fields: { attribute: engine name } }. */
const PARAMETER_LISTS = {
  hugo() {
    const t = read(`${INTEGRATIONS}/hugo/layouts/shortcodes/attnscale.html`);
    return {
      options: quoted(/\$options := slice ([^}]*?)\s*-?}}/.exec(t)[1]),
      fields: pairs(quoted(/\$fields := dict ([^}]*?)\s*-?}}/.exec(t)[1])),
    };
  },
  jekyll() {
    const t = read(`${INTEGRATIONS}/jekyll/_includes/attnscale.html`);
    return {
      options: /assign attnscale_options = "([^"]*)"/.exec(t)[1].split(','),
      fields: Object.fromEntries(
        /assign attnscale_fields = "([^"]*)"/
          .exec(t)[1]
          .split(',')
          .map((p) => p.split(':')),
      ),
    };
  },
  astro() {
    const t = read(`${INTEGRATIONS}/astro/AttnScale.astro`);
    return {
      options: quoted(/const OPTIONS = \[([^\]]*)\]/.exec(t)[1]),
      fields: Object.fromEntries(
        [.../const FIELDS = \{([^}]*)\}/.exec(t)[1].matchAll(/^\s*'?([a-z-]+)'?: '(\w+)',?$/gm)].map((m) => [
          m[1],
          m[2],
        ]),
      ),
    };
  },
};

let schema;
before(async () => {
  schema = (await createEngine()).schema;
});

describe('web/integrations/ against the package and the component', () => {
  test("every CDN address pins package.json's version, and each engine's files hold one", () => {
    const found = {};
    for (const f of shipped)
      for (const m of read(f).matchAll(/attnscale@([^/'"\s]+)\/dist\//g)) {
        assert.equal(m[1], pkg.version, `${f}: attnscale@${m[1]} is not package.json's ${pkg.version}`);
        found[f.split('/')[2]] = true;
      }
    assert.deepEqual(sorted(Object.keys(found)), ['astro', 'hugo', 'jekyll', 'vitepress']);
  });

  test('package.json ships every integration file', () => {
    assert.ok(
      pkg.files.some((p) => p.replace(/\/$/, '') === INTEGRATIONS),
      `package.json "files" lists ${INTEGRATIONS}/`,
    );
  });

  for (const [name, parse] of Object.entries(PARAMETER_LISTS)) {
    test(`${name}: its parameters are the attributes of <attn-scale-demo>, mapped to the engine's names`, () => {
      const { options, fields } = parse();
      assert.deepEqual(sorted(options), componentOptions(), 'options (panel, controls, …)');
      assert.deepEqual(
        fields,
        Object.fromEntries(schema.map((f) => [kebab(f.name), f.name])),
        'config fields: attribute → engine field name',
      );
    });
  }
});
