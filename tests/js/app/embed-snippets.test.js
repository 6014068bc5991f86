// The Embed dialog's snippets (web/src/embed/embed-snippets.js) against the real engine's schema: they
// name only the fields that differ from the defaults, and what they name restores the state.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { bothEngines } from '../helpers.js';
import { embedSnippets, changedAttributes } from '../../../web/src/embed/embed-snippets.js';
import { parseQuery, schemaDefaults, serializeChanged, PAGE_LIMITS } from '../../../web/src/state/state.js';

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
    /<attn-scale-demo panel="spread">\n {2}<a href="https:\/\/example\.org\/attnscale\/index\.html">Open the attnscale demo<\/a>\n<\/attn-scale-demo>/,
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
    /<attn-scale-demo panel="spread,sigma" dk="128" scale="none" seed="7" controls="dk,scale" theme="dark">/,
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
