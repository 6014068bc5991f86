// The peers benchmark itself, shared by Node (run.mjs) and the headless-chromium page (page.js):
// the same inputs, the same implementations, the same timing protocol. No Node or DOM imports here;
// the caller passes in the loaded libraries.
//
// Protocol (this VM's speed drifts up to 1.5× within seconds, TOOLCHAIN.md):
//   - every result is first checked against a float64 reference (max |O − ref| recorded);
//   - a warm-up of ≥ 1 s per shape runs every implementation, interleaved (V8 tiers up wasm
//     after ~100 ms, and a peer's first calls allocate);
//   - then ROUNDS rounds; in each round every implementation runs back to back for ≥ ROUND_MS
//     (at least one call) and its mean ms per call is one sample; the order rotates per round;
//   - reported: median ms per implementation, GFLOP/s with FLOPs = 4·T²·d_k, and the engine's
//     speed-up over the best peer as the median of the per-round ratios (same-round ratios).
import { attentionOnnxModel } from './onnx-graph.js';
import { plainAttention } from '../plain-attention.js';

export const SHAPES = [128, 512].flatMap((T) => [16, 64, 128, 512].map((dk) => ({ T, dk })));
export const ROUNDS = 11;
export const ROUND_MS = 50;
export const WARMUP_MS = 1000;

// The implementations that are ours; every other one is a peer.
export const OURS = ['engineSimd', 'engineScalar'];
export const LABELS = {
  engineSimd: 'engine wasm SIMD',
  engineScalar: 'engine wasm scalar',
  ort: 'onnxruntime-web (wasm)',
  tfjs: 'tfjs-wasm matMul(q, k, false, true)',
  tfjsKt: 'tfjs-wasm, K pre-transposed',
  plainJs: 'plain JS',
};

export const now = () => performance.now();
export const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
export const gflops = (T, dk, ms) => (4 * T * T * dk) / (ms * 1e6);

/** Deterministic uniform [−0.5, 0.5) matrix (LCG), the same bits in Node and the browser. */
export function randomMatrix(n, seed) {
  let s = seed >>> 0;
  const out = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    s = (s * 1664525 + 1013904223) >>> 0;
    out[i] = s / 2 ** 32 - 0.5;
  }
  return out;
}

export function maxAbsDiff(a, b) {
  let worst = 0;
  for (let i = 0; i < a.length; i++) {
    const d = Math.abs(a[i] - b[i]);
    worst = d > worst || Number.isNaN(d) ? d : worst;
  }
  return worst;
}

function transposed(x, rows, cols) {
  const out = new Float32Array(rows * cols);
  for (let i = 0; i < rows; i++) for (let j = 0; j < cols; j++) out[j * rows + i] = x[i * cols + j];
  return out;
}

/** Inputs of one shape: q, k, v (T × d_k, row-major), the scale 1/√d_k, and the float64 reference. */
export function shapeInputs(T, dk) {
  const n = T * dk;
  const q = randomMatrix(n, 11),
    k = randomMatrix(n, 12),
    v = randomMatrix(n, 13);
  const scale = 1 / Math.sqrt(dk);
  return { T, dk, q, k, v, scale, reference: plainAttention(q, k, v, T, dk, scale, Float64Array) };
}

/**
 * Implementations for one shape: name → () => Float32Array | Promise<Float32Array>. Each call does
 * the whole user-visible job: inputs copied in, output copied out. libs: { engineSimd, engineScalar,
 * ort, tf } (any may be missing).
 */
