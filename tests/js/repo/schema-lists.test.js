// The page's lists come from the engine's schema (engine.schema's `choices`, engine.trainSchema's
// `copies` row), so that a scaling or a number format is added in one C++ table and nowhere in
// web/src: no file there spells the list of scalings (every named scaling as a string literal),
// two or more number formats, or a format's largest finite value or its natural log as a number.
// The presets (state/presets.js, state/study-presets.js) are data that name the values they set:
// they are left out. The declarations' unions that must repeat a list for TypeScript (Precision,
// Scale, TrainCopy; PanelName, the panel registry's names) are checked against the real engine and
// web/src/panels/index.js instead, and a test failing names the line to write.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createEngine } from '../../../web/src/engine/engine.js';
import { PANEL_NAMES } from '../../../web/src/panels/index.js';
import { filesUnder, tokensOf } from './js-source.js';

const repoRoot = resolve(fileURLToPath(new URL('../../..', import.meta.url)));
const EXEMPT = [/^web\/src\/state\/(study-)?presets\.js$/];
const SCANNED = /\.(m?js|cjs|ts|css)$/;

/** Significant digits a number literal is written with ('65500' → 3, '3.3895e38' → 5, '448' → 3). */
function significantDigits(text) {
  const mantissa = text.toLowerCase().split('e')[0].replace(/_/g, '');
  const digits = mantissa.replace('.', '').replace(/^0+/, '');
  return mantissa.includes('.') ? digits.length : digits.replace(/0+$/, '').length;
}

/** `value` as written with `text`'s significant digits equals `target` rounded to them. */
function sameAsWritten(text, value, target) {
  const n = significantDigits(text);
  if (n < 3 || !Number.isFinite(value) || !(target > 0)) return false;
  return Number(target.toPrecision(n)) === Number(value.toPrecision(n));
}

