// Lists the C++ functions longer than a limit, counting the lines from the signature to the closing
// brace that hold code (blank lines and comment-only lines are not counted).
//   node tests/tools/cpp-function-lengths.mjs [limit = 120] [folders… = cpp tests/cpp]
// A function is a brace block whose parent is a namespace, a class or the file and whose header
// ends with ')' (then const, noexcept, override or a constructor's initializer list). Lambdas and
// blocks inside a function count towards that function.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

const [limitArg, ...folders] = process.argv.slice(2);
const limit = Number(limitArg ?? 120);
const roots = folders.length ? folders : ['cpp', 'tests/cpp'];

function* sources(dir) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* sources(path);
    else if (/\.(cpp|hpp|h|cc)$/.test(name)) yield path;
  }
}

// The text with comments, strings and character literals blanked (newlines kept), and which lines
// held code before blanking.
function strip(text) {
  let out = '';
  const codeLines = new Set();
  let line = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '\n') {
      out += c;
      line++;
    } else if (c === '/' && text[i + 1] === '/') {
      while (i < text.length && text[i] !== '\n') i++;
      i--;
    } else if (c === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      const body = text.slice(i, end + 2);
      out += body.replace(/[^\n]/g, ' ');
      line += body.split('\n').length - 1;
      i = end + 1;
    } else if (c === 'R' && text[i + 1] === '"') {
      const open = text.indexOf('(', i);
      const close = text.indexOf(')' + text.slice(i + 2, open) + '"', open);
      const body = text.slice(i, close + open - i);
      codeLines.add(line);
      out += '""' + body.slice(2).replace(/[^\n]/g, ' ');
      line += body.split('\n').length - 1;
      i = close + open - i - 1;
    } else if (c === '"' || c === "'") {
      let j = i + 1;
      while (j < text.length && text[j] !== c) j += text[j] === '\\' ? 2 : 1;
      out += c + ' '.repeat(j - i - 1) + c;
      codeLines.add(line);
      i = j;
    } else {
      out += c;
      if (c.trim()) codeLines.add(line);
    }
  }
  return { code: out, codeLines };
}

function functionsOf(path) {
  const { code, codeLines } = strip(readFileSync(path, 'utf8'));
  const found = [];
  const stack = []; // { kind: 'scope' | 'function' | 'other', start, name }
  let headerStart = 0;
  let line = 0;
  const lineAt = [];
  for (let i = 0; i < code.length; i++) {
    lineAt[i] = line;
    if (code[i] === '\n') line++;
  }
  for (let i = 0; i < code.length; i++) {
    const c = code[i];
    if (c === '{') {
      const parent = stack.at(-1);
      const header = code.slice(headerStart, i).replace(/^\s*#.*$/gm, '');
      let kind = 'other';
      if (!parent || parent.kind === 'scope') {
        if (
          /\b(namespace|class|struct|union|enum)\b[^()]*$/.test(header) ||
          /extern\s*"\s*"\s*$/.test(header)
        )
          kind = 'scope';
        else if (/\)\s*(const|noexcept|override|final|mutable|->\s*[\w:<>,\s*&]+|\s)*$/.test(header))
          kind = 'function';
        else if (/\)\s*:\s*[\s\S]*\)\s*$/.test(header) || /\)\s*:\s*[\s\S]*\}\s*$/.test(header))
          kind = 'function';
      }
      const firstCode = header.search(/\S/);
      const start = lineAt[headerStart + Math.max(firstCode, 0)];
      const name = (header.match(/([~\w:]+|operator\s*\S+)\s*\([^()]*(\([^()]*\)[^()]*)*\)[^()]*$/) ?? [])[1];
      stack.push({ kind, start, name });
      headerStart = i + 1;
    } else if (c === '}') {
      const block = stack.pop();
      if (block?.kind === 'function' && (stack.length === 0 || stack.at(-1).kind === 'scope')) {
        let lines = 0;
        for (let l = block.start; l <= lineAt[i]; l++) if (codeLines.has(l)) lines++;
        found.push({ path, line: block.start + 1, name: block.name ?? '?', lines });
      }
      headerStart = i + 1;
    } else if (c === ';' && (stack.length === 0 || stack.at(-1).kind === 'scope')) {
      headerStart = i + 1;
    }
  }
  return found;
}

const long = roots
  .flatMap((root) => [...sources(root)].flatMap(functionsOf))
  .filter((f) => f.lines > limit)
  .sort((a, b) => b.lines - a.lines);
for (const f of long) console.log(`${String(f.lines).padStart(4)}  ${f.path}:${f.line}  ${f.name}`);
console.log(`${long.length} function(s) over ${limit} lines`);
