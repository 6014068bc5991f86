// Markdown as far as GitHub's rendering matters to the docs checks (docs.test.js): prose lines
// outside code, inline text, heading anchors, links and tables.

/** Lines with fenced code blocks blanked (kept as empty lines so line numbers stay right). */
export function proseLines(md) {
  let fence = null;
  return md.split('\n').map((line) => {
    const m = /^\s*(`{3,}|~{3,})/.exec(line);
    if (m) {
      if (!fence) fence = m[1][0];
      else if (m[1][0] === fence) fence = null;
      return '';
    }
    return fence ? '' : line;
  });
}

/** The text GitHub renders for inline Markdown: code spans, links and emphasis reduced to their text. */
export function inlineText(s) {
  return s
    .replace(/`+([^`]*)`+/g, '$1')
    .replace(/!\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]+>/g, '')
    .replace(/\*\*|__|\*/g, '');
}

/**
 * GitHub's heading anchor: lowercase, then every character that is punctuation (other than '-'
 * and '_'), a symbol, a control or format character, or a separator other than the space is dropped
 * (letters, digits and marks stay, alphabetic symbols too), then each space becomes '-'. So
 * "Why √d_k and not d_k" → "why-d_k-and-not-d_k", "`advance(ms)` · jobs" → "advancems--jobs".
 */
export function githubSlug(text) {
  const drop = /[\p{P}\p{S}\p{C}\p{Z}\p{No}]/u;
  const keep = (c) => c === '-' || c === '_' || c === ' ' || /\p{Alphabetic}/u.test(c);
  return [...inlineText(text).trim().toLowerCase()]
    .filter((c) => !drop.test(c) || keep(c))
    .join('')
    .replace(/ /g, '-');
}

/** The anchors a page offers: heading slugs (repeats numbered -1, -2, … as GitHub does) and explicit ids. */
export function anchorsOf(md) {
  const seen = new Map();
  const anchors = new Set();
  for (const line of proseLines(md)) {
    const h = /^ {0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (h) {
      const base = githubSlug(h[1]);
      const n = seen.get(base) ?? 0;
      seen.set(base, n + 1);
      anchors.add(n ? `${base}-${n}` : base);
    }
    for (const m of line.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) anchors.add(m[1]);
  }
  return anchors;
}

/** Inline links and images outside code: { target, line }. */
export function linksOf(md) {
  const out = [];
  proseLines(md).forEach((raw, i) => {
    const line = raw.replace(/`[^`]*`/g, '');
    for (const m of line.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g))
      out.push({ target: m[1], line: i + 1 });
    for (const m of line.matchAll(/<(?:img|a)\s[^>]*(?:src|href)="([^"]+)"/g))
      out.push({ target: m[1], line: i + 1 });
  });
  return out;
}

/** Tables: { heading, header: [cells], rows: [[cells]], line }, with the nearest heading above. */
export function tablesOf(md) {
  const lines = proseLines(md);
  const cells = (l) =>
    l
      .trim()
      .replace(/^\||\|$/g, '')
      .split(/(?<!\\)\|/)
      .map((c) => c.trim());
  const tables = [];
  let heading = '';
  for (let i = 0; i < lines.length; i++) {
    const h = /^#{1,6}\s+(.*)$/.exec(lines[i]);
    if (h) heading = inlineText(h[1]).trim();
    if (/^\s*\|/.test(lines[i]) && /^\s*\|?\s*:?-{3,}/.test(lines[i + 1] ?? '')) {
      const table = { heading, header: cells(lines[i]), rows: [], line: i + 1 };
      for (i += 2; i < lines.length && /^\s*\|/.test(lines[i]); i++) table.rows.push(cells(lines[i]));
      tables.push(table);
    }
  }
  return tables;
}

export const CHECKED = new Set(['field', 'member', 'export', 'import']);
/** The name a checked row lists: the code span of its first cell, up to a '(' . */
export function rowName(cell) {
  const m = /^`([^`(]+)/.exec(cell);
  return m ? m[1].trim() : null;
}
export const codeSpans = (cell) => [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1]);
