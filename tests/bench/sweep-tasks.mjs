// The page's exact sweep tasks, wasm SIMD in Node: the 13-point, three-scale sweep at T (2048 by
// default) split into the runs the page gives two Workers (groupDks), each run one sweepScalesJob
// drained in 20 ms slices as a Worker does. With --before DIR (a folder holding another build's
// web/src/engine/ and web/generated/), the same tasks of that engine in the same rounds, alternating
// which goes first; the ratio is the median of the per-round ratios. CPU time of the process
// (process.cpuUsage: on a shared machine the OS may pause the process, which wall time would
// include). Not part of `npm run bench` (a minute per round at T = 2048).
//   node tests/bench/sweep-tasks.mjs [--rounds 3] [--seqLen 2048] [--before DIR]
import { loadavg } from 'node:os';
import { pathToFileURL } from 'node:url';
import { groupDks } from '../../web/src/compute/sweep-tasks.js';
import { createEngine } from '../../web/src/engine/engine.js';
import { median } from './peers/harness.js';

const arg = (name, dflt) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : dflt;
};
const ROUNDS = Number(arg('--rounds', 3));
const T = Number(arg('--seqLen', 2048));
const BEFORE = arg('--before', null);
const DKS = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096];
const SCALES = ['none', 'sqrt', 'linear'];
const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

const engines = { current: await createEngine({ simd: true }) };
if (BEFORE) {
  const url = pathToFileURL(`${BEFORE}/web/src/engine/engine.js`).href;
  engines.before = await (await import(url)).createEngine({ simd: true });
}
const tasks = groupDks(DKS, 2, { seqLen: T, scalings: SCALES.length });

for (const engine of Object.values(engines)) {
  // V8 runs new wasm in a baseline tier first.
  const end = performance.now() + 1500;
  while (performance.now() < end) engine.sweep({ seqLen: 64 }, [1, 64, 256]);
}

/** CPU ms of each task on `engine`. */
function runTasks(engine) {
  return tasks.map((dks) => {
    const start = cpuMs();
    const job = engine.sweepScalesJob({ seqLen: T }, dks, SCALES);
    while (!job.advance(20).done);
    job.delete();
    return cpuMs() - start;
  });
}

const names = Object.keys(engines);
const times = Object.fromEntries(names.map((n) => [n, []]));
const load = [loadavg()[0]];
for (let r = 0; r < ROUNDS; r++) {
  const order = r % 2 ? [...names].reverse() : names;
  for (const name of order) {
    times[name].push(runTasks(engines[name]));
    process.stderr.write(`round ${r + 1} ${name}: ${times[name].at(-1).map(Math.round).join(', ')} ms\n`);
  }
}
load.push(loadavg()[0]);

const sum = (xs) => xs.reduce((a, b) => a + b, 0);
const row = (label, pick) => {
  const cells = names.map((n) => Math.round(median(times[n].map(pick))));
  const ratio = BEFORE
    ? median(times.current.map((t, r) => pick(t) / pick(times.before[r]))).toFixed(2) + '×'
    : '';
  return `| ${label} | ${cells.join(' | ')} |${BEFORE ? ` ${ratio} |` : ''}`;
};
const lines = [
  `T = ${T}, three scalings, the page's tasks on two Workers; CPU ms, median of ${ROUNDS} round${ROUNDS === 1 ? '' : 's'} (load average ${load.map((l) => l.toFixed(1)).join(' → ')})`,
  '',
  `| task | ${names.join(' | ')} |${BEFORE ? ' current / before |' : ''}`,
  `|---|${names.map(() => '---:|').join('')}${BEFORE ? '---:|' : ''}`,
  ...tasks.map((dks, i) => row(`d_k ${dks.join(', ')}`, (t) => t[i])),
  row('in all', sum),
];
console.log(lines.join('\n'));
