// Sweep estimates against the exact sweep, wasm SIMD in Node: the 13-point (d_k 1 … 4096),
// three-scale sweep at T = 2048 exactly (sweepScalesJob) and estimated from 64, 128 and 256 rows
// (sweepEstimateJob, with and without gradients), in interleaved rounds; CPU time of the process
// (process.cpuUsage: on a shared machine the OS may pause the process, which wall time would
// include). Also, per row count: how large the SEs are against the values (median and largest
// SE/|value| over the points and scalings, per field), how far the estimates are from the exact
// values in SEs, and the longest advance(16) of the estimate.
// Prints Markdown and writes build/bench/sweep-estimate-speed.json.
//   node tests/bench/sweep-estimate-speed.mjs [--rounds 1] [--seqLen 2048]
import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { createEngine } from '../../web/src/engine/engine.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const arg = (name, dflt) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : dflt;
};
const ROUNDS = Number(arg('--rounds', 1));
const T = Number(arg('--seqLen', 2048));
const DKS = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096];
const SCALES = ['none', 'sqrt', 'linear'];
const ROWS = [64, 128, 256];
const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length
    ? s.length % 2
      ? s[(s.length - 1) / 2]
      : (s[s.length / 2 - 1] + s[s.length / 2]) / 2
    : NaN;
};

const engine = await createEngine({ simd: true });
const cfg = { seqLen: T };

// Runs a job to its end: [wall ms, CPU ms, points, longest advance(16) in ms].
function drive(job, budget) {
  const wall = performance.now(),
    cpu = cpuMs();
  const points = [];
  let longest = 0;
  for (;;) {
    const t = performance.now();
    const step = job.advance(budget);
    longest = Math.max(longest, performance.now() - t);
    if (step.done) break;
    if (step.value) points.push(step.value);
  }
  job.delete();
  return [performance.now() - wall, cpuMs() - cpu, points, longest];
}

// `${r} fwd`: the same estimate with gradients: false (the page's: no ∂L/∂Q preview).
const times = { exact: [] };
for (const r of ROWS) [times[r], times[`${r} fwd`]] = [[], []];
let exact = null;
const estimates = {};
const longest = {};
const load = [loadavg()];
engine.run({ seqLen: T, dk: 64 }); // warm: memory grown, code compiled
for (let round = 0; round < ROUNDS; round++) {
  for (const r of ROWS) {
    const [wall, cpu, points, slowest] = drive(engine.sweepEstimateJob(cfg, DKS, SCALES, { rows: r }), 16);
    times[r].push({ wall, cpu });
    estimates[r] = points;
    longest[r] = Math.max(longest[r] ?? 0, slowest);
    const fwd = drive(engine.sweepEstimateJob(cfg, DKS, SCALES, { rows: r, gradients: false }), 16);
    times[`${r} fwd`].push({ wall: fwd[0], cpu: fwd[1] });
    longest[`${r} fwd`] = Math.max(longest[`${r} fwd`] ?? 0, fwd[3]);
  }
  const [wall, cpu, points] = drive(engine.sweepScalesJob(cfg, DKS, SCALES), Infinity);
  times.exact.push({ wall, cpu });
  exact = points;
}
load.push(loadavg());

const fields = Object.keys(estimates[ROWS[0]][0].points.sqrt).filter(
  (k) => typeof estimates[ROWS[0]][0].points.sqrt[k + 'Se'] === 'number',
);
const exactCpu = median(times.exact.map((t) => t.cpu));
const lines = [];
lines.push(`T = ${T}, 13 d_k × 3 scalings, wasm SIMD, ${ROUNDS} round(s), CPU ms (wall in brackets)`, '');
lines.push('| sweep | CPU time | wall | vs exact | longest advance(16) |', '|---|---:|---:|---:|---:|');
lines.push(
  `| exact (sweepScalesJob) | ${exactCpu.toFixed(0)} ms | ${median(times.exact.map((t) => t.wall)).toFixed(0)} ms | 1 | |`,
);
for (const r of ROWS.flatMap((n) => [n, `${n} fwd`])) {
  const cpu = median(times[r].map((t) => t.cpu));
  const name = String(r).endsWith('fwd') ? `${parseInt(r, 10)} rows, gradients: false` : `${r} rows`;
  lines.push(
    `| estimate, ${name} | ${cpu.toFixed(0)} ms | ${median(times[r].map((t) => t.wall)).toFixed(0)} ms | ${(cpu / exactCpu).toFixed(3)} | ${longest[r].toFixed(1)} ms |`,
  );
}
// How big an SE is: against |value| for σ, entropy, weights and norms; against σ for the means
// (which sit near 0); in absolute terms for the shares and counts.
const scaleOf = (name, e) =>
  name.endsWith('Mean') && name !== 'jacobianNormMean'
    ? e[name.replace('Mean', 'Std')]
    : name === 'saturatedFraction' || name === 'nonFiniteRows'
      ? 1
      : Math.abs(e[name]);
const unit = (name) =>
  name.endsWith('Mean') && name !== 'jacobianNormMean'
    ? 'SE / σ'
    : name === 'saturatedFraction' || name === 'nonFiniteRows'
      ? 'SE'
      : 'SE / value';
const summary = {};
lines.push('', '| field | rows | SE as | median | largest | largest error / SE |');
lines.push('|---|---:|---|---:|---:|---:|');
for (const name of fields) {
  for (const r of ROWS) {
    const rel = [],
      z = [];
    estimates[r].forEach((p, i) => {
      for (const key of SCALES) {
        const e = p.points[key];
        const want = exact[i].points[key][name];
        if (e[name + 'Se'] === 0) continue;
        if (scaleOf(name, e) > 0) rel.push(e[name + 'Se'] / scaleOf(name, e));
        z.push(Math.abs(e[name] - want) / e[name + 'Se']);
      }
    });
    if (z.length === 0) continue;
    summary[`${name}/${r}`] = { medianSe: median(rel), maxSe: Math.max(...rel), maxZ: Math.max(...z) };
    lines.push(
      `| ${name} | ${r} | ${unit(name)} | ${median(rel).toPrecision(2)} | ${Math.max(...rel).toPrecision(2)} | ${Math.max(...z).toFixed(2)} |`,
    );
  }
}
lines.push('', `load average ${load.map((l) => l[0].toFixed(2)).join(' → ')}`);
console.log(lines.join('\n'));
mkdirSync(`${root}build/bench`, { recursive: true });
writeFileSync(
  `${root}build/bench/sweep-estimate-speed.json`,
  JSON.stringify({ T, rounds: ROUNDS, times, longest, summary, load }, null, 2),
);
engine.delete();
