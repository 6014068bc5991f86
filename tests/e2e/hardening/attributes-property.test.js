// Hostile attributes on <attn-scale-demo>, property-based (fast-check) in
// headless Debian chromium: any attribute strings give a valid render (the engine's config, every
// chosen panel drawn) with a visible notice inside the element naming each value it could not use,
// never an exception, never an element, attribute or script made from the text, and the host page
// untouched. Two paths: attributes changed live on one element (MutationObserver → set / rebuild),
// and fresh elements created with all their attributes at once (the first mount).
import { before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import { access, cp, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { startServer, repoRoot } from '../support/serve-dist.js';
import { launchBrowser, watchErrors, test } from '../support/browser.js';
import { domFacts, payload, logged } from '../support/hostile.js';
import { createEngine } from '../../../web/src/engine/engine.js';
import { parseQuery, serialize } from '../../../web/src/state/state.js';

const engine = await createEngine();
const { schema } = engine;
const kebab = (name) => name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
const FIELD_OF = new Map(schema.map((f) => [kebab(f.name), f]));

// Ordinary values, small enough that every run stays fast (T and d_k at most 256).
const ordinary = fc.oneof(
  fc.constantFrom(
    'none',
    'sqrt',
    'linear',
    'fp16',
    'bf16',
    'fp8e5m2',
    'online',
    'naive',
    'true',
    'false',
    '',
    '0.5',
    '-0.3',
  ),
  fc.integer({ min: 1, max: 256 }).map(String),
);
const PANEL_VALUES = ['spread', 'heatmap', 'precision', 'spread,heatmap', 'entropy'];
/** [name, value, hostile]: a config field, panel, controls or theme, with a hostile or an ordinary value. */
const attribute = fc
  .oneof(
    {
      weight: 5,
      arbitrary: fc.tuple(
        fc.constantFrom(...FIELD_OF.keys()),
        fc.oneof(
          payload.map((v) => [v, true]),
          ordinary.map((v) => [v, false]),
        ),
      ),
    },
    {
      weight: 1,
      arbitrary: fc.tuple(
        fc.constant('panel'),
        fc.oneof(
          payload.map((v) => [v, true]),
          fc.constantFrom(...PANEL_VALUES).map((v) => [v, false]),
        ),
      ),
    },
    {
      weight: 1,
      arbitrary: fc.tuple(
        fc.constant('controls'),
        fc.oneof(
          payload.map((v) => [v, true]),
          fc.constantFrom('dk,scale', 'all', 'none').map((v) => [v, false]),
        ),
      ),
    },
    {
      weight: 1,
      arbitrary: fc.tuple(
        fc.constant('theme'),
        fc.oneof(
          payload.map((v) => [v, true]),
          fc.constantFrom('light', 'dark', 'auto').map((v) => [v, false]),
        ),
      ),
    },
  )
  .map(([name, [value, hostile]]) => ({ name, value, hostile }));
const attributes = fc.uniqueArray(attribute, { minLength: 1, maxLength: 5, selector: (a) => a.name });

let tmp, server, browser;

before(async () => {
  await access(join(repoRoot, 'dist', 'attn-scale-demo.js')).catch(() => {
    throw new Error('dist/ is missing: run `npm run build` first');
  });
  tmp = await mkdtemp(join(tmpdir(), 'attnscale-attrs-'));
  await cp(join(repoRoot, 'dist'), tmp, { recursive: true });
  await writeFile(
    join(tmp, 'host.html'),
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><link rel="icon" href="data:,">
<title>Host</title><script type="module" src="./attn-scale-demo.js"></script></head><body><main><h1>Host heading</h1>
<p id="before">Host text before.</p><div id="slot"><attn-scale-demo id="demo" panel="spread"></attn-scale-demo></div><p id="after">Host text after.</p>
</main></body></html>`,
  );
  server = await startServer({ root: tmp });
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await server?.close();
  engine.delete();
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

async function openHost() {
  const page = await browser.newPage({ reducedMotion: 'reduce', width: 1000 });
  const errors = watchErrors(page);
  const dialogs = [];
  page.on('dialog', (d) => {
    dialogs.push(d.message());
    d.dismiss().catch(() => {});
  });
  await page.goto(`${server.url}host.html`);
  return { page, errors, dialogs };
}

/** The element's state once it has settled: its config, the config its readouts show, drawn panels. */
async function settled(page, ctx) {
  // No pause first: the element's MutationObserver runs in the microtasks of the evaluate that
  // changed the attributes, and whatever it does to the config (a change, or a rebuild that
  // clears it) is done before that evaluate returns.
  const deadline = Date.now() + 30000;
  for (;;) {
    const s = await page.evaluate(() => {
      const el = document.getElementById('demo');
      const root = el?.shadowRoot?.querySelector('.as-root');
      const panels = [...(root?.querySelectorAll('[data-panel]') ?? [])];
      return {
        state: root?.dataset.state,
        config: el?.config ?? null,
        resultQuery: root?.dataset.resultQuery ?? null,
        panels: panels.map((p) => p.dataset.panel),
        drawn: panels.length > 0 && panels.every((p) => p.dataset.drawn === 'true'),
        notices: el?.shadowRoot?.querySelector('.as-notices')?.textContent ?? '',
      };
    });
    if (s.state === 'ready' && s.config && s.drawn && s.resultQuery === serialize(s.config, schema)) return s;
    if (Date.now() > deadline) throw new Error(`${ctx}: did not settle: ${JSON.stringify(s).slice(0, 400)}`);
    await page.waitForTimeout(50);
  }
}

async function check(page, { errors, dialogs }, baseline, attrs, ctx) {
  const s = await settled(page, ctx);
  // A config the engine accepts, exactly as the element reports and computed.
  assert.deepEqual(engine.validate(s.config), s.config, `${ctx}: engine accepts the config`);
  // Every hostile value is named in a visible notice inside the element.
  for (const a of attrs.filter((x) => x.hostile)) {
    const field = FIELD_OF.get(a.name)?.name ?? a.name;
    assert.ok(
      s.notices.includes(`${field}=`),
      `${ctx}: a notice names ${field} (${s.notices.slice(0, 300)})`,
    );
  }
  const facts = await page.evaluate(domFacts);
  assert.deepEqual(
    facts.bad.filter((x) => !baseline.bad.includes(x)),
    [],
    ctx,
  ); // (the host's own data: favicon is in the baseline)
  assert.deepEqual(facts.counts, baseline.counts, `${ctx}: dangerous element counts`);
  assert.equal(facts.pwned, null, `${ctx}: script ran`);
  // The host page around the element is as it was.
  assert.deepEqual(
    await page.evaluate(() => [
      document.title,
      document.querySelector('h1').textContent,
      document.getElementById('before').textContent,
      document.getElementById('after').textContent,
      document.body.querySelectorAll('*').length,
    ]),
    baseline.host,
    `${ctx}: host page`,
  );
  assert.deepEqual(dialogs, [], `${ctx}: dialog`);
  assert.deepEqual(errors, [], `${ctx}: errors`);
  return s;
}

const hostFacts = (page) =>
  page.evaluate(() => [
    document.title,
    document.querySelector('h1').textContent,
    document.getElementById('before').textContent,
    document.getElementById('after').textContent,
    document.body.querySelectorAll('*').length,
  ]);

describe('hostile attributes on <attn-scale-demo>', () => {
  test('changed live on one element: a valid render and a notice per bad value, no markup, no exception', async () => {
    const watched = await openHost();
    const { page } = watched;
    await settled(page, 'first render');
    const baseline = { ...(await page.evaluate(domFacts)), host: await hostFacts(page) };
    assert.deepEqual(baseline.bad, ['<link href="data:,">']);
    await fc.assert(
      fc.asyncProperty(
        attributes,
        fc.boolean(),
        logged(async (attrs, remove) => {
          const ctx = JSON.stringify(attrs);
          await page.evaluate((list) => {
            const el = document.getElementById('demo');
            for (const { name, value } of list) el.setAttribute(name, value);
          }, attrs);
          await check(page, watched, baseline, attrs, ctx);
          if (remove) {
            // Removing them again: back to the defaults of those fields, still a valid render.
            await page.evaluate((list) => {
              const el = document.getElementById('demo');
              for (const { name } of list) el.removeAttribute(name);
            }, attrs);
            await check(page, watched, baseline, [], `${ctx} removed`);
          }
        }),
      ),
      { numRuns: 40 },
    );
    await page.close();
  });

  test('fresh elements created with hostile attributes: the first mount follows the URL rules', async () => {
    const watched = await openHost();
    const { page } = watched;
    await settled(page, 'first render');
    const baseline = { ...(await page.evaluate(domFacts)), host: await hostFacts(page) };
    await fc.assert(
      fc.asyncProperty(
        attributes,
        logged(async (attrs) => {
          const ctx = JSON.stringify(attrs);
          await page.evaluate((list) => {
            const el = document.createElement('attn-scale-demo');
            el.id = 'demo';
            for (const { name, value } of list) el.setAttribute(name, value);
            document.getElementById('slot').replaceChildren(el);
          }, attrs);
          const s = await check(page, watched, baseline, attrs, ctx);
          // All at once, the attributes are read exactly as a URL query with the same values.
          const q = new URLSearchParams();
          for (const a of attrs) {
            const f = FIELD_OF.get(a.name);
            if (f) q.set(f.name, f.type === 'bool' && a.value.trim() === '' ? 'true' : a.value);
          }
          assert.equal(
            serialize(s.config, schema),
            serialize(parseQuery(q.toString(), schema).config, schema),
            ctx,
          );
        }),
      ),
      { numRuns: 15 },
    );
    await page.close();
  });
});
