// Every export of web/src is used outside its own file, or is public API. An export that no other
// module imports is dead code or a name that should be private: delete it, or drop `export`.
//
// Who counts as a user: every module under web/src, tests/, build-scripts/ and vite.config.js.
//   - a static import or re-export names what it uses (`import { a, b as c }`, `export { a } from`,
//     `export * from`; `import * as ns` uses what follows `ns.`);
//   - a module loaded at run time (`import('./x.js')`, a Worker's URL, a path handed to a browser
//     page or to Vite) is used through properties (`mod.mount`): there, an export counts as used
//     when any other module names it.
// Public API: a module with a declaration file beside it (engine.js and engine.d.ts, the tensors
// files, the web component) keeps every name that file declares, for the package's users.
// The offline build routes every import of engine/engine.js to offline/engine.js
// (build-scripts/lib/vite-offline.js): that file's exports stand in for the engine's.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, posix, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SOURCE_EXT, filesUnder, tokensOf, tokenize } from './js-source.js';

const repoRoot = resolve(fileURLToPath(new URL('../../..', import.meta.url)));
const STANDS_IN_FOR = { 'web/src/offline/engine.js': 'web/src/engine/engine.js' };
const NOT_SOURCE = (rel) => /^tests\/(output|fuzz\/corpus)\//.test(rel);

const pkg = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8'));

/** `spec` imported from `from` → a repo file ('web/src/x.js'), or null (a package, a builtin). */
function resolveSpec(from, spec) {
  const clean = spec.split('?')[0];
  if (clean === pkg.name || clean.startsWith(`${pkg.name}/`)) {
    const entry = pkg.exports[clean === pkg.name ? '.' : `./${clean.slice(pkg.name.length + 1)}`];
    const target = typeof entry === 'string' ? entry : entry?.default;
    return target ? posix.normalize(target) : null;
  }
  if (!clean.startsWith('.')) return null;
  return posix.normalize(posix.join(posix.dirname(from), clean));
}

/** Names inside `{ … }` from token k (at '{'): [{ name, local }] and the index after '}'. */
function braceList(tokens, k) {
  const names = [];
  let i = k + 1;
  while (i < tokens.length && tokens[i].value !== '}') {
    const t = tokens[i];
    if (t.type === 'name' && t.value !== 'type') {
      const asAt = tokens[i + 1]?.value === 'as';
      names.push({ name: t.value, local: asAt ? tokens[i + 2].value : t.value });
      i += asAt ? 3 : 1;
    } else i++;
  }
  return { names, next: i + 1 };
}

/**
 * One module's imports and exports: { exports: [{ name, line }], uses: [{ file, names | '*' }],
 * loads: [file] (run-time loads), words: Set of every name token }.
 */
function readModule(rel) {
  const tokens = tokensOf(repoRoot, rel);
  const out = { exports: [], uses: [], loads: [], words: new Set() };
  const fromAt = (i) => (tokens[i]?.value === 'from' ? resolveSpec(rel, tokens[i + 1].value) : null);
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i];
    if (t.type === 'name') out.words.add(t.value);
    if (t.type === 'string' || t.type === 'template') {
      if (['from', 'import'].includes(tokens[i - 1]?.value)) continue; // a static import's source
      // Any other path to a module of the tree: loaded at run time.
      const m = /(?:^|\/)(src\/[\w./-]+\.js)\b/.exec(t.value);
      if (m) out.loads.push(`web/${m[1]}`);
      if (t.value.startsWith('.')) out.loads.push(resolveSpec(rel, t.value));
      continue;
    }
    if (t.type !== 'name' || tokens[i - 1]?.value === '.') continue;
    const next = tokens[i + 1];
    if (t.value === 'import' && next?.type !== 'punct') {
      // import X from, import X, { … } from, import 'side-effect'
      if (next.type === 'string') continue;
      let j = i + 1;
      const names = [];
      if (tokens[j].type === 'name') {
        names.push('default');
        j += tokens[j + 1].value === ',' ? 2 : 1;
      }
      if (tokens[j].value === '{') {
        const list = braceList(tokens, j);
        names.push(...list.names.map((n) => n.name));
        j = list.next;
      }
      const file = fromAt(j);
      if (file) out.uses.push({ file, names });
    } else if (t.value === 'import' && next.value === '{') {
      const list = braceList(tokens, i + 1);
      const file = fromAt(list.next);
      if (file) out.uses.push({ file, names: list.names.map((n) => n.name) });
    } else if (t.value === 'import' && next.value === '*') {
      const ns = tokens[i + 3].value;
      const file = fromAt(i + 4);
      const names = tokens.filter(
        (x, k) => x.type === 'name' && tokens[k - 1]?.value === '.' && tokens[k - 2]?.value === ns,
      );
      if (file) out.uses.push({ file, names: names.map((x) => x.value) });
    } else if (t.value === 'export') {
      readExport(tokens, i, out, fromAt);
    }
  }
  return out;
}

