// The repository speaks of attention, kernels and pages, never of how its work was organised: no
// tracked file names a ticket number, a numbered work step or the sitting in which a figure was
// measured, because a reader of a clone cannot look any of those up. Dated history has one home,
// CHANGELOG.md; current figures live in docs/performance.md without dates.
//
// Each pattern below is written so that its own source text does not match it (\s+ where a space
// would be), so this file passes its own check.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = resolve(fileURLToPath(new URL('../../..', import.meta.url)));

/** Where dated history is allowed, files that are not ours to word, and fuzz inputs (random bytes). */
const EXEMPT = [/^CHANGELOG\.md$/, /(^|\/)package-lock\.json$/, /^tests\/fuzz\/corpus\//];

export const PATTERNS = [
  // The word issue or issues followed by a number, with or without '#' (the GitHub URL
  // `…/attnscale/issues` in package.json has no number and passes).
  { name: 'an issue number', re: /\bissues?\s?#?[0-9]+/i },
  // A numbered step of the work: the word stop followed by a number.
  { name: 'a numbered work step', re: /\bstop\s+[0-9]+\b/i },
  // When a figure was taken, instead of what it is.
  { name: 'a dated measurement log', re: /\blast\s+run\s*:/i },
  // The sitting a figure came from; a Worker's or a WebDriver's session ("no trainer for this
  // session") is domain text and stays allowed.
  {
    name: 'a work sitting',
    re: /\b(?:in|during|before|after|since)\s+this\s+session\b|\bother\s+sessions\s+were\b/i,
  },
  { name: 'a calendar date', re: /\b20[0-9]{2}-[01][0-9]-[0-3][0-9]\b/ },
];

/** NUL in the first 8 KB: binary, as git and grep decide. */
const isBinary = (buf) => buf.subarray(0, 8192).includes(0);

function trackedFiles() {
  const out = execFileSync('git', ['ls-files', '-z'], {
    cwd: repoRoot,
    encoding: 'utf8',
    maxBuffer: 64 << 20,
  });
  return out
    .split('\0')
    .filter(Boolean)
    .filter((f) => !EXEMPT.some((re) => re.test(f)));
}

function gitAvailable() {
  try {
    execFileSync('git', ['rev-parse', '--show-toplevel'], { cwd: repoRoot, stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

test('no tracked file names an issue number, a work step or the sitting a figure was measured in', (t) => {
  if (!gitAvailable()) {
    t.skip('not a git checkout: nothing is tracked');
    return;
  }
  const found = [];
  for (const file of trackedFiles()) {
    let buf;
    try {
      buf = readFileSync(join(repoRoot, file));
    } catch {
      continue; // tracked but removed in the working tree (a move not yet committed)
    }
    if (isBinary(buf)) continue;
    const lines = buf.toString('utf8').split('\n');
    lines.forEach((line, i) => {
      for (const { name, re } of PATTERNS) {
        const m = re.exec(line);
        if (m) found.push(`${file}:${i + 1}: ${name} ("${m[0]}"): ${line.trim().slice(0, 120)}`);
      }
    });
  }
  for (const f of found) console.log(f);
  assert.equal(
    found.length,
    0,
    `${found.length} line(s) speak of the work instead of the domain:\n${found.join('\n')}`,
  );
});

test('the patterns leave domain text alone and catch process text', () => {
  const flagged = (s) => PATTERNS.some(({ re }) => re.test(s));
  for (const ok of [
    '"url": "https://github.com/attnscale/attnscale/issues"',
    'const session = client.openSession({ onMessage });',
    'trainers.get(session)?.delete(); // one trainer per session',
    'a WebDriver session per browser',
    "throw new Error('no trainer for this session (create one first)')",
    'the last run of the sweep is kept',
    'stop at step 500 (trainStopAt)',
    'Gemma 2 uses 50 on attention logits',
    'arXiv 2205.14135',
  ])
    assert.equal(flagged(ok), false, ok);
  // Joined from parts, so that this file's own text does not hold them.
  const w = (...parts) => parts.join(' ');
  for (const bad of [
    w('the limits of issue', 12),
    w('see Issue', '#4'),
    w('issues', '12/13'),
    w('done at stop', 3),
    w('Last', 'run: fast'),
    w('measured in this', 'session'),
    w('measured', ['2026', '12', '01'].join('-')),
  ]) {
    assert.equal(flagged(bad), true, bad);
  }
});
