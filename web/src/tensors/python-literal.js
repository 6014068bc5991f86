// Parses the Python literals of a .npy header (numpy.lib.format writes a dict's repr), evaluating nothing.

/** Deeper nesting than any dtype description needs; the limit keeps the recursion bounded. */
const MAX_DEPTH = 16;

/** A parsed tuple is an array marked as a tuple, so `(3,)` and `[3]` can be told apart. */
export const TUPLE = Symbol('tuple');

/**
 * Parses one Python literal that fills `text` (surrounding whitespace allowed): dicts, tuples, lists,
 * quoted strings, integers, True, False and None; anything else is an error that says where it stopped.
 * Dicts become Maps (keys may be any literal), tuples and lists arrays (tuples carry `[TUPLE]: true`).
 * @param {string} text
 * @returns {unknown}
 */
export function parsePythonLiteral(text) {
  const parser = { text, at: 0 };
  const value = parseValue(parser, 0);
  skipSpace(parser);
  if (parser.at < text.length) fail(parser, 'unexpected text after the end');
  return value;
}

function fail(parser, what) {
  throw new Error(`${what} at character ${parser.at + 1}`);
}

function skipSpace(parser) {
  while (parser.at < parser.text.length && ' \t\r\n\f'.includes(parser.text[parser.at])) parser.at++;
}

function parseValue(parser, depth) {
  skipSpace(parser);
  const c = parser.text[parser.at];
  if (c === undefined) fail(parser, 'the text ends where a value should be');
  if (c === '{' || c === '(' || c === '[') {
    if (depth >= MAX_DEPTH) fail(parser, `nesting deeper than ${MAX_DEPTH} levels`);
    return c === '{' ? parseDict(parser, depth + 1) : parseSequence(parser, depth + 1);
  }
  if (c === "'" || c === '"') return parseString(parser);
  if (c === '-' || c === '+' || (c >= '0' && c <= '9')) return parseInteger(parser);
  for (const [word, value] of [
    ['True', true],
    ['False', false],
    ['None', null],
  ]) {
    if (parser.text.startsWith(word, parser.at) && !isWordChar(parser.text[parser.at + word.length])) {
      parser.at += word.length;
      return value;
    }
  }
  fail(parser, `unexpected '${c}'`);
}

function isWordChar(c) {
  return c !== undefined && /[A-Za-z0-9_]/.test(c);
}

/** Reads items up to `close`, with commas between and an optional trailing comma. */
function parseItems(parser, close, depth, readItem) {
  parser.at++; // the opening bracket
  let commas = 0;
  let items = 0;
  for (;;) {
    skipSpace(parser);
    if (parser.at >= parser.text.length) fail(parser, `the text ends before the closing '${close}'`);
    if (parser.text[parser.at] === close) {
      parser.at++;
      return { items, commas };
    }
    if (items > commas) fail(parser, `expected ',' or '${close}'`);
    readItem(depth);
    items++;
    skipSpace(parser);
    if (parser.text[parser.at] === ',') {
      parser.at++;
      commas++;
    }
  }
}

function parseSequence(parser, depth) {
  const open = parser.text[parser.at];
  const close = open === '(' ? ')' : ']';
  const values = [];
  const { items, commas } = parseItems(parser, close, depth, (d) => values.push(parseValue(parser, d)));
  if (open === '[') return values;
  // `(3)` is the number 3 in parentheses; `(3,)` is a one-element tuple.
  if (items === 1 && commas === 0) return values[0];
  Object.defineProperty(values, TUPLE, { value: true });
  return values;
}

function parseDict(parser, depth) {
  const dict = new Map();
  parseItems(parser, '}', depth, (d) => {
    const key = parseValue(parser, d);
    skipSpace(parser);
    if (parser.text[parser.at] !== ':') fail(parser, "expected ':' after a dict key");
    parser.at++;
    if (dict.has(key)) fail(parser, `the key ${String(key)} appears twice`);
    dict.set(key, parseValue(parser, d));
  });
  return dict;
}

const ESCAPES = { '\\': '\\', "'": "'", '"': '"', n: '\n', t: '\t', r: '\r', 0: '\0' };

function parseString(parser) {
  const quote = parser.text[parser.at++];
  let value = '';
  for (;;) {
    const c = parser.text[parser.at++];
    if (c === undefined || c === '\n') fail(parser, 'a string is not closed');
    if (c === quote) return value;
    if (c !== '\\') {
      value += c;
      continue;
    }
    const escaped = parser.text[parser.at++];
    if (!(escaped in ESCAPES)) fail(parser, `unsupported escape '\\${escaped ?? ''}' in a string`);
    value += ESCAPES[escaped];
  }
}

function parseInteger(parser) {
  // Python 2 era headers write lengths as longs: (3L, 4L).
  const match = /^[-+]?[0-9]{1,20}[lL]?/.exec(parser.text.slice(parser.at, parser.at + 24));
  const next = parser.text[parser.at + (match ? match[0].length : 0)] ?? '';
  if (!match || /[.eExX_]/.test(next)) fail(parser, 'only integers are expected as numbers');
  const value = Number(match[0].replace(/[lL]$/, ''));
  if (!Number.isSafeInteger(value) || /[0-9]/.test(next)) fail(parser, `an integer is too large`);
  parser.at += match[0].length;
  return value;
}
