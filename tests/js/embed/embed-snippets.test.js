// The Embed dialog's snippets (web/src/embed/embed-snippets.js) against the real engine's schema: they
// name only the fields that differ from the defaults, and what they name restores the state; the
// site routes (embed-routes.js) write the same state as a shortcode, an include, a bare element and
// a Markdown image; and the room each reserves follows the measured panels' height.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { bothEngines } from '../helpers.js';
import {
  embedSnippets,
  changedAttributes,
  hugoShortcode,
  jekyllInclude,
  markdownImages,
} from '../../../web/src/embed/embed-snippets.js';
import { ROUTES, cdnBase, PUBLISHING_DOC } from '../../../web/src/embed/embed-routes.js';
import { parseQuery, schemaDefaults, serializeChanged, PAGE_LIMITS } from '../../../web/src/state/state.js';
import {
  elementCss,
  elementHeight,
  frameCss,
  frameHeight,
  panelCss,
} from '../../../web/src/embed/embed-height.js';
import { PANEL_HEIGHTS } from '../../../web/src/embed/panel-heights.js';

const BASE = 'https://example.org/attnscale/';
const { simd } = await bothEngines();
const { schema } = simd;
const defaults = schemaDefaults(schema, PAGE_LIMITS);
const snippets = (config, extra = {}) =>
  embedSnippets({ config, schema, limits: PAGE_LIMITS, panels: ['spread'], base: BASE, ...extra });
/** The query of the iframe's src, as the browser reads it (&amp; back to &). */
const iframeQuery = (s) => new URL(/src="([^"]+)"/.exec(s.iframe)[1].replaceAll('&amp;', '&')).search;

test('at the default settings the snippets name no setting', () => {
  const s = snippets(defaults);
  assert.equal(s.embedUrl, `${BASE}embed.html?panel=spread`);
  assert.match(s.iframe, /<iframe src="https:\/\/example\.org\/attnscale\/embed\.html\?panel=spread" /);
  // the element holds a link to the full page, its fallback when the script cannot load
  assert.match(
    s.component,
    /<attn-scale-demo panel="spread" style="[^"]*">\n {2}<a href="https:\/\/example\.org\/attnscale\/index\.html">Open the attnscale demo<\/a>\n<\/attn-scale-demo>/,
  );
  assert.equal(s.fullUrl, `${BASE}index.html`);
});

test('only the changed fields, in schema order, in both snippets', () => {
  const config = { ...defaults, dk: 128, scale: 'none', seed: 7 };
  const s = snippets(config, { panels: ['spread', 'sigma'], controls: ['dk', 'scale'], theme: 'dark' });
  assert.match(
    s.iframe,
    /embed\.html\?panel=spread,sigma&amp;controls=dk,scale&amp;theme=dark&amp;dk=128&amp;scale=none&amp;seed=7"/,
  );
  assert.match(
    s.component,
    /<attn-scale-demo panel="spread,sigma" dk="128" scale="none" seed="7" controls="dk,scale" theme="dark" style="/,
  );
  // 14 fields before: none of the defaults is spelled out now.
  for (const name of [
    'seqLen',
    'precision',
    'saturate',
    'subtractMax',
    'softmax',
    'blockSize',
    'causal',
    'mean',
    'std',
    'correlation',
  ]) {
    assert.ok(!new URLSearchParams(iframeQuery(s)).has(name), `iframe names ${name}`);
  }
});

test('blockSize that only follows a shorter T is not named; a chosen one is', () => {
  const followed = { ...defaults, seqLen: 32, blockSize: 32 };
  assert.deepEqual(changedAttributes(followed, schema, PAGE_LIMITS), [['seq-len', '32']]);
  const chosen = { ...defaults, seqLen: 32, softmax: 'online', blockSize: 8 };
  assert.deepEqual(changedAttributes(chosen, schema, PAGE_LIMITS), [
    ['seq-len', '32'],
    ['softmax', 'online'],
    ['block-size', '8'],
  ]);
});

test('what a snippet names restores the whole state (iframe query through the URL rules)', () => {
  const configs = [
    defaults,
    { ...defaults, dk: 128, scale: 'none', seed: 7 },
    { ...defaults, seqLen: 16, blockSize: 16, precision: 'fp8e4m3', saturate: true },
    {
      ...defaults,
      seqLen: 2048,
      softmax: 'online',
      blockSize: 512,
      causal: true,
      mean: 0.5,
      std: 2,
      correlation: -0.25,
    },
    { ...defaults, scale: 0.125, subtractMax: false, seed: 0 },
  ];
  for (const config of configs) {
    const s = snippets(config);
    const { config: back, notices } = parseQuery(iframeQuery(s), schema);
    assert.deepEqual(notices, []);
    assert.deepEqual(back, config);
    assert.deepEqual(parseQuery(serializeChanged(config, schema), schema).config, config);
  }
});

