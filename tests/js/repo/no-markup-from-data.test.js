// A lint in test form: no page code builds markup from strings (innerHTML & co., document.write,
// eval, new Function), and no HTML file carries inline event handlers. Text reaches the DOM only
// through textContent / attributes, so nothing a URL, an attribute or the engine says can become
// an element or a script.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const web = fileURLToPath(new URL('../../../web/', import.meta.url));

function files(dir, ext) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (name === 'generated' || name === 'node_modules') return [];
    return statSync(path).isDirectory() ? files(path, ext) : path.endsWith(ext) ? [path] : [];
  });
}

// Comments may mention the words; code may not use them.
const stripComments = (src) => src.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');

test('page scripts never turn strings into markup or code', () => {
  const forbidden =
    /\.(innerHTML|outerHTML)\s*[+]?=|insertAdjacentHTML|document\.write|\beval\s*\(|new\s+Function\s*\(|createContextualFragment|srcdoc\s*=/;
  const offenders = files(web, '.js').filter((f) => forbidden.test(stripComments(readFileSync(f, 'utf8'))));
  assert.deepEqual(offenders, []);
});

test('HTML files have no inline event handlers or javascript: URLs', () => {
  const forbidden = /\son[a-z]+\s*=|javascript:/i;
  const offenders = files(web, '.html').filter((f) => forbidden.test(readFileSync(f, 'utf8')));
  assert.deepEqual(offenders, []);
});
