// The table at the end of build-scripts/flake-hunt.sh: per suite the runs and the failed runs, then
// each failing test (suite, file, name) with how often it failed and its first error line.
import { readdir, readFile } from 'node:fs/promises';
import { basename, join } from 'node:path';

const [dir, e2eRuns, runs, ...suites] = process.argv.slice(2);
const files = await readdir(dir);
const rows = [];
const failures = new Map();
for (const suite of suites) {
  const n = Number(suite === 'e2e' ? e2eRuns : runs);
  let failedRuns = 0;
  for (let i = 1; i <= n; i++) {
    const name = `${suite}-${i}.failures.jsonl`;
    if (!files.includes(name)) continue;
    const lines = (await readFile(join(dir, name), 'utf8')).split('\n').filter(Boolean);
    if (lines.length) failedRuns++;
    for (const line of lines) {
      const f = JSON.parse(line);
      const key = `${suite} | ${f.file ? basename(f.file) : ''} | ${f.name}`;
      const seen = failures.get(key) ?? { count: 0, error: f.error };
      seen.count++;
      failures.set(key, seen);
    }
  }
  rows.push(`| ${suite} | ${n} | ${failedRuns} |`);
}
const esc = (s) => s.replace(/\|/g, '\\|');
console.log('| suite | runs | failed runs |\n|---|---|---|');
console.log(rows.join('\n'));
console.log('');
if (!failures.size) console.log('No test failed.');
else {
  console.log('| suite | file | test | failures | first error line |\n|---|---|---|---|---|');
  for (const [key, { count, error }] of failures) {
    const [suite, file, name] = key.split(' | ');
    console.log(`| ${suite} | ${file} | ${esc(name)} | ${count} | ${esc(error.slice(0, 200))} |`);
  }
}