const DECLARES = new Set(['function', 'class', 'const', 'let', 'var', 'interface', 'type', 'enum']);

/** One `export …` statement at token i. */
function readExport(tokens, i, out, fromAt) {
  let j = i + 1;
  const t = tokens[j];
  if (t.value === 'default') {
    out.exports.push({ name: 'default', line: t.line });
    return;
  }
  if (t.value === '*') {
    const file = fromAt(tokens[j + 1].value === 'as' ? j + 3 : j + 1);
    if (file) out.uses.push({ file, names: '*' });
    if (tokens[j + 1].value === 'as') out.exports.push({ name: tokens[j + 2].value, line: t.line });
    return;
  }
  if (t.value === '{') {
    const list = braceList(tokens, j);
    const file = fromAt(list.next);
    if (file) out.uses.push({ file, names: list.names.map((n) => n.name) });
    for (const n of list.names) out.exports.push({ name: n.local, line: t.line });
    return;
  }
  while (['async', 'declare', 'abstract'].includes(tokens[j].value)) j++;
  if (!DECLARES.has(tokens[j].value)) return;
  j++;
  if (tokens[j].value === '*') j++;
  out.exports.push({ name: tokens[j].value, line: tokens[j].line });
}

/** The names a declaration file gives its module (following `export * from`). */
function declaredNames(dts, seen = new Set()) {
  if (seen.has(dts) || !existsSync(join(repoRoot, dts))) return [];
  seen.add(dts);
  const tokens = tokenize(readFileSync(join(repoRoot, dts), 'utf8'));
  const m = { exports: [], uses: [] };
  const fromAt = (i) => (tokens[i]?.value === 'from' ? resolveSpec(dts, tokens[i + 1].value) : null);
  tokens.forEach((t, i) => t.value === 'export' && t.type === 'name' && readExport(tokens, i, m, fromAt));
  return [
    ...m.exports.map((e) => e.name),
    ...m.uses.flatMap((u) => declaredNames(u.file.replace(/\.js$/, '.d.ts'), seen)),
  ];
}

function unusedExports() {
  const consumers = [
    ...filesUnder(repoRoot, 'web/src'),
    ...filesUnder(repoRoot, 'tests', NOT_SOURCE),
    ...filesUnder(repoRoot, 'build-scripts'),
    'vite.config.js',
  ].filter((f) => SOURCE_EXT.test(f));
  const modules = new Map(consumers.map((f) => [f, readModule(f)]));
  const used = new Map(); // file → Set of names imported by other files ('*': all)
  const loaded = new Set();
  const use = (file, names) => {
    const set = used.get(file) ?? new Set();
    for (const n of names === '*' ? ['*'] : names) set.add(n);
    used.set(file, set);
  };
  for (const [file, m] of modules) {
    for (const u of m.uses) if (u.file !== file) use(u.file, u.names);
    for (const l of m.loads) if (l && l !== file) loaded.add(l);
  }
  const namedElsewhere = (file, name) =>
    [...modules].some(([other, m]) => other !== file && m.words.has(name));
  const isUsed = (file, name) => {
    const set = used.get(file);
    if (set?.has('*') || set?.has(name)) return true;
    return loaded.has(file) && namedElsewhere(file, name);
  };
  const unused = [];
  for (const [file, m] of modules) {
    if (!file.startsWith('web/src/')) continue;
    const publicNames = new Set(declaredNames(file.replace(/\.js$/, '.d.ts')));
    for (const e of m.exports) {
      if (publicNames.has(e.name) || isUsed(file, e.name)) continue;
      const original = STANDS_IN_FOR[file];
      if (
        original &&
        (isUsed(original, e.name) || declaredNames(original.replace(/\.js$/, '.d.ts')).includes(e.name))
      )
        continue;
      unused.push(`${file}:${e.line}: ${e.name}`);
    }
  }
  return unused;
}

test('every export of web/src is imported by another module, or is public API', () => {
  const unused = unusedExports();
  if (unused.length)
    assert.fail(
      `exported but used only in its own file (delete it, or drop 'export'):\n${unused.join('\n')}`,
    );
});

test('the reader of imports sees each form', () => {
  const dir = dirname(fileURLToPath(import.meta.url));
  assert.ok(existsSync(join(dir, 'js-source.js')));
  const m = readModule('tests/js/repo/exports-used.test.js');
  const fromSource = m.uses.find((u) => u.file === 'tests/js/repo/js-source.js');
  assert.deepEqual(fromSource.names, ['SOURCE_EXT', 'filesUnder', 'tokensOf', 'tokenize']);
  const index = readModule('web/src/tensors/index.js');
  assert.ok(
    index.uses.some((u) => u.file === 'web/src/tensors/pair-heads.js' && u.names.includes('pairHeads')),
  );
  assert.ok(declaredNames('web/src/engine/engine.d.ts').includes('createEngine'));
  assert.ok(declaredNames('web/src/tensors/index.d.ts').includes('pairHeads'));
});
