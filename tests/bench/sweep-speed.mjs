// Sweep benchmark, wasm SIMD in Node, in one run with interleaved rounds:
//   - one 13-point d_k sweep (1 … 4096) of one scaling: today's engine vs the engine before the sweep work
//     (build/baseline/, built by build-scripts/lib/build-baseline.sh from commit ac0f359), T = 256, 1024;
//   - sweepScales with three scalings vs sweep with one (same round);
//   - the sweep's time per phase (engine.lastSweepPhaseMs) and the native profile (bench_sweep);
//   - a full run vs the forward (engine.attention) at T = 256, d_k = 128, old and new;
//   - peak wasm memory (fresh engine per case) and the largest overshoot of sweepScalesJob's
//     advance(16) at T = 2048, d_k = 4096.
// Reports medians, same-round ratios (median of per-round ratios) and the load average, in wall
// time and in this process's CPU time (process.cpuUsage: on a loaded shared machine the OS may
// pause the process for hundreds of ms; CPU time shows the work itself); prints
// Markdown and writes build/bench/sweep-speed.json.   node tests/bench/sweep-speed.mjs [--rounds 3]
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createEngine } from '../../web/src/engine/engine.js';
import { median, randomMatrix } from './peers/harness.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const arg = (name, dflt) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : dflt;
};
const ROUNDS = Number(arg('--rounds', 3));
const DKS = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096];
const SCALES = ['none', 'sqrt', 'linear'];
const f = (x, digits = 0) => (x === undefined ? '–' : x.toFixed(digits));
const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
// [wall ms, CPU ms] of one call
const time = (fn) => {
  const wall = performance.now(),
    cpu = cpuMs();
  fn();
  return [performance.now() - wall, cpuMs() - cpu];
};
const perCall = (fn, minMs) => {
  let calls = 0;
  const start = performance.now();
  do {
    fn();
    calls++;
  } while (performance.now() - start < minMs);
  return (performance.now() - start) / calls;
};
const load = [loadavg()];

// The baseline engine's raw Embind API (sweepBegin/sweepNext, run): bench only.
async function loadBaseline() {
  const dir = `${root}build/baseline/`;
  if (!existsSync(`${dir}attnscale-simd.wasm`)) return null;
  const factory = (await import(pathToFileURL(`${dir}attnscale-simd.mjs`).href)).default;
  const module = await factory({ wasmBinary: readFileSync(`${dir}attnscale-simd.wasm`) });
  const native = new module.Engine();
  return {
    sweep(cfg) {
      const begin = native.sweepBegin(cfg, DKS);
      while (native.sweepNext(begin.id) !== null);
    },
    run(cfg) {
      native.run(cfg);
    },
  };
}

const engine = await createEngine({ simd: true });
const old = await loadBaseline();
if (!old)
  process.stderr.write(
    'no build/baseline/: run build-scripts/lib/build-baseline.sh for the old-vs-new rows\n',
  );

{
  // V8 runs new wasm in a baseline tier first: warm both for > 1 s.
  const end = performance.now() + 1500;
  while (performance.now() < end) {
    engine.sweep({ seqLen: 64 }, [1, 64, 256]);
    old?.sweep({ seqLen: 64 });
  }
}

const sweeps = {};
for (const T of [256, 1024]) {
  process.stderr.write(`sweeps at T = ${T}…\n`);
  const cfg = { seqLen: T, scale: 'sqrt' };
  const s = {
    old: [],
    one: [],
    three: [],
    ratioOld: [],
    ratioThree: [],
    cpuOld: [],
    cpuOne: [],
    cpuThree: [],
    cpuRatioOld: [],
    cpuRatioThree: [],
  };
  let phases;
  for (let r = 0; r < ROUNDS; r++) {
    const tOld = old ? time(() => old.sweep(cfg)) : undefined;
    const tOne = time(() => engine.sweep(cfg, DKS));
    phases = engine.lastSweepPhaseMs;
    const tThree = time(() => engine.sweepScales(cfg, DKS, SCALES));
    s.one.push(tOne[0]);
    s.three.push(tThree[0]);
    s.ratioThree.push(tThree[0] / tOne[0]);
    s.cpuOne.push(tOne[1]);
    s.cpuThree.push(tThree[1]);
    s.cpuRatioThree.push(tThree[1] / tOne[1]);
    if (old) {
      s.old.push(tOld[0]);
      s.ratioOld.push(tOne[0] / tOld[0]);
      s.cpuOld.push(tOld[1]);
      s.cpuRatioOld.push(tOne[1] / tOld[1]);
    }
  }
  const m = (xs) => (xs.length ? median(xs) : undefined);
  sweeps[T] = {
    oldMs: m(s.old),
    newMs: m(s.one),
    threeScalesMs: m(s.three),
    newOverOld: m(s.ratioOld),
    threeOverOne: m(s.ratioThree),
    cpu: {
      oldMs: m(s.cpuOld),
      newMs: m(s.cpuOne),
      threeScalesMs: m(s.cpuThree),
      newOverOld: m(s.cpuRatioOld),
      threeOverOne: m(s.cpuRatioThree),
    },
    phasesMs: phases,
  };
}
load.push(loadavg());

process.stderr.write('run vs forward…\n');
const T = 256,
  dk = 128;
const q = randomMatrix(T * dk, 1),
  k = randomMatrix(T * dk, 2),
  v = randomMatrix(T * dk, 3);
