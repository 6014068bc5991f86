// JavaScript source as far as the repo checks need it (schema-lists.test.js, exports-used.test.js):
// the files of a folder, and a file's tokens with comments left out. String literals, template
// chunks, numbers, names and punctuators each carry their line; a `/` starts a regular expression
// where a value cannot stand before it (the usual rule of thumb, enough for Prettier-formatted code).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

export const SOURCE_EXT = /\.(m?js|cjs)$/;

/** Every file under `dir` (repo-relative paths, '/'-separated), skipping node_modules and `skip`. */
export function filesUnder(root, dir, skip = () => false) {
  const out = [];
  const walk = (abs) => {
    for (const name of readdirSync(abs).sort()) {
      const p = join(abs, name);
      const rel = relative(root, p).split('\\').join('/');
      if (name === 'node_modules' || skip(rel)) continue;
      if (statSync(p).isDirectory()) walk(p);
      else out.push(rel);
    }
  };
  walk(join(root, dir));
  return out;
}

const KEYWORDS_BEFORE_VALUE = new Set([
  'return',
  'typeof',
  'case',
  'do',
  'else',
  'in',
  'of',
  'new',
  'delete',
  'void',
  'throw',
  'instanceof',
  'yield',
  'await',
]);
const NAME = /[\p{ID_Continue}$\u200c\u200d]/u;
const PUNCT = ['>>>=', '...', '===', '!==', '**=', '<<=', '>>=', '>>>', '&&=', '||=', '??='];

/** A string literal's value: the common escapes decoded, enough to compare it with a name. */
function cooked(raw) {
  return raw.replace(/\\(u\{[0-9a-fA-F]+\}|u[0-9a-fA-F]{4}|x[0-9a-fA-F]{2}|.)/gs, (_, e) => {
    if (e[0] === 'u' || e[0] === 'x') return String.fromCodePoint(parseInt(e.replace(/[ux{}]/g, ''), 16));
    return { n: '\n', t: '\t', r: '\r', 0: '\0' }[e] ?? e;
  });
}

/**
 * The tokens of `src`: { type: 'string' | 'template' | 'number' | 'name' | 'punct' | 'regex',
 * value, line }. A template's text between substitutions comes as 'template' tokens; the
 * substitutions are tokenized like any code.
 */
export function tokenize(src) {
  const tokens = [];
  let i = 0;
  let line = 1;
  const braces = []; // per open '{' or '${': true when it closes a template substitution
  const push = (type, value, at) => tokens.push({ type, value, line: at });
  const regexAllowed = () => {
    const t = tokens[tokens.length - 1];
    if (!t) return true;
    if (t.type === 'name') return KEYWORDS_BEFORE_VALUE.has(t.value);
    if (t.type === 'punct') return ![')', ']', '}'].includes(t.value);
    return false;
  };
  const advance = (n) => {
    for (let k = 0; k < n; k++) if (src[i + k] === '\n') line++;
    i += n;
  };
  /** The template text from i (just after '`' or '}') to the next '${' or closing '`'. */
  function templateChunk() {
    const at = line;
    let j = i;
    while (j < src.length && src[j] !== '`' && !(src[j] === '$' && src[j + 1] === '{'))
      j += src[j] === '\\' ? 2 : 1;
    push('template', cooked(src.slice(i, j)), at);
    advance(j - i);
    if (src[i] === '`') advance(1);
    else {
      braces.push(true);
      advance(2);
    }
  }
  while (i < src.length) {
    const c = src[i];
    if (/\s/.test(c)) advance(1);
    else if (c === '/' && src[i + 1] === '/') while (i < src.length && src[i] !== '\n') i++;
    else if (c === '/' && src[i + 1] === '*') advance(src.indexOf('*/', i + 2) + 2 - i);
    else if (c === "'" || c === '"') {
      let j = i + 1;
      while (j < src.length && src[j] !== c) j += src[j] === '\\' ? 2 : 1;
      push('string', cooked(src.slice(i + 1, j)), line);
      advance(j + 1 - i);
    } else if (c === '`') {
      advance(1);
      templateChunk();
    } else if (c === '}' && braces.length && braces[braces.length - 1]) {
      braces.pop();
      advance(1);
      templateChunk();
    } else if (/[0-9]/.test(c) || (c === '.' && /[0-9]/.test(src[i + 1]))) {
      const m = /^(0[xXoObB][0-9a-fA-F_]+n?|(\d[\d_]*\.?[\d_]*|\.\d[\d_]*)([eE][+-]?\d+)?n?)/.exec(
        src.slice(i),
      );
      push('number', m[0], line);
      advance(m[0].length);
    } else if (NAME.test(c) || c === '#') {
      let j = i + 1;
      while (j < src.length && NAME.test(src[j])) j++;
      push('name', src.slice(i, j), line);
      advance(j - i);
    } else if (c === '/' && regexAllowed()) {
      let j = i + 1,
        inClass = false;
      for (; j < src.length && (src[j] !== '/' || inClass); j++) {
        if (src[j] === '\\') j++;
        else if (src[j] === '[') inClass = true;
        else if (src[j] === ']') inClass = false;
      }
      j++;
      while (NAME.test(src[j] ?? '')) j++;
      push('regex', src.slice(i, j), line);
      advance(j - i);
    } else {
      const p =
        PUNCT.find((x) => src.startsWith(x, i)) ?? (/^(=>|[=!<>&|?*+-]{2})/.exec(src.slice(i))?.[0] || c);
      if (p === '{') braces.push(false);
      else if (p === '}') braces.pop();
      push('punct', p, line);
      advance(p.length);
    }
  }
  return tokens;
}

/** The tokens of a repo file. */
export const tokensOf = (root, rel) => tokenize(readFileSync(join(root, rel), 'utf8'));
