// The docs carry a few blocks that the tests serve exactly as written (the headers a host should
// send, the policy for cross-origin hosts), fenced by <!-- kind:name --> … <!-- /kind:name -->.
// docBlock() finds such a block in README.md or any page of docs/, wherever it stands now.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { repoRoot } from './serve-dist.js';

async function docFiles() {
  const docs = await readdir(join(repoRoot, 'docs')).catch(() => []);
  return [
    'README.md',
    ...docs
      .filter((f) => f.endsWith('.md'))
      .sort()
      .map((f) => join('docs', f)),
  ];
}

/** The text between <!-- kind:name --> and <!-- /kind:name --> (exactly one such block in the docs). */
export async function docBlock(kind, name) {
  const re = new RegExp(`<!-- ${kind}:${name} -->([\\s\\S]*?)<!-- /${kind}:${name} -->`);
  const found = [];
  for (const file of await docFiles()) {
    const m = re.exec(await readFile(join(repoRoot, file), 'utf8'));
    if (m) found.push({ file, text: m[1] });
  }
  if (found.length !== 1) {
    throw new Error(
      `<!-- ${kind}:${name} --> block: expected one in README.md and docs/, found ${found.length} (${found.map((f) => f.file).join(', ')})`,
    );
  }
  return found[0].text;
}

/** `Name: value` lines of a block, as a { lowercased-name: value } map. */
export function headerLines(text) {
  const headers = {};
  for (const line of text.split('\n')) {
    const h = /^([A-Za-z-]+):\s*(.+)$/.exec(line.trim());
    if (h) headers[h[1].toLowerCase()] = h[2].trim();
  }
  return headers;
}