const runRatios = { new: [], old: [] };
const runMs = { forward: [], new: [], old: [] };
for (let r = 0; r < 2 * ROUNDS + 1; r++) {
  const forward = perCall(() => engine.attention(q, k, v, { seqLen: T, dk }), 100);
  const runNew = perCall(() => engine.run({ seqLen: T, dk }), 100);
  const runOld = old ? perCall(() => old.run({ seqLen: T, dk }), 100) : undefined;
  runMs.forward.push(forward);
  runMs.new.push(runNew);
  runRatios.new.push(runNew / forward);
  if (old) {
    runMs.old.push(runOld);
    runRatios.old.push(runOld / forward);
  }
}
const run = {
  forwardMs: median(runMs.forward),
  runMs: median(runMs.new),
  runOverForward: median(runRatios.new),
  oldRunMs: old ? median(runMs.old) : undefined,
  oldRunOverForward: old ? median(runRatios.old) : undefined,
};

process.stderr.write('advance overshoot at T = 2048, d_k = 4096…\n');
// Twice: the first job grows wasm memory and touches fresh pages (cold), the second reuses them.
const overshoots = [];
for (const pass of ['cold', 'warm']) {
  let wallMs = 0,
    cpuMs = 0,
    advances = 0;
  const job = engine.sweepScalesJob({ seqLen: 2048 }, [4096], SCALES);
  for (;;) {
    let done = false;
    const [wall, cpu] = time(() => {
      done = job.advance(16).done;
    });
    if (done) break;
    advances++;
    wallMs = Math.max(wallMs, wall - 16);
    cpuMs = Math.max(cpuMs, cpu - 16);
  }
  job.delete();
  overshoots.push({ pass, advances, wallMs, cpuMs });
}

process.stderr.write('peak memory (fresh engines)…\n');
const memory = {};
for (const [name, work] of [
  ['sweep3x2048', (e) => e.sweepScales({ seqLen: 2048 }, [1, 4096], SCALES)],
  ['run2048x4096', (e) => e.run({ seqLen: 2048, dk: 4096 })],
]) {
  const fresh = await createEngine({ simd: true });
  work(fresh);
  memory[name] = fresh.memoryBytes / 2 ** 20;
  fresh.delete();
}

let native = null;
try {
  native = JSON.parse(execFileSync(`${root}build/native/bench_sweep`, ['256', '1024'], { encoding: 'utf8' }));
} catch {
  process.stderr.write('no build/native/bench_sweep\n');
}
load.push(loadavg());

const result = {
  date: new Date().toISOString(),
  node: process.version,
  rounds: ROUNDS,
  loadavg: load,
  sweeps,
  run,
  overshoots,
  peakMemoryMiB: memory,
  native,
};
const phaseLine = (p) =>
  Object.entries(p)
    .filter(([, ms]) => ms >= 0.5)
    .map(([name, ms]) => `${name} ${f(ms)}`)
    .join(', ');
const lines = [
  `Sweep benchmark (wasm SIMD, Node ${process.version}, ${ROUNDS} interleaved rounds, ${result.date.slice(0, 16)} UTC, load average ${load.map((l) => l[0].toFixed(1)).join(' → ')})`,
  '',
  '| T | time | old sweep (1 scale) | new sweep (1 scale) | new / old | sweepScales (3 scales) | 3 scales / 1 |',
  '|---:|---|---:|---:|---:|---:|---:|',
  ...[256, 1024].flatMap((t) =>
    [
      ['wall', sweeps[t]],
      ['CPU', sweeps[t].cpu],
    ].map(
      ([kind, s]) =>
        `| ${t} | ${kind} | ${f(s.oldMs)} ms | ${f(s.newMs)} ms | ${f(s.newOverOld, 2)}× | ${f(s.threeScalesMs)} ms | ${f(s.threeOverOne, 2)}× |`,
    ),
  ),
  '',
  ...[256, 1024].map((t) => `Phases of one new sweep at T = ${t} (ms): ${phaseLine(sweeps[t].phasesMs)}.`),
  ...(native
    ? native.sweeps.map(
        (s) =>
          `Native (${s.T}): 1 scale ${f(s.oneScaleMs)} ms, 3 scales ${f(s.threeScalesMs)} ms; phases ${phaseLine(s.phasesMs)}.`,
      )
    : []),
  '',
  `run / forward at T = 256, d_k = 128: new ${f(run.runOverForward, 2)}× (${f(run.runMs, 2)} ms vs ${f(run.forwardMs, 2)} ms), old ${f(run.oldRunOverForward, 2)}× (${f(run.oldRunMs, 2)} ms).`,
  `Peak wasm memory: 3-scale sweep T = 2048 to d_k = 4096: ${f(memory.sweep3x2048)} MiB; run T = 2048, d_k = 4096: ${f(memory.run2048x4096)} MiB.`,
  ...overshoots.map(
    (o) =>
      `sweepScalesJob advance(16) at T = 2048, d_k = 4096, 3 scales, ${o.pass} engine: ${o.advances} calls, largest overshoot ${f(o.cpuMs, 1)} ms of CPU time (${f(o.wallMs, 1)} ms wall, which includes the OS pausing the process).`,
  ),
];
const markdown = lines.join('\n');
mkdirSync(`${root}build/bench`, { recursive: true });
writeFileSync(`${root}build/bench/sweep-speed.json`, JSON.stringify(result, null, 2));
console.log(markdown);