export async function implementations(libs, { T, dk, q, k, v, scale }) {
  const impls = {};
  const opts = { seqLen: T, dk, scale, subtractMax: true };
  if (libs.engineSimd) impls.engineSimd = () => libs.engineSimd.attention(q, k, v, opts);
  if (libs.engineScalar) impls.engineScalar = () => libs.engineScalar.attention(q, k, v, opts);
  if (libs.ort) {
    const { ort } = libs;
    const session = await ort.InferenceSession.create(attentionOnnxModel(T, dk, scale), {
      executionProviders: ['wasm'],
      graphOptimizationLevel: 'all',
    });
    const tensor = (x) => new ort.Tensor('float32', x, [T, dk]);
    impls.ort = async () => (await session.run({ q: tensor(q), k: tensor(k), v: tensor(v) })).o.data;
    impls.ort.dispose = () => session.release();
  }
  if (libs.tf) {
    const { tf } = libs;
    const run = (kt) =>
      tf.tidy(() => {
        const Q = tf.tensor2d(q, [T, dk]);
        const V = tf.tensor2d(v, [T, dk]);
        const logits = kt
          ? tf.matMul(Q, tf.tensor2d(kt, [dk, T]))
          : tf.matMul(Q, tf.tensor2d(k, [T, dk]), false, true);
        return tf.matMul(tf.softmax(tf.mul(logits, tf.scalar(scale))), V);
      });
    const readBack = (t) => {
      const out = t.dataSync();
      t.dispose();
      return out;
    };
    impls.tfjs = () => readBack(run(null));
    const kt = transposed(k, T, dk); // outside the timing: the peer's best case
    impls.tfjsKt = () => readBack(run(kt));
  }
  impls.plainJs = () => plainAttention(q, k, v, T, dk, scale);
  return impls;
}

async function callOnce(fn) {
  const r = fn();
  return r && typeof r.then === 'function' ? await r : r;
}

async function msPerCall(fn, minMs) {
  let calls = 0;
  const start = now();
  let elapsed;
  do {
    const r = fn();
    if (r && typeof r.then === 'function') await r;
    calls++;
    elapsed = now() - start;
  } while (elapsed < minMs);
  return elapsed / calls;
}

/**
 * Times impls (name → fn) side by side: warm-up, then `rounds` rounds. Returns name → per-round ms,
 * aligned by round (null where an implementation sat a round out). `slowMs`: an implementation
 * whose single call exceeds it is warmed by that one call and timed in every other round only
 * (plain JS at 512 × 512 takes seconds per call).
 */
export async function timeInRounds(
  impls,
  { rounds = ROUNDS, roundMs = ROUND_MS, warmupMs = WARMUP_MS, slowMs = 400 } = {},
) {
  const names = Object.keys(impls);
  const slow = new Set();
  const warmEnd = now() + warmupMs;
  for (const name of names) {
    const t0 = now();
    await callOnce(impls[name]);
    if (now() - t0 > slowMs) slow.add(name);
  }
  while (now() < warmEnd) for (const name of names) if (!slow.has(name)) await msPerCall(impls[name], 20);
  const samples = Object.fromEntries(names.map((n) => [n, []]));
  for (let r = 0; r < rounds; r++) {
    const order = names.map((_, i) => names[(i + r) % names.length]);
    for (const name of order)
      samples[name][r] = slow.has(name) && r % 2 === 1 ? null : await msPerCall(impls[name], roundMs);
  }
  return samples;
}

const present = (xs) => xs.filter((x) => x !== null && x !== undefined);

// Median over the rounds where both ran of f(a_r, b_r).
function sameRoundMedian(a, b, f) {
  const values = [];
  a.forEach((x, r) => x !== null && b[r] !== null && b[r] !== undefined && values.push(f(x, b[r])));
  return values.length ? median(values) : null;
}

/**
 * Checks, times and summarises one shape. Returns the row written to JSON. options: timing
 * (rounds, roundMs, warmupMs) and `peak` ({ fn, flops } from wasmPeak): the mul+add ceiling then
 * runs in the same rounds, so the engine's fraction of it is a same-round ratio too.
 */
export async function benchShape(libs, T, dk, options = {}) {
  const input = shapeInputs(T, dk);
  const impls = await implementations(libs, input);
  const maxAbsDiffVsFloat64 = {};
  for (const [name, fn] of Object.entries(impls))
    maxAbsDiffVsFloat64[name] = maxAbsDiff(await callOnce(fn), input.reference);
  const timed = options.peak ? { ...impls, peak: options.peak.fn } : impls;
  const samples = await timeInRounds(timed, options);
  for (const fn of Object.values(impls)) fn.dispose?.();
  const peakSamples = samples.peak;
  delete samples.peak;
  const ms = Object.fromEntries(Object.entries(samples).map(([n, s]) => [n, median(present(s))]));
  const peers = Object.keys(ms).filter((n) => !OURS.includes(n));
  const bestPeer = peers.reduce((a, b) => (ms[b] < ms[a] ? b : a));
  const speedupVsBestPeer = {};
  for (const name of OURS) {
    if (ms[name] !== undefined)
      speedupVsBestPeer[name] = sameRoundMedian(
        samples[name],
        samples[bestPeer],
        (ours, peer) => peer / ours,
      );
  }
  const row = {
    T,
    dk,
    ms,
    gflops: Object.fromEntries(Object.entries(ms).map(([n, t]) => [n, gflops(T, dk, t)])),
    samplesMs: samples,
    bestPeer,
    speedupVsBestPeer,
    maxAbsDiffVsFloat64,
  };
  if (peakSamples) {
    const peakGflops = (t) => options.peak.flops / (t * 1e6);
    row.peakGflops = median(peakSamples.map(peakGflops));
    row.fractionOfPeak = sameRoundMedian(
      samples.engineSimd,
      peakSamples,
      (ours, pk) => gflops(T, dk, ours) / peakGflops(pk),
    );
  }
  return row;
}

