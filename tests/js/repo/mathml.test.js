// The page's math is MathML written at build time (vite.config.js): in the built page and in the
// offline file, every script element has the children MathML Core requires (msub and msup 2,
// msubsup 3, mfrac 2, munder and mover 2, munderover 3, mroot 2), so a browser that lays it out
// has nothing to repair.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

const ARITY = { msub: 2, msup: 2, msubsup: 3, mfrac: 2, munder: 2, mover: 2, munderover: 3, mroot: 2 };
const dist = (f) => readFileSync(new URL(`../../../dist/${f}`, import.meta.url), 'utf8');

/** Every element of ARITY inside <math>, with its number of element children: [{ tag, n, at }]. */
function scripts(html) {
  const out = [];
  for (const [math] of html.matchAll(/<math\b[\s\S]*?<\/math>/g)) {
    const stack = [];
    for (const m of math.matchAll(/<(\/?)([a-z]+)\b[^>]*?(\/?)>/g)) {
      const [, close, tag, self] = m;
      if (close) {
        const top = stack.pop();
        if (top && ARITY[top.tag]) out.push({ tag: top.tag, n: top.n, at: math.slice(0, 80) });
      } else {
        if (stack.length) stack[stack.length - 1].n += 1;
        if (!self) stack.push({ tag, n: 0 });
      }
    }
  }
  return out;
}

for (const file of ['index.html', 'attnscale-offline.html'])
  test(`${file}: every MathML script element has its children`, () => {
    const found = scripts(dist(file));
    assert.ok(found.length > 50, `${found.length} script elements`);
    const bad = found.filter((s) => s.n !== ARITY[s.tag]);
    assert.deepEqual(bad, []);
  });
