// The "Your model" report on a model-sized file, wasm SIMD in Node: a 75 MB .safetensors file of
// 12 layers × 12 heads × T = 1024 × d_k = 64 (f32 q and k, seeded Gaussian, σ = 1 + 0.1·layer) is
// written in memory, then per round:
//   - parse: readTensorFile + pairHeads, as the report reads a dropped file;
//   - analyze on one thread: every head one at a time (engine.analyze with heads: 1, default logit
//     options), as the report's Worker does (report-job.js);
//   - a head's click: one analyze with detail: true (its per-row arrays and T² weights);
//   - two Workers (node:worker_threads, each with its own engine, warm), alternate layers each:
//     wall time from posting the layers (transferred) to the last head's result, as on a 2-core
//     machine the page runs two report Workers.
// Prints medians (ms) over the rounds, the peak engine.memoryBytes seen after any analyze, and a
// JSON line.   node tests/bench/report-analyze.mjs [--rounds 5]
import { once } from 'node:events';
import { loadavg } from 'node:os';
import { isMainThread, parentPort, Worker } from 'node:worker_threads';
import { createEngine } from '../../web/src/engine/engine.js';
import { readTensorFile } from '../../web/src/tensors/read-tensors.js';
import { pairHeads } from '../../web/src/tensors/pair-heads.js';
import { writeSafetensors } from '../../web/src/tensors/write-safetensors.js';

const [LAYERS, HEADS, T, DK] = [12, 12, 1024, 64];
const WORKERS = 2;
const MEMORY_TARGET = 256 * 1024 * 1024;
const TARGET_MS = 5000;

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
};
const mib = (bytes) => bytes / 2 ** 20;

/** Every head of `layers` one at a time, as report-job.js does; onHead(ms, memoryBytes) after each. */
function analyzeLayers(engine, layers, onHead = () => {}) {
  for (const { q, k, heads, kvHeads, seqLen, dk } of layers) {
    const n = seqLen * dk;
    const one = { seqLen, dk, heads: 1, kvHeads: 1 };
    for (let h = 0; h < heads; h++) {
      const kh = Math.floor(h / (heads / kvHeads));
      const t0 = performance.now();
      engine.analyze(q.subarray(h * n, (h + 1) * n), k.subarray(kh * n, (kh + 1) * n), one);
      onHead(performance.now() - t0, engine.memoryBytes);
    }
  }
}

/** V8 runs new wasm in a baseline tier first: analyze heads of one layer for > 1 s. */
function warm(engine, layer) {
  const end = performance.now() + 1200;
  while (performance.now() < end) analyzeLayers(engine, [{ ...layer, heads: 2 }]);
}

/** mulberry32: a seeded uniform (0, 1) source. */
function uniform(seed) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = Math.imul(s ^ (s >>> 15), 1 | s);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return (((t ^ (t >>> 14)) >>> 0) + 0.5) / 2 ** 32;
  };
}

/** n normal samples, mean 0 and σ `std` (Box-Muller). */
function gaussian(n, std, seed) {
  const u = uniform(seed);
  const out = new Float32Array(n);
  for (let i = 0; i < n; i += 2) {
    const r = std * Math.sqrt(-2 * Math.log(u()));
    const a = 2 * Math.PI * u();
    out[i] = r * Math.cos(a);
    if (i + 1 < n) out[i + 1] = r * Math.sin(a);
  }
  return out;
}

function modelFile() {
  const tensors = {};
  const shape = [HEADS, T, DK];
  for (let i = 0; i < LAYERS; i++) {
    const std = 1 + 0.1 * i;
    tensors[`layers.${i}.q`] = { dtype: 'F32', shape, data: gaussian(HEADS * T * DK, std, 1000 + 2 * i) };
    tensors[`layers.${i}.k`] = { dtype: 'F32', shape, data: gaussian(HEADS * T * DK, std, 1001 + 2 * i) };
  }
  return writeSafetensors(tensors, { source: 'tests/bench/report-analyze.mjs' });
}

