// `npm run bench`: the attention forward and a full `run` (forward + backward + statistics) for
// T ∈ {128, 512}, d_k ∈ {16, 64, 128, 512}: native (separate process), wasm SIMD, wasm scalar and
// plain JS, timed side by side in rounds (implementations interleaved, medians of per-round means,
// because this shared VM's speed drifts), then the page's two latencies: one `run` at T = 256,
// d_k = 128 and the 13-point d_k sweep at T = 256. Writes build/bench/bench.{json,md}.
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createEngine } from '../../web/src/engine/engine.js';
import { plainAttention } from './plain-attention.js';
import { maxAbsDiff, median, randomMatrix } from './peers/harness.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const ROUNDS = 7;
const ROUND_MS = 40;
const SHAPES = [128, 512].flatMap((T) => [16, 64, 128, 512].map((dk) => ({ T, dk })));
const SWEEP_DKS = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096];

function msPerCall(fn, minMs) {
  let calls = 0;
  const start = performance.now();
  let elapsed;
  do {
    fn();
    calls++;
    elapsed = performance.now() - start;
  } while (elapsed < minMs);
  return elapsed / calls;
}

// Each round runs every implementation once, so drift hits all of them alike.
function timeSideBySide(impls, rounds = ROUNDS, minMs = ROUND_MS) {
  const samples = Object.fromEntries(Object.keys(impls).map((k) => [k, []]));
  for (let r = 0; r < rounds; r++) {
    for (const [name, fn] of Object.entries(impls)) samples[name].push(msPerCall(fn, minMs));
  }
  return Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, median(v)]));
}

const simd = await createEngine({ simd: true });
const scalar = await createEngine({ simd: false });

// V8 compiles wasm in a baseline tier first (~1/5 speed): warm every path for over a second.
{
  const T = 128,
    dk = 64,
    n = T * dk;
  const q = randomMatrix(n, 1),
    k = randomMatrix(n, 2),
    v = randomMatrix(n, 3);
  const end = performance.now() + 1500;
  while (performance.now() < end) {
    for (const e of [simd, scalar]) {
      e.attention(q, k, v, { seqLen: T, dk });
      e.run({ dk, seqLen: T });
    }
    plainAttention(q, k, v, T, dk, 1 / Math.sqrt(dk));
  }
}

process.stderr.write('native benchmark (separate process)…\n');
const native = JSON.parse(execFileSync(`${root}build/native/bench_engine`, { encoding: 'utf8' }));
const nativeByShape = new Map(native.forward.map((r) => [`${r.T}x${r.dk}`, r]));

const rows = [];
for (const { T, dk } of SHAPES) {
  process.stderr.write(`T=${T} dk=${dk}…\n`);
  const n = T * dk,
    scale = 1 / Math.sqrt(dk);
  const q = randomMatrix(n, 11),
    k = randomMatrix(n, 12),
    v = randomMatrix(n, 13);
  const opts = { seqLen: T, dk, scale };
  const reference = plainAttention(q, k, v, T, dk, scale, Float64Array);
  const check = {
    simd: maxAbsDiff(simd.attention(q, k, v, opts), reference),
    scalar: maxAbsDiff(scalar.attention(q, k, v, opts), reference),
    plainJs: maxAbsDiff(plainAttention(q, k, v, T, dk, scale), reference),
  };
  const fwd = timeSideBySide(
    {
      simd: () => simd.attention(q, k, v, opts),
      scalar: () => scalar.attention(q, k, v, opts),
      plainJs: () => plainAttention(q, k, v, T, dk, scale),
    },
    T * dk >= 512 * 512 ? 5 : ROUNDS,
  );
  const cfg = { dk, seqLen: T };
  const run = timeSideBySide({ simd: () => simd.run(cfg), scalar: () => scalar.run(cfg) }, 5);
  const nat = nativeByShape.get(`${T}x${dk}`);
  const gflops = (ms) => (4 * T * T * dk) / (ms * 1e6);
  rows.push({
    T,
    dk,
    forwardMs: { native: nat.forwardMs, simd: fwd.simd, scalar: fwd.scalar, plainJs: fwd.plainJs },
    forwardGflops: {
      native: gflops(nat.forwardMs),
      simd: gflops(fwd.simd),
      scalar: gflops(fwd.scalar),
      plainJs: gflops(fwd.plainJs),
    },
    runMs: { native: nat.runMs, simd: run.simd, scalar: run.scalar },
    maxAbsDiffVsFloat64: check,
  });
}

process.stderr.write('page latencies…\n');
const story = { dk: 128, seqLen: 256 };
const run256 = timeSideBySide({ simd: () => simd.run(story), scalar: () => scalar.run(story) });
const sweepTimes = { simd: [], scalar: [], firstPointSimd: [] };
for (let r = 0; r < 5; r++) {
  for (const [name, e] of [
    ['simd', simd],
    ['scalar', scalar],
  ]) {
    const start = performance.now();
    let first = null;
    for (const _ of e.sweepPoints({ seqLen: 256, scale: 'none' }, SWEEP_DKS))
      first ??= performance.now() - start;
    sweepTimes[name].push(performance.now() - start);
    if (name === 'simd') sweepTimes.firstPointSimd.push(first);
  }
}

