// Hostile URLs against the real page, property-based (fast-check) in headless
// Debian chromium. tests/e2e/page/state.test.js proves in Node that any query becomes a valid config;
// this file proves in the browser that nothing in a URL becomes markup or script: after every
// generated query the DOM (shadow roots included) holds no element, attribute or URL that came
// from it, no script ran (no marker global, no dialog), nothing was logged as an error, the page
// computed the config the parser promised, and a notice names every field it had to change.
// Runs: many queries applied in one page through history + popstate (the page's own path for a
// pasted link), plus fresh loads of the page and of embed.html (whose panel / controls / theme
// come from the URL too).
import { after, describe } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { watchErrors, waitForApp, test } from '../support/browser.js';
import { domFacts, payload, logged } from '../support/hostile.js';
import { createEngine } from '../../../web/src/engine/engine.js';
import { parseQuery, serialize } from '../../../web/src/state/state.js';
import { useSite } from '../support/site.js';

const engine = await createEngine();
const { schema } = engine;
const FIELDS = schema.map((f) => f.name);

// Ordinary values too, small enough that a run stays fast (T and d_k at most 256).
const ordinary = fc.oneof(
  fc.constantFrom(
    'none',
    'sqrt',
    'linear',
    'fp16',
    'bf16',
    'fp8e4m3',
    'online',
    'true',
    'false',
    '0.5',
    '-0.25',
  ),
  fc.integer({ min: 1, max: 256 }).map(String),
);
const value = fc.oneof({ weight: 3, arbitrary: payload }, { weight: 1, arbitrary: ordinary });
const key = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...FIELDS) },
  { weight: 1, arbitrary: fc.constantFrom('panel', 'controls', 'theme') },
  { weight: 1, arbitrary: payload },
);
const entries = fc.array(fc.tuple(key, value), { minLength: 1, maxLength: 6 }).map((es) => {
  // Big T or d_k would only slow the run down: keep ordinary numbers of those fields ≤ 256.
  const seen = new Set();
  return es.filter(([k]) => (seen.has(k) ? false : seen.add(k)));
});
/** Encoded with URLSearchParams, or raw (only &, #, % and + escaped, the rest as typed). */
const query = fc
  .tuple(entries, fc.boolean())
  .map(([es, raw]) =>
    raw ? es.map(([k, v]) => `${rawEnc(k)}=${rawEnc(v)}`).join('&') : new URLSearchParams(es).toString(),
  );
const rawEnc = (s) => s.replace(/%/g, '%25').replace(/&/g, '%26').replace(/#/g, '%23').replace(/\+/g, '%2B');

const site = useSite();

after(() => engine.delete());

async function openWatched(path) {
  const page = await site.browser.newPage({ reducedMotion: 'reduce' });
  const errors = watchErrors(page);
  const dialogs = [];
  page.on('dialog', (d) => {
    dialogs.push(d.message());
    d.dismiss().catch(() => {});
  });
  page.on('popup', (p) => {
    dialogs.push(`popup ${p.url()}`);
  });
  page.on('pageerror', (e) => console.log(`# pageerror: ${e.stack}`)); // where, when it happens
  await page.goto(site.server.url + path);
  return { page, errors, dialogs };
}

function assertClean(facts, baseline, ctx) {
  assert.deepEqual(facts.bad, [], ctx);
  assert.deepEqual(facts.counts, baseline.counts, `${ctx}: dangerous element counts`);
  assert.equal(facts.pwned, null, `${ctx}: script ran`);
  assert.equal(facts.title, baseline.title, `${ctx}: title`);
}

const expectedFor = (q) => parseQuery(q, schema);
// FC_SEED=<seed printed by a failure> replays the same queries.
const seeded = process.env.FC_SEED ? { seed: Number(process.env.FC_SEED) } : {};

describe('hostile URLs', () => {
  test('in one page: any query (history + popstate) leaves no trace of markup, and is computed as parsed', async () => {
    const { page, errors, dialogs } = await openWatched('');
    await waitForApp(page, { sweeps: false });
    const baseline = await page.evaluate(domFacts);
    assert.deepEqual(baseline.bad, [], 'clean page');
    await fc.assert(
      fc.asyncProperty(
        query,
        logged(async (q) => {
          const { config, notices } = expectedFor(q);
          const want = serialize(config, schema);
          await page.evaluate((s) => {
            history.pushState(null, '', `?${s}`);
            dispatchEvent(new PopStateEvent('popstate'));
          }, q);
          await page.waitForFunction((w) => document.getElementById('app').dataset.resultQuery === w, want, {
            timeout: 60000,
          });
          if (notices.length) {
            const text = await page.locator('#notices').textContent();
            for (const nt of notices)
              assert.ok(text.includes(`${nt.field}=`), `notice names ${nt.field} for ?${q}`);
          }
          assertClean(await page.evaluate(domFacts), baseline, `?${q}`);
          assert.deepEqual(dialogs, [], `?${q}: dialog`);
          assert.deepEqual(errors, [], `?${q}: console`);
        }),
      ),
      { numRuns: 80, ...seeded },
    );
    await page.close();
  });

  test('fresh loads of the page and of embed.html with hostile queries', async () => {
    const base = {};
    for (const path of ['', 'embed.html?panel=spread,heatmap']) {
      const { page } = await openWatched(path);
      await waitForApp(page, { sweeps: false });
      base[path === '' ? 'page' : 'embed'] = await page.evaluate(domFacts);
      await page.close();
    }
    const embedQuery = fc
      .tuple(query, fc.constantFrom('spread', 'spread,heatmap', 'heatmap'), payload, payload)
      .map(
        ([q, panel, theme, controls]) =>
          `panel=${panel}&theme=${encodeURIComponent(theme)}&controls=${encodeURIComponent(controls)}&${q}`,
      );
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          query.map((q) => ['page', q]),
          embedQuery.map((q) => ['embed', q]),
        ),
        logged(async ([kind, q]) => {
          const { page, errors, dialogs } = await openWatched(`${kind === 'page' ? '' : 'embed.html'}?${q}`);
          try {
            await waitForApp(page, { sweeps: false, timeout: 60000 });
            const want = serialize(expectedFor(q).config, schema);
            assert.equal(
              await page.evaluate(() => document.getElementById('app').dataset.resultQuery),
              want,
              `${kind} ?${q}`,
            );
            if (kind === 'embed') {
              // The hostile theme is named in a notice, as text.
              assert.match(await page.locator('#notices').textContent(), /theme=/, `embed ?${q}`);
            }
            // Same counts of dangerous elements as a clean load of the same page.
            assertClean(await page.evaluate(domFacts), base[kind], `${kind} ?${q}`);
            assert.deepEqual(dialogs, [], `${kind} ?${q}: dialog`);
            assert.deepEqual(errors, [], `${kind} ?${q}: console`);
          } finally {
            await page.close();
          }
        }),
      ),
      { numRuns: 14, ...seeded },
    );
  });
});