/** A stylesheet's quoted strings and numbers (comments left out): the tokens the rules read. */
function cssTokens(rel) {
  const tokens = [];
  readFileSync(join(repoRoot, rel), 'utf8')
    .replace(/\/\*[\s\S]*?\*\//g, (c) => c.replace(/[^\n]/g, ' '))
    .split('\n')
    .forEach((text, i) => {
      const line = i + 1;
      for (const m of text.matchAll(/'([^']*)'|"([^"]*)"|(\d*\.?\d+(?:e[+-]?\d+)?)/gi))
        tokens.push(
          m[3] ? { type: 'number', value: m[3], line } : { type: 'string', value: m[1] ?? m[2], line },
        );
    });
  return tokens;
}

/** What each rule looks for, from the engine's own schema (and the copies a trainer runs by default). */
async function lists() {
  const engine = await createEngine({ simd: false });
  const choices = (name) => engine.schema.find((f) => f.name === name).choices;
  const scalings = choices('scale').map((c) => c.value);
  const formats = choices('precision');
  // A trainer given a custom multiplier runs every default copy and the custom one.
  const trainer = engine.train({ scale: 0.5 });
  const trainCopies = Object.keys(trainer.step(1).copies);
  trainer.delete();
  engine.delete();
  return {
    scalings,
    trainCopies,
    formats: formats.map((f) => f.value),
    limits: formats.flatMap((f) => [
      { what: `${f.value}'s largest finite value`, value: f.largestFinite },
      { what: `ln of ${f.value}'s largest finite value`, value: Math.log(f.largestFinite) },
    ]),
  };
}

// The unions of the declaration files that spell a list for TypeScript: each must have exactly
// the members `members(lists)` names (a string is a literal, { keyword } a type such as number).
const UNIONS = [
  { file: 'web/src/engine/engine.d.ts', name: 'Precision', members: (l) => l.formats },
  {
    file: 'web/src/engine/engine.d.ts',
    name: 'Scale',
    members: (l) => [...l.scalings, { keyword: 'number' }],
  },
  { file: 'web/src/engine/engine-train.d.ts', name: 'TrainCopy', members: (l) => l.trainCopies },
  { file: 'web/src/embed/attn-scale-demo.d.ts', name: 'PanelName', members: () => PANEL_NAMES },
];
const unionText = (members) => members.map((m) => (typeof m === 'string' ? `'${m}'` : m.keyword)).join(' | ');

/** `export type NAME = …;` in `text`: its members as written and its lines, or null. */
function declaredUnion(text, name) {
  const m = new RegExp(`^export type ${name} =([^;]*);`, 'm').exec(text);
  if (!m) return null;
  const first = text.slice(0, m.index).split('\n').length;
  const members = m[1]
    .split('|')
    .map((x) => x.trim())
    .filter(Boolean)
    .map((x) => (/^'.*'$/.test(x) ? x.slice(1, -1) : { keyword: x }));
  return { members, lines: [first, first + m[0].split('\n').length - 1] };
}

/** Every place in `rel` that breaks a rule: "file:line: what". The checked unions are not spelled lists. */
function hitsIn(rel, { scalings, formats, limits }) {
  const text = rel.endsWith('.d.ts') ? readFileSync(join(repoRoot, rel), 'utf8') : '';
  const checked = UNIONS.filter((u) => u.file === rel)
    .map((u) => declaredUnion(text, u.name)?.lines)
    .filter(Boolean);
  const tokens = (rel.endsWith('.css') ? cssTokens(rel) : tokensOf(repoRoot, rel)).filter(
    (t) => !checked.some(([a, b]) => t.line >= a && t.line <= b),
  );
  const hits = [];
  const firstLine = new Map(); // a listed name → the first line it is written on
  for (const t of tokens) {
    const literal = t.type === 'string' || t.type === 'template';
    if (literal && !firstLine.has(t.value)) firstLine.set(t.value, t.line);
    if (t.type !== 'number') continue;
    const value = Number(t.value.replace(/_/g, ''));
    for (const l of limits)
      if (sameAsWritten(t.value, value, l.value)) hits.push(`${rel}:${t.line}: ${t.value} is ${l.what}`);
  }
  const at = (names) => names.map((n) => `'${n}' (line ${firstLine.get(n)})`).join(', ');
  if (scalings.length > 1 && scalings.every((s) => firstLine.has(s)))
    hits.push(`${rel}:${firstLine.get(scalings[0])}: spells the list of scalings: ${at(scalings)}`);
  const named = formats.filter((f) => firstLine.has(f));
  if (named.length > 1)
    hits.push(`${rel}:${firstLine.get(named[0])}: names ${named.length} formats: ${at(named)}`);
  return hits;
}

test('no file of the page spells a list the engine publishes, or a format’s largest finite value', async () => {
  const what = await lists();
  assert.ok(what.scalings.length > 1 && what.formats.length > 1, 'the schema lists scalings and formats');
  const files = filesUnder(repoRoot, 'web/src').filter(
    (f) => SCANNED.test(f) && !EXEMPT.some((re) => re.test(f)),
  );
  assert.ok(files.length > 50, `only ${files.length} files found under web/src`);
  const hits = files.flatMap((f) => hitsIn(f, what));
  if (hits.length) assert.fail(`read these from the engine's schema instead:\n${hits.join('\n')}`);
});

test("the declarations' unions have exactly the engine's scalings, formats and default copies, and the registry's panels", async () => {
  const what = await lists();
  const wrong = [];
  for (const u of UNIONS) {
    const want = u.members(what);
    const got = declaredUnion(readFileSync(join(repoRoot, u.file), 'utf8'), u.name);
    const key = (m) => (typeof m === 'string' ? `'${m}'` : m.keyword);
    const same = got && [...got.members.map(key)].sort().join() === [...want.map(key)].sort().join();
    if (!same)
      wrong.push(
        `${u.file}${got ? `:${got.lines[0]}` : ''}: write export type ${u.name} = ${unionText(want)};`,
      );
  }
  if (wrong.length)
    assert.fail(`the declarations differ from the engine and the panel registry:\n${wrong.join('\n')}`);
});

test('the check finds what it looks for', async () => {
  const what = await lists();
  const { tokenize } = await import('./js-source.js');
  const src = [
    "const S = ['none', 'sqrt', 'linear'];",
    "const F = { a: 'fp16', b: `bf16` };",
    'const L = Math.log(65504) + 448 + 3.3895e38 + 11.09;',
    '// 57344 in a comment is not code',
  ].join('\n');
  const tokens = tokenize(src);
  const strings = tokens.filter((t) => t.type === 'string' || t.type === 'template').map((t) => t.value);
  assert.deepEqual(strings.slice(0, 4), ['none', 'sqrt', 'linear', 'fp16']);
  const numbers = tokens.filter((t) => t.type === 'number').map((t) => t.value);
  assert.deepEqual(numbers, ['65504', '448', '3.3895e38', '11.09']);
  for (const n of numbers)
    assert.ok(
      what.limits.some((l) => sameAsWritten(n, Number(n), l.value)),
      `${n} is one of the formats' limits or their logs`,
    );
  assert.equal(sameAsWritten('6.1', 6.1, Math.log(448)), false, 'two digits are too few to tell');
  assert.equal(sameAsWritten('450', 450, 448), false);
});