/**
 * The wasm mul+add ceiling (peak.wasm, see peak.cpp): each variant `run(v, iterations, …)` does
 * flopsPerIteration(v) flops per iteration on independent f32x4 multiply and add chains. Variants
 * are interleaved in rounds; the peak is the best variant's median GFLOP/s. Returns that, every
 * variant's median, and `fn`/`flops`: one call of the best variant, for benchShape's rounds.
 */
export async function wasmPeak(wasmBytes, { rounds = 7, roundMs = 60, warmupMs = WARMUP_MS } = {}) {
  const { instance } = await WebAssembly.instantiate(wasmBytes, {});
  const { run, variants, flopsPerIteration, chainsOf } = instance.exports;
  const iterations = 100000;
  const ids = [...Array(variants()).keys()];
  const call = (v) => () => run(v, iterations, 1.0000001, 1e-7);
  const warmEnd = now() + warmupMs;
  while (now() < warmEnd) for (const v of ids) call(v)();
  const samples = ids.map(() => []);
  for (let r = 0; r < rounds; r++) {
    for (const v of ids)
      samples[v].push((flopsPerIteration(v) * iterations) / ((await msPerCall(call(v), roundMs)) * 1e6));
  }
  const byVariant = ids.map((v) => ({ chains: chainsOf(v), gflops: median(samples[v]) }));
  const best = ids.reduce((a, b) => (byVariant[b].gflops > byVariant[a].gflops ? b : a));
  return {
    gflops: byVariant[best].gflops,
    variants: byVariant,
    best,
    fn: call(best),
    flops: flopsPerIteration(best) * iterations,
  };
}

const fmt = (x, digits = 1) => (x === undefined || x === null ? '–' : x.toFixed(digits));

/** Markdown table of benchShape rows (columns: the implementations present). */
export function markdownTable(rows, { native = null, title = '' } = {}) {
  const names = Object.keys(LABELS).filter((n) => rows.some((r) => r.ms[n] !== undefined));
  const head = ['T', 'd_k', ...names.map((n) => `${LABELS[n]} GFLOP/s`)];
  if (native) head.push('native GFLOP/s (separate process)');
  head.push(
    'best peer',
    'SIMD engine ÷ best peer (same-round median)',
    'SIMD engine, % of wasm mul+add peak (same round)',
    'max |O − f64| SIMD / best peer',
  );
  const lines = [];
  if (title) lines.push(title, '');
  lines.push(`| ${head.join(' | ')} |`, `|${head.map(() => '---:').join('|')}|`);
  for (const r of rows) {
    const cells = [r.T, r.dk, ...names.map((n) => fmt(r.gflops[n], r.gflops[n] < 1 ? 2 : 1))];
    if (native) {
      const nat = native.find((x) => x.T === r.T && x.dk === r.dk);
      cells.push(nat ? fmt(gflops(r.T, r.dk, nat.ms)) : '–');
    }
    cells.push(
      LABELS[r.bestPeer],
      `**${fmt(r.speedupVsBestPeer.engineSimd, 2)}×**`,
      r.fractionOfPeak === undefined ? '–' : `${fmt(100 * r.fractionOfPeak, 0)} %`,
      `${r.maxAbsDiffVsFloat64.engineSimd.toExponential(1)} / ${r.maxAbsDiffVsFloat64[r.bestPeer].toExponential(1)}`,
    );
    lines.push(`| ${cells.join(' | ')} |`);
  }
  return lines.join('\n');
}
