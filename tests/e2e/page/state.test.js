// The page's URL ⇄ state layer (web/src/state/state.js) against the real engine's schema, in Node:
// whatever a URL holds, the page ends up with a config the engine accepts, and a config the page
// wrote comes back identical. Property-based (fast-check). No browser.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { createEngine } from '../../../web/src/engine/engine.js';
import {
  parseQuery,
  serialize,
  serializeChanged,
  applyChange,
  schemaDefaults,
  noticeText,
} from '../../../web/src/state/state.js';

const engine = await createEngine();
const { schema } = engine;

// Values a hostile or sloppy URL might carry, per field: in-range, out-of-range, junk, markup.
const junk = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.constantFrom(
    '',
    ' ',
    'NaN',
    'Infinity',
    '-Infinity',
    '1e999',
    '0x10',
    '<b>x</b>',
    'true',
    'false',
    '-0',
    '1.5',
    'fp16',
    'sqrt',
  ),
  fc.double({ noNaN: false }).map(String),
  fc.integer({ min: -10, max: 5000 }).map(String),
);
const query = fc
  .dictionary(fc.constantFrom(...schema.map((f) => f.name), 'unknown', 'panel'), junk, { maxKeys: 16 })
  .map((o) => new URLSearchParams(o).toString());

test('any URL query becomes a config the engine accepts, with a notice per changed field', () => {
  fc.assert(
    fc.property(query, (q) => {
      const { config, notices } = parseQuery(q, schema);
      const validated = engine.validate(config); // throws if the page and the engine disagree
      for (const f of schema) assert.deepEqual(validated[f.name], config[f.name], f.name);
      const given = new URLSearchParams(q);
      for (const n of notices) {
        assert.ok(given.has(n.field) || n.field === 'blockSize', `notice for a field in the URL: ${n.field}`);
        assert.equal(typeof noticeText(n), 'string');
      }
    }),
    { numRuns: 400 },
  );
});

// Valid configs, drawn from the schema itself.
const validConfig = fc
  .record({
    dk: fc.integer({ min: 1, max: 4096 }),
    seqLen: fc.integer({ min: 8, max: 2048 }),
    precision: fc.constantFrom('fp32', 'bf16', 'fp16', 'fp8e4m3', 'fp8e5m2'),
    saturate: fc.boolean(),
    scale: fc.oneof(
      fc.constantFrom('none', 'sqrt', 'linear'),
      fc.double({ min: 1e-6, max: 1e6, noNaN: true, noDefaultInfinity: true }),
    ),
    subtractMax: fc.boolean(),
    softmax: fc.constantFrom('naive', 'online'),
    blockSize: fc.integer({ min: 1, max: 2048 }),
    causal: fc.boolean(),
    mean: fc.double({ min: -5, max: 5, noNaN: true }),
    std: fc.double({ min: 0.01, max: 5, noNaN: true }),
    correlation: fc.double({ min: -1, max: 1, noNaN: true }),
    seed: fc.integer({ min: 0, max: 2 ** 32 - 1 }),
    qkNorm: fc.constantFrom('none', 'rms', 'layer'),
    lengthScale: fc.oneof(fc.constant(0), fc.double({ min: 0, max: 4, noNaN: true })),
    softcap: fc.oneof(fc.constant(0), fc.double({ min: 0, max: 1000, noNaN: true })),
  })
  .map((c) => ({
    ...c,
    blockSize: Math.min(c.blockSize, c.seqLen),
    mean: c.mean === 0 ? 0 : c.mean,
    lengthScale: c.lengthScale || 0,
    softcap: c.softcap || 0,
  }));

test('serialize → parse restores every field exactly, with no notice', () => {
  fc.assert(
    fc.property(validConfig, (cfg) => {
      const { config, notices } = parseQuery(serialize(cfg, schema), schema);
      assert.deepEqual(notices, []);
      for (const f of schema)
        assert.ok(
          Object.is(config[f.name], cfg[f.name]) || config[f.name] === cfg[f.name],
          `${f.name}: ${cfg[f.name]} → ${config[f.name]}`,
        );
    }),
    { numRuns: 400 },
  );
});

test('only the fields that differ from the defaults (the Embed snippets) restore every field exactly', () => {
  assert.equal(serializeChanged(schemaDefaults(schema), schema), '');
  fc.assert(
    fc.property(validConfig, (cfg) => {
      const q = serializeChanged(cfg, schema);
      const { config, notices } = parseQuery(q, schema);
      assert.deepEqual(notices, []);
      for (const f of schema)
        assert.ok(config[f.name] === cfg[f.name], `${f.name}: ${cfg[f.name]} → ${config[f.name]} (?${q})`);
    }),
    { numRuns: 400 },
  );
});

test('control changes keep the config valid (blockSize follows T down)', () => {
  const base = schemaDefaults(schema);
  const { config } = applyChange(
    { ...base, softmax: 'online', blockSize: 512, seqLen: 1024 },
    { seqLen: 100 },
    schema,
  );
  assert.equal(config.blockSize, 100);
  engine.validate(config);
  const bad = applyChange(base, { std: 0 }, schema);
  assert.equal(bad.config.std, base.std);
  assert.equal(bad.notices[0].field, 'std');
});
