// Every file of a built ES module graph that a browser may fetch, found statically: static and
// dynamic imports of relative paths, and `new URL('literal', import.meta.url)` (Workers, wasm).
// Used to check that the package ships everything the built component loads.
import { readFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';

const IMPORT = /(?:\bfrom|\bimport)\s*\(?\s*["'`](\.{1,2}\/[^"'`$]+)["'`]/g;
const URL_LITERAL = /new URL\(\s*["'`]([^"'`$]+)["'`]\s*,\s*import\.meta\.url\s*\)/g;

/** moduleClosure(root, entry) → sorted paths relative to `root` (the entry included). */
export async function moduleClosure(root, entry) {
  const seen = new Set();
  const queue = [join(root, entry)];
  while (queue.length) {
    const file = queue.pop();
    if (seen.has(file)) continue;
    seen.add(file);
    if (!/\.m?js$/.test(file)) continue;
    const code = await readFile(file, 'utf8');
    for (const re of [IMPORT, URL_LITERAL]) {
      for (const [, spec] of code.matchAll(re)) queue.push(join(dirname(file), spec));
    }
  }
  return [...seen].map((f) => relative(root, f)).sort();
}