process.stderr.write('casts and precisions…\n');
const FORMATS = ['bf16', 'fp16', 'fp8e4m3', 'fp8e5m2'];
const nativeCasts = execFileSync(`${root}build/native/bench_cast`, { encoding: 'utf8' })
  .trim()
  .split('\n')
  .map((l) => JSON.parse(l))
  .filter((r) => r.bench === 'cast' && r.impl === 'vectorized');
const castInput = randomMatrix(1 << 20, 5).map((x) => x * 1e6);
const castRate = {};
for (const precision of FORMATS) {
  const t = timeSideBySide(
    {
      simd: () => simd.round(precision, castInput),
      scalar: () => scalar.round(precision, castInput),
    },
    5,
  );
  castRate[precision] = {
    native: nativeCasts.find((r) => r.format === precision)?.elements_per_s,
    simd: castInput.length / (t.simd / 1e3),
    scalar: castInput.length / (t.scalar / 1e3),
  };
}
const precisionRun = timeSideBySide(
  Object.fromEntries(
    ['fp32', ...FORMATS].map((precision) => [precision, () => simd.run({ ...story, precision })]),
  ),
  5,
);

const result = {
  date: new Date().toISOString(),
  node: process.version,
  nativeArch: native.arch,
  nativePeakGflops: native.peakGflops,
  shapes: rows,
  run256x128Ms: { native: native.run256x128Ms, simd: run256.simd, scalar: run256.scalar },
  castElementsPerSecond: castRate,
  runMsByPrecision: precisionRun,
  sweep13x256Ms: {
    native: native.sweep13x256Ms,
    simd: median(sweepTimes.simd),
    scalar: median(sweepTimes.scalar),
    firstPointSimd: median(sweepTimes.firstPointSimd),
  },
};

const f = (x, digits = 1) => x.toFixed(digits);
const lines = [
  '| T | d_k | native GFLOP/s | wasm SIMD GFLOP/s | wasm scalar GFLOP/s | plain JS GFLOP/s | SIMD / scalar | SIMD / native | run ms (native / SIMD / scalar) | SIMD run / forward |',
  '|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ...rows.map(
    (r) =>
      `| ${r.T} | ${r.dk} | ${f(r.forwardGflops.native)} | ${f(r.forwardGflops.simd)} | ${f(r.forwardGflops.scalar)} | ${f(r.forwardGflops.plainJs, 2)} | ${f(r.forwardGflops.simd / r.forwardGflops.scalar, 2)}× | ${f(r.forwardGflops.simd / r.forwardGflops.native, 2)}× | ${f(r.runMs.native, 2)} / ${f(r.runMs.simd, 2)} / ${f(r.runMs.scalar, 2)} | ${f(r.runMs.simd / r.forwardMs.simd, 2)}× |`,
  ),
  '',
  `Full \`run\` at T = 256, d_k = 128: native ${f(result.run256x128Ms.native, 2)} ms, wasm SIMD ${f(result.run256x128Ms.simd, 2)} ms, wasm scalar ${f(result.run256x128Ms.scalar, 2)} ms.`,
  `13-point d_k sweep (1…4096) at T = 256: native ${f(result.sweep13x256Ms.native, 0)} ms, wasm SIMD ${f(result.sweep13x256Ms.simd, 0)} ms (first point after ${f(result.sweep13x256Ms.firstPointSimd, 1)} ms), wasm scalar ${f(result.sweep13x256Ms.scalar, 0)} ms.`,
  '',
  '| format | cast native (elements/s) | cast wasm SIMD | cast wasm scalar | SIMD / scalar | `run` at 256×128, wasm SIMD | vs fp32 |',
  '|---|---:|---:|---:|---:|---:|---:|',
  `| fp32 | | | | | ${f(precisionRun.fp32, 2)} ms | 1.00× |`,
  ...FORMATS.map(
    (p) =>
      `| ${p} | ${(castRate[p].native / 1e9).toFixed(2)} G | ${(castRate[p].simd / 1e9).toFixed(2)} G | ${(castRate[p].scalar / 1e9).toFixed(2)} G | ${f(castRate[p].simd / castRate[p].scalar, 1)}× | ${f(precisionRun[p], 2)} ms | ${f(precisionRun[p] / precisionRun.fp32, 2)}× |`,
  ),
  '(wasm cast rates go through `engine.round` on 2^20 values, copies in and out of wasm memory included.)',
  '',
  `Native arch ${native.arch}; its measured ${native.arch} multiply-add peak: ${f(native.peakGflops)} GFLOP/s. FLOPs counted as 4·T²·d_k. Node ${process.version}.`,
];
const markdown = lines.join('\n');
mkdirSync(`${root}build/bench`, { recursive: true });
writeFileSync(`${root}build/bench/bench.json`, JSON.stringify(result, null, 2));
writeFileSync(`${root}build/bench/bench.md`, markdown + '\n');
console.log(markdown);
console.log('\nmax |O − float64 reference| per shape:');
for (const r of rows)
  console.log(
    `  T=${r.T} d_k=${r.dk}: SIMD ${r.maxAbsDiffVsFloat64.simd.toExponential(1)}, scalar ${r.maxAbsDiffVsFloat64.scalar.toExponential(1)}, plain JS ${r.maxAbsDiffVsFloat64.plainJs.toExponential(1)}`,
  );
console.log('\nwritten: build/bench/bench.json, build/bench/bench.md');