if (!isMainThread) {
  // A report Worker: its own engine, warmed once; then { layers } → { headMs, peak } per round.
  const engine = await createEngine({ simd: true });
  let peak = 0;
  parentPort.on('message', ({ layers }) => {
    if (!layers) return void parentPort.close();
    if (layers.warm) {
      warm(engine, layers.warm);
      return parentPort.postMessage({ ready: true });
    }
    const headMs = [];
    analyzeLayers(engine, layers, (ms, memory) => {
      headMs.push(ms);
      peak = Math.max(peak, memory);
    });
    parentPort.postMessage({ headMs, peak });
  });
  parentPort.postMessage({ booted: true });
} else {
  const i = process.argv.indexOf('--rounds');
  const ROUNDS = i > 0 ? Number(process.argv[i + 1]) : 5;
  const load = [loadavg()[0]];
  const g0 = performance.now();
  const bytes = modelFile();
  const generateMs = performance.now() - g0;

  const engine = await createEngine({ simd: true });
  const first = pairHeads(readTensorFile(bytes).tensors);
  warm(engine, first[0]);
  const workers = Array.from({ length: WORKERS }, () => new Worker(new URL(import.meta.url)));
  const reply = (w) => once(w, 'message').then(([message]) => message);
  await Promise.all(workers.map(reply));
  for (const w of workers) w.postMessage({ layers: { warm: first[0] } });
  await Promise.all(workers.map(reply));

  const rows = { parse: [], analyze1: [], headMedian: [], detail: [], workers2: [], workerHeadMedian: [] };
  let [peak, detailPeak, workerPeak] = [0, 0, 0];
  for (let round = 0; round < ROUNDS; round++) {
    const p0 = performance.now();
    const layers = pairHeads(readTensorFile(bytes).tensors);
    rows.parse.push(performance.now() - p0);

    const headMs = [];
    const a0 = performance.now();
    analyzeLayers(engine, layers, (ms, memory) => {
      headMs.push(ms);
      peak = Math.max(peak, memory);
    });
    rows.analyze1.push(performance.now() - a0);
    rows.headMedian.push(median(headMs));

    const [q0, k0] = [layers[0].q.subarray(0, T * DK), layers[0].k.subarray(0, T * DK)];
    const d0 = performance.now();
    engine.analyze(q0, k0, { seqLen: T, dk: DK, detail: true });
    rows.detail.push(performance.now() - d0);
    detailPeak = Math.max(detailPeak, engine.memoryBytes);

    const w0 = performance.now();
    const done = workers.map((w, j) => {
      const mine = layers.filter((_, l) => l % WORKERS === j);
      const transfer = mine.flatMap(({ q, k }) => [q.buffer, k.buffer]);
      w.postMessage({ layers: mine }, transfer);
      return reply(w);
    });
    const results = await Promise.all(done);
    rows.workers2.push(performance.now() - w0);
    rows.workerHeadMedian.push(median(results.flatMap((r) => r.headMs)));
    workerPeak = Math.max(workerPeak, ...results.map((r) => r.peak));
    load.push(loadavg()[0]);
  }
  for (const w of workers) w.postMessage({});

  const m = Object.fromEntries(Object.entries(rows).map(([key, xs]) => [key, median(xs)]));
  const spread = (xs) => `${Math.min(...xs).toFixed(0)}–${Math.max(...xs).toFixed(0)}`;
  const table = [
    ['parse (readTensorFile + pairHeads)', m.parse, rows.parse],
    ['analyze, 1 thread, 144 heads', m.analyze1, rows.analyze1],
    ['… per head (median of the run)', m.headMedian, rows.headMedian],
    ['analyze, 2 Workers, wall', m.workers2, rows.workers2],
    ['… per head in a Worker (median)', m.workerHeadMedian, rows.workerHeadMedian],
    ['parse + 2 Workers', m.parse + m.workers2, null],
    ['one head with detail: true', m.detail, rows.detail],
  ];
  const mb = (bytes.length / 1e6).toFixed(1);
  console.log(`file: ${LAYERS} layers × ${HEADS} heads × T ${T} × d_k ${DK}, f32, ${mb} MB`);
  console.log(`generated in ${generateMs.toFixed(0)} ms; ${ROUNDS} rounds; medians in ms\n`);
  console.log('| measured | median ms | rounds |\n|---|---:|---:|');
  for (const [what, ms, xs] of table) console.log(`| ${what} | ${ms.toFixed(1)} | ${xs ? spread(xs) : ''} |`);
  const target = mib(MEMORY_TARGET);
  console.log(
    `\npeak wasm memory: ${mib(peak).toFixed(0)} MiB after the heads, ${mib(detailPeak).toFixed(0)} MiB ` +
      `after detail, ${mib(workerPeak).toFixed(0)} MiB per Worker (target ≤ ${target} MiB)`,
  );
  const total = m.parse + m.workers2;
  console.log(
    `whole file, parse + 2 Workers: ${(total / 1000).toFixed(2)} s (target ≤ ${TARGET_MS / 1000} s: ` +
      `${total <= TARGET_MS ? 'met' : 'missed'}); load average ${load.map((x) => x.toFixed(1)).join(' → ')}`,
  );
  const json = {
    bench: 'report-analyze',
    shape: { layers: LAYERS, heads: HEADS, seqLen: T, dk: DK },
    fileBytes: bytes.length,
    rounds: ROUNDS,
    medianMs: Object.fromEntries(Object.entries(m).map(([key, ms]) => [key, Number(ms.toFixed(2))])),
    peakMemoryBytes: { heads: peak, detail: detailPeak, worker: workerPeak, target: MEMORY_TARGET },
    loadAverage: load.map((x) => Number(x.toFixed(2))),
  };
  console.log(JSON.stringify(json));
}