test('a panel’s own settings (training) follow the config in the iframe', () => {
  const s = snippets({ ...defaults, dk: 16 }, { panels: ['training'], panelQuery: 'trainSeed=3' });
  assert.match(s.iframe, /embed\.html\?panel=training&amp;dk=16&amp;trainSeed=3"/);
  assert.equal(
    snippets(defaults, { panelQuery: 'trainSeed=3' }).embedUrl,
    `${BASE}embed.html?panel=spread&trainSeed=3`,
  );
});

// The site routes (embed-routes.js): the same attributes as the component, in each engine's syntax.
test('Hugo, Jekyll, bare element: the component’s attributes in each syntax, the same state', () => {
  const config = { ...defaults, dk: 256, scale: 'none', seqLen: 64, qkNorm: 'rms' };
  const s = snippets(config, { panels: ['spread', 'sigma'], controls: ['dk', 'seqLen'], theme: 'dark' });
  const params =
    'panel="spread,sigma" dk="256" seq-len="64" scale="none" qk-norm="rms" controls="dk,seq-len" theme="dark"';
  assert.match(s.component, new RegExp(`<attn-scale-demo ${params} style="`));
  // The shortcode and the include add the room the element takes before its script runs.
  assert.equal(s.hugo, `{{< attnscale ${params} height="${s.height}" >}}`);
  assert.equal(s.jekyll, `{% include attnscale.html ${params} height="${s.height}" %}`);
  // The bare element is the component snippet without its script line, fallback link included.
  assert.equal(s.component, `<script type="module" src="${BASE}attn-scale-demo.js"></script>\n${s.element}`);
  assert.match(s.element, /^<attn-scale-demo [^\n]*>\n {2}<a href="[^"]*index\.html\?[^"]*dk=256[^"]*">/);
  // At the defaults: the panel alone.
  const d = snippets(defaults);
  assert.equal(d.hugo, `{{< attnscale panel="spread" height="${d.height}" >}}`);
  assert.equal(d.jekyll, `{% include attnscale.html panel="spread" height="${d.height}" %}`);
});

test('shortcode and include values: quotes escaped, a backslash refused with the parameter named', () => {
  assert.equal(hugoShortcode([['page', 'a"b']]), '{{< attnscale page="a\\"b" >}}');
  assert.equal(jekyllInclude([['page', 'a"b']]), '{% include attnscale.html page="a\\"b" %}');
  assert.throws(() => hugoShortcode([['page', 'a\\b']]), /Hugo: page cannot hold a backslash/);
  assert.throws(() => jekyllInclude([['page', 'a\\']]), /Jekyll: page cannot hold a backslash/);
  assert.throws(() => hugoShortcode([['Bad Name', 'x']]), /"Bad Name" is not kebab-case/);
});

test('Markdown: one linked GIF per chart, named as its GIF button names it, linked to the full page in this state', () => {
  const config = { ...defaults, dk: 256, scale: 'none' };
  const s = snippets(config, {
    panels: ['spread', 'sigma'],
    titles: { spread: 'Logit spread', sigma: 'σ vs d_k' },
    panelQuery: 'trainSeed=3',
  });
  assert.equal(s.fullUrl, `${BASE}index.html?dk=256&scale=none&trainSeed=3`);
  assert.equal(
    s.markdown,
    `[![attnscale: Logit spread](attnscale-spread.gif)](${s.fullUrl})\n\n` +
      `[![attnscale: σ vs d_k](attnscale-sigma.gif)](${s.fullUrl})`,
  );
  // A chart without a GIF button: its SVG.
  assert.equal(
    snippets(config, { panels: ['training'], pictures: { training: 'svg' } }).markdown,
    `[![attnscale: training](attnscale-training.svg)](${BASE}index.html?dk=256&scale=none)`,
  );
  // Brackets and backslashes in the text, parentheses and spaces in the address, cannot break the link.
  assert.equal(
    markdownImages({ panels: ['x'], titles: { x: 'a [b] \\c' }, fullUrl: 'https://e.org/p (1)/<i>' }),
    '[![attnscale: a \\[b\\] \\\\c](attnscale-x.gif)](https://e.org/p%20%281%29/%3Ci%3E)',
  );
});

test('the dialog’s routes: iframe and component first, then Hugo, Jekyll, the bare element, Markdown', () => {
  const s = snippets({ ...defaults, dk: 256 }, { panels: ['sigma'] });
  assert.deepEqual(
    ROUTES.map((r) => r.id),
    ['iframe', 'web component', 'hugo', 'jekyll', 'element', 'markdown'],
  );
  const ctx = { base: BASE, cdn: cdnBase('1.2.3') };
  assert.equal(ctx.cdn, 'https://cdn.jsdelivr.net/npm/attnscale@1.2.3/dist/');
  const byId = Object.fromEntries(ROUTES.map((r) => [r.id, r]));
  assert.equal(byId.iframe.snippet(s), s.iframe);
  assert.equal(byId['web component'].snippet(s), s.component);
  assert.equal(byId.hugo.snippet(s), `{{< attnscale panel="sigma" dk="256" height="${s.height}" >}}`);
  assert.equal(
    byId.jekyll.snippet(s),
    `{% include attnscale.html panel="sigma" dk="256" height="${s.height}" %}`,
  );
  assert.equal(byId.element.snippet(s), s.element);
  assert.equal(byId.markdown.snippet(s), s.markdown);
  // The host lines point the engines at this page's folder; the notes name the CDN default.
  assert.deepEqual(byId.hugo.config(ctx), {
    file: 'hugo.toml',
    text: `[params.attnscale]\nbase = "${BASE}"`,
  });
  assert.deepEqual(byId.jekyll.config(ctx), { file: '_config.yml', text: `attnscale: { base: "${BASE}" }` });
  for (const id of ['hugo', 'jekyll'])
    assert.ok(
      byId[id].note(ctx).some((p) => p.code === ctx.cdn),
      id,
    );
  const links = byId.element
    .note(ctx)
    .filter((p) => p.href)
    .map((p) => p.href);
  assert.deepEqual(links, [`${PUBLISHING_DOC}#vitepress`, `${PUBLISHING_DOC}#astro-and-other-mdx-engines`]);
  assert.ok(byId.markdown.note(ctx).some((p) => p.code === 'attnscale-<panel>.gif'));
  for (const r of ROUTES) {
    assert.ok(r.title && r.kind && r.rows > 0, r.id);
    for (const p of r.note(ctx)) assert.ok(typeof p === 'string' || p.code || (p.href && p.text), r.id);
  }
});

test('the drill’s seed and question go in both the iframe’s query and the element’s attributes', () => {
  const s = snippets(defaults, {
    panels: ['predict'],
    attributes: [
      ['quiz', '42'],
      ['question', 'why-sqrt'],
    ],
    panelQuery: 'trainSeed=3',
  });
  assert.equal(s.embedUrl, `${BASE}embed.html?panel=predict&trainSeed=3&quiz=42&question=why-sqrt`);
  assert.match(s.element, /^<attn-scale-demo panel="predict" quiz="42" question="why-sqrt"[ >]/);
  // (then the height it reserves: see the reserved room's tests below)
  assert.match(s.hugo, /^\{\{< attnscale panel="predict" quiz="42" question="why-sqrt" height="calc\(/);
  assert.equal(s.fullUrl, `${BASE}index.html?trainSeed=3&quiz=42&question=why-sqrt`);
});

// The room an embed reserves before its script runs (embed-height.js): the CSS length of the width
// that the snippets write stays above the height the measured panels take (within the fitting
// tolerance) and not far above it, at every width from a phone's to a wide column, and drops where
// the panels move side by side.
/** The CSS length at a containing block `w` px wide (100% = w), in px. */
function evaluate(css, w) {
  const js = css
    .replaceAll('100%', `${w}`)
    .replaceAll('px', '')
    .replace(/^calc/, '')
    .replaceAll('max(', 'Math.max(');
  assert.match(js, /^(?:[0-9.()+\-*, ]|Math\.max)+$/, 'only numbers, arithmetic and max()');
  return Function(`return ${js}`)();
}

// The fitting tolerance (cssOfWidth) and how much room above the panels is acceptable.
const BELOW = 22; // 20, and the rounding of the written coefficients
const ABOVE = 80;

const CASES = [
  [['spread'], null],
  [['spread', 'sigma'], null],
  [['sigma', 'entropy', 'heatmap'], null],
  [
    ['spread', 'sigma'],
    ['dk', 'scale'],
  ],
];

for (const [panels, controls] of CASES)
  test(`${panels.join(',')}${controls ? ' with settings' : ''}: the reserved room follows the panels' height`, () => {
    for (const [css, height] of [
      [elementCss(panels, controls), (w) => elementHeight(panels, w, controls)],
      [frameCss(panels, controls), (w) => frameHeight(panels, w, controls)],
    ])
      for (let w = 240; w <= 1600; w += 3) {
        const r = evaluate(css, w);
        const h = height(w);
        assert.ok(
          r >= h - BELOW && r <= h + ABOVE,
          `at ${w} px: reserved ${r.toFixed(0)} for ${h.toFixed(0)}`,
        );
      }
  });

test('two panels side by side from 30rem each: the room drops at that width', () => {
  const css = elementCss(['spread', 'sigma']);
  const narrow = evaluate(css, 973);
  const wide = evaluate(css, 976);
  assert.ok(narrow > 1000 && wide < 700, `${narrow} → ${wide}`);
});

test('every panel of the page has its room, a positive length at every width', () => {
  for (const name of Object.keys(PANEL_HEIGHTS))
    for (let w = 240; w <= 1600; w += 20) assert.ok(evaluate(panelCss(name), w) > 100, `${name} at ${w}`);
});
