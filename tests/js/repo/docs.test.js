// The docs cannot drift from the tree: README.md and docs/*.md are read as GitHub renders them and
// checked against the files, package.json, the engine's real schema and results, and the
// hand-written declarations.
//   - every relative link reaches a file, and every #anchor a heading (GitHub's slugs);
//   - every `npm run X` is a script, and every path of the tree named in code exists;
//   - docs/api.md lists every config field (with the schema's type, range and default), every
//     member of Engine, SweepJob and Trainer, every export and every field `run` returns; and
//     every name its checked tables list exists;
//   - docs/embedding.md lists every component attribute and panel name;
//   - the README stays short and its picture small.
//
// Checked tables: a Markdown table whose first header cell is `field`, `member`, `export` or
// `import` lists, in its first column, a name in a code span (`run(cfg)` names `run`).
import { test, before, describe } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import {
  proseLines,
  githubSlug,
  anchorsOf,
  linksOf,
  tablesOf,
  CHECKED,
  rowName,
  codeSpans,
} from './markdown.js';

const repoRoot = resolve(fileURLToPath(new URL('../../..', import.meta.url)));
const pkg = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8'));
const read = (rel) => readFileSync(join(repoRoot, rel), 'utf8');

const DOCS = [
  'README.md',
  ...readdirSync(join(repoRoot, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => `docs/${f}`),
];
const README_MAX_LINES = 250;
const PICTURE_MAX_BYTES = 250 * 1024;

// ---- the declarations ----

/** Members of `export class NAME { … }` in a .d.ts (no private constructor). */
function classMembers(dts, name) {
  const start = dts.indexOf(`export class ${name}`);
  assert.ok(start >= 0, `declarations have no class ${name}`);
  // The class body at brace depth 1, with parameter lists emptied (they may span lines).
  let depth = 0,
    parens = 0,
    i = dts.indexOf('{', start),
    body = '';
  for (; i < dts.length; i++) {
    const c = dts[i];
    if (c === '{') depth++;
    if (c === '}' && --depth === 0) break;
    if (depth !== 1) continue;
    if (c === '(' && parens++ > 0) continue;
    if (c === ')' && --parens > 0) continue;
    if (parens === 0 || c === '(') body += c;
  }
  const members = new Set();
  for (const m of body.matchAll(/^\s*(?:readonly\s+)?([A-Za-z_$][\w$]*)\s*(?:<[^\n]*?>)?\s*[?(:]/gm)) {
    if (m[1] !== 'constructor' && m[1] !== 'private') members.add(m[1]);
  }
  return members;
}
const exportsOf = (dts) =>
  new Set(
    [
      ...dts.matchAll(
        /^export\s+(?:declare\s+)?(?:type|interface|class|function|const)\s+([A-Za-z_$][\w$]*)/gm,
      ),
    ].map((m) => m[1]),
  );
/** Every property or member name a .d.ts declares (quoted ones such as 'seq-len' included). */
const declaredNames = (dts) =>
  new Set(
    [...dts.matchAll(/^\s*(?:readonly\s+)?'?([A-Za-z_$][\w$-]*)'?\??\s*(?:<[^\n]*?>)?\s*[:(]/gm)].map(
      (m) => m[1],
    ),
  );
/** The string literals of `export type NAME = 'a' | 'b' …`. */
function unionOf(dts, name) {
  const m = new RegExp(`export type ${name} = ([^;]+);`).exec(dts);
  assert.ok(m, `declarations have no type ${name}`);
  return [...m[1].matchAll(/'([^']+)'/g)].map((x) => x[1]);
}

const typesPath = (entry) => pkg.exports[entry].types.replace(/^\.\//, '');
/** A declaration file with the files it re-exports (`export * from './x.js'`), as one text. */
const withReexports = (path) => {
  const text = read(path);
  const parts = [...text.matchAll(/^export \* from '\.\/([\w-]+)\.js';$/gm)].map((m) =>
    read(join(dirname(path), `${m[1]}.d.ts`)),
  );
  return [text, ...parts].join('\n');
};
// attnscale: engine.d.ts and the trainer's and the sweep jobs' declarations it re-exports.
const engineDts = withReexports(typesPath('.'));
const componentDts = read(typesPath('./component'));
// attnscale/tensors: index.d.ts re-exports the declarations of its modules.
const tensorsDts = withReexports(typesPath('./tensors'));
const kebab = (s) => s.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

// ---- the engine, loaded as a user's `import 'attnscale'` resolves it ----

let engine, schema, result;
before(async () => {
  const { createEngine } = await import(pathToFileURL(join(repoRoot, pkg.exports['.'].default)).href);
  engine = await createEngine();
  schema = engine.schema;
  result = engine.run({ dk: 8, seqLen: 8 });
});

// ---- the checks ----

describe('links and anchors', () => {
  for (const file of DOCS) {
    test(`${file}: every relative link and #anchor resolves`, () => {
      const problems = [];
      for (const { target, line } of linksOf(read(file))) {
        if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//')) continue; // http:, mailto:, …
        const [path, anchor] = target.split('#');
        const abs = path
          ? resolve(dirname(join(repoRoot, file)), decodeURIComponent(path))
          : join(repoRoot, file);
        if (!abs.startsWith(repoRoot) || !existsSync(abs)) {
          problems.push(`${file}:${line}: ${target}: no such file`);
          continue;
        }
        if (anchor === undefined) continue;
        if (!abs.endsWith('.md') || statSync(abs).isDirectory()) {
          problems.push(`${file}:${line}: ${target}: an anchor into a file that is not Markdown`);
          continue;
        }
        const anchors = anchorsOf(readFileSync(abs, 'utf8'));
        if (!anchors.has(anchor))
          problems.push(
            `${file}:${line}: ${target}: ${relative(repoRoot, abs)} has no heading with the anchor #${anchor}`,
          );
      }
      assert.deepEqual(problems, []);
    });
  }

  test('GitHub slugs: symbols and punctuation drop out, - and _ stay', () => {
    assert.equal(githubSlug('Why √d_k and not d_k'), 'why-d_k-and-not-d_k');
    assert.equal(
      githubSlug('Beyond 1/√d_k: QK-norm, soft-caps and s·ln T'),
      'beyond-1d_k-qk-norm-soft-caps-and-sln-t',
    );
    assert.equal(githubSlug('What `run` returns'), 'what-run-returns');
    assert.equal(githubSlug('Low precision: where run rounds'), 'low-precision-where-run-rounds');
    assert.equal(githubSlug('Steps — one by one (×2)'), 'steps--one-by-one-2');
  });
});

test('every path of the tree that the docs name in code exists', () => {
  // `cpp/config/config.cpp`, `web/src/ui/controls.js`, `tests/e2e/`: written relative to the
  // repository's root. Outputs (build/, dist/, tests/output/) and placeholders (NAME) are not in the tree.
  const problems = [];
  for (const file of DOCS) {
    proseLines(read(file)).forEach((line, i) => {
      for (const span of line.matchAll(/`([^`\s]+)`/g)) {
        const path = span[1].replace(/[),.:;]+$/, '');
        if (
          !/^(cpp|web|tests|build-scripts|docs|\.github|\.ci)\/[\w./-]*$/.test(path) ||
          /NAME|\*|^tests\/output\//.test(path)
        )
          continue;
        if (!existsSync(join(repoRoot, path))) problems.push(`${file}:${i + 1}: ${path}`);
      }
    });
  }
  assert.deepEqual(problems, []);
});

test('every `npm run X` in the docs is a script of package.json, and npm start / npm test exist', () => {
  const scripts = pkg.scripts ?? {};
  const problems = [];
  for (const file of DOCS) {
    read(file)
      .split('\n')
      .forEach((line, i) => {
        for (const m of line.matchAll(/\bnpm run(?:-script)?\s+([\w:.-]+)/g))
          if (!(m[1] in scripts)) problems.push(`${file}:${i + 1}: npm run ${m[1]}`);
        for (const m of line.matchAll(/\bnpm (start|test)\b/g))
          if (!(m[1] in scripts)) problems.push(`${file}:${i + 1}: npm ${m[1]}`);
      });
  }
  assert.deepEqual(problems, []);
});

describe('docs/api.md (with api-training.md and api-models.md) against the engine and its declarations', () => {
  const md = ['docs/api.md', 'docs/api-training.md', 'docs/api-models.md'].map(read).join('\n');
  const tables = tablesOf(md);
  const checked = tables.filter((t) => CHECKED.has(t.header[0]));
  const listed = (kinds) =>
    new Set(
      checked
        .filter((t) => kinds.includes(t.header[0]))
        .flatMap((t) => t.rows.map((r) => rowName(r[0])))
        .filter(Boolean),
    );
  const tableUnder = (heading) => {
    const t = tables.find((x) => x.heading === heading && x.header[0] === 'field');
    assert.ok(t, `docs/api.md has no field table under the heading "${heading}"`);
    return t;
  };

  /** The range a field table must state for a schema row, as code spans. */
  function expectedRange(f) {
    const interval = (min, max) => `${f.minExclusive ? '(' : '['}${min}, ${max}]`;
    if (f.type === 'int' || f.type === 'number') return [interval(f.min, f.maxField ?? f.max)];
    if (f.type === 'enum') return f.values.map((v) => `'${v}'`);
    if (f.type === 'scale') return [...f.values.map((v) => `'${v}'`), interval(f.min, f.max)];
    return [];
  }
  const literal = (v) =>
    typeof v === 'string' ? `'${v}'` : Array.isArray(v) ? `[${v.map(literal).join(', ')}]` : String(v);

  /** Rows of `table` for `fields` (schema rows): type, range and default as the schema has them. */
  function checkFieldTable(table, fields, { requireAll }) {
    const col = Object.fromEntries(table.header.map((h, i) => [h, i]));
    for (const name of ['type', 'range', 'default'])
      assert.ok(name in col, `the table "${table.heading}" has no ${name} column`);
    const rows = new Map(table.rows.map((r) => [rowName(r[0]), r]));
    const problems = [];
    for (const f of fields) {
      const r = rows.get(f.name);
      if (!r) {
        if (requireAll) problems.push(`${f.name}: no row`);
        continue;
      }
      if (r[col.type] !== f.type)
        problems.push(`${f.name}: type "${r[col.type]}", the schema says ${f.type}`);
      const spans = codeSpans(r[col.range]);
      for (const want of expectedRange(f))
        if (!spans.includes(want))
          problems.push(`${f.name}: range should show \`${want}\`, has "${r[col.range]}"`);
      const shownDefault = codeSpans(r[col.default])[0];
      if (shownDefault !== literal(f.default))
        problems.push(`${f.name}: default \`${shownDefault}\`, the schema says \`${literal(f.default)}\``);
    }
    assert.deepEqual(problems, []);
    return rows;
  }

  test('the config table is engine.schema: every field, and nothing else, with its type, range and default', () => {
    const rows = checkFieldTable(tableUnder('Config fields'), schema, { requireAll: true });
    assert.deepEqual(
      [...rows.keys()].filter((n) => !schema.some((f) => f.name === n)),
      [],
      'rows that are not schema fields',
    );
  });

  test('the training table agrees with engine.trainSchema', () => {
    const fields = engine.trainSchema.filter((f) => f.type !== 'limit');
    checkFieldTable(tableUnder('Training settings'), fields, { requireAll: true });
    for (const f of engine.trainSchema.filter((x) => x.type === 'limit'))
      assert.match(md, new RegExp(`\`${f.name}\``), `trainSchema's ${f.name} is named`);
  });

  test('every field run returns is listed', () => {
    const fields = listed(['field']);
    assert.deepEqual(
      Object.keys(result).filter((k) => !fields.has(k)),
      [],
    );
  });

  test('every member of Engine, SweepJob and Trainer in engine.d.ts is listed', () => {
    const members = listed(['member']);
    const missing = ['Engine', 'SweepJob', 'Trainer'].flatMap((c) =>
      [...classMembers(engineDts, c)].filter((m) => !members.has(m)).map((m) => `${c}.${m}`),
    );
    assert.deepEqual(missing, []);
  });

  test("every export of the package's declarations, and every package entry, is listed", () => {
    const exported = listed(['export']);
    const declared = [...exportsOf(engineDts), ...exportsOf(componentDts), ...exportsOf(tensorsDts)];
    assert.deepEqual(
      declared.filter((n) => !exported.has(n)),
      [],
      'exports without a row',
    );
    const imports = listed(['import']);
    const entries = Object.keys(pkg.exports)
      .filter((k) => k !== './package.json')
      .map((k) => (k === '.' ? pkg.name : `${pkg.name}/${k.slice(2)}`));
    assert.deepEqual(
      entries.filter((e) => !imports.has(e)),
      [],
      'package entries without a row',
    );
    assert.deepEqual(
      [...imports].filter((e) => !entries.includes(e)),
      [],
      'rows that are not package entries',
    );
  });

  test('every name the checked tables list exists in the schema, the results or the declarations', async () => {
    const { createEngine: _, ...runtime } = await import(
      pathToFileURL(join(repoRoot, pkg.exports['.'].default)).href
    );
    const known = new Set([
      ...schema.map((f) => f.name),
      ...engine.trainSchema.map((f) => f.name),
      ...Object.keys(result),
      ...declaredNames(engineDts),
      ...declaredNames(componentDts),
      ...exportsOf(engineDts),
      ...exportsOf(componentDts),
      ...exportsOf(tensorsDts),
      'createEngine',
      ...Object.keys(runtime),
    ]);
    const unknown = checked
      .filter((t) => t.header[0] !== 'import')
      .flatMap((t) =>
        t.rows
          .map((r) => rowName(r[0]))
          .filter((n) => n && !known.has(n))
          .map((n) => `${t.heading}: ${n}`),
      );
    assert.deepEqual(unknown, []);
    const unnamed = checked.flatMap((t) =>
      t.rows.filter((r) => !rowName(r[0])).map((r) => `${t.heading}: ${r[0]}`),
    );
    assert.deepEqual(unnamed, [], 'rows of checked tables whose first cell is not a code span');
  });
});

describe('docs/embedding.md against the component', () => {
  const md = read('docs/embedding.md');
  const attributeTable = tablesOf(md).find((t) => t.header[0] === 'attribute');

  test('every attribute of <attn-scale-demo> has a row, and every row is an attribute', () => {
    assert.ok(attributeTable, 'docs/embedding.md has an attribute table');
    const rows = attributeTable.rows.map((r) => rowName(r[0]));
    const options = [...declaredNames(componentDts)].filter((n) =>
      ['panel', 'controls', 'theme', 'page', 'src', 'quiz', 'questions', 'question'].includes(n),
    );
    const attributes = [...schema.map((f) => kebab(f.name)), ...options];
    assert.deepEqual(
      attributes.filter((a) => !rows.includes(a)),
      [],
      'attributes without a row',
    );
    assert.deepEqual(
      rows.filter((r) => !attributes.includes(r)),
      [],
      'rows that are not attributes',
    );
  });

  test('every panel name is listed', () => {
    const missing = unionOf(componentDts, 'PanelName').filter((p) => !md.includes(`\`${p}\``));
    assert.deepEqual(missing, []);
  });
});

test(`README.md is for users: at most ${README_MAX_LINES} lines, and its picture at most 250 KB`, () => {
  const md = read('README.md');
  const lines = md.split('\n').length - (md.endsWith('\n') ? 1 : 0);
  assert.ok(lines <= README_MAX_LINES, `README.md has ${lines} lines`);
  const pictures = linksOf(md)
    .map((l) => l.target)
    .filter((t) => /\.png$/i.test(t) && !/^[a-z]+:/i.test(t));
  assert.ok(pictures.length > 0, 'README.md shows a picture of the page');
  for (const p of pictures) {
    const bytes = statSync(join(repoRoot, p)).size;
    assert.ok(bytes <= PICTURE_MAX_BYTES, `${p} is ${bytes} bytes`);
  }
});
