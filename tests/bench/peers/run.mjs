// `npm run bench:peers` (build-scripts/bench-peers.sh builds first): the attention forward
// O = softmax(QKᵀ·s)·V (fp32, one head, max subtracted) for T ∈ {128, 512}, d_k ∈ {16, 64, 128, 512}
// by our engine (wasm SIMD and scalar) and its peers — onnxruntime-web (wasm EP), tfjs-backend-wasm
// (plain and K pre-transposed), plain JS — in ONE Node process, timed side by side in rounds
// (harness.js), together with the wasm SIMD128 mul+add ceiling (peak.wasm); then the native build
// as a separate process; then the same harness in headless chromium (page.html on 127.0.0.1).
// Writes build/bench/peers.{json,md} and build/bench/peers-chromium.md.
//
// Options: --no-browser, --no-native, --no-node (chromium only), --shapes=128x16,512x128,
//          --quick (3 short rounds: a smoke test, not a result)
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { createEngine } from '../../../web/src/engine/engine.js';
import { SHAPES, benchShape, markdownTable, wasmPeak } from './harness.js';
import { runInChromium } from './chromium.mjs';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const require = createRequire(import.meta.url);
const args = new Set(process.argv.slice(2));
const quick = args.has('--quick');
const timing = quick ? { rounds: 3, warmupMs: 200, roundMs: 20 } : {};
const shapeArg = process.argv.find((a) => a.startsWith('--shapes='));
const shapes = shapeArg
  ? shapeArg
      .slice('--shapes='.length)
      .split(',')
      .map((s) => {
        const [T, dk] = s.split('x').map(Number);
        return { T, dk };
      })
  : SHAPES;
const log = (s) => process.stderr.write(s + '\n');
const loads = () =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');

async function loadLibs() {
  const ort = require('onnxruntime-web');
  ort.env.wasm.numThreads = 1; // the engine is single-threaded, and so is chromium without isolation
  const tf = require('@tensorflow/tfjs-core');
  require('@tensorflow/tfjs-backend-wasm');
  await tf.setBackend('wasm');
  await tf.ready();
  return {
    engineSimd: await createEngine({ simd: true }),
    engineScalar: await createEngine({ simd: false }),
    ort,
    tf,
    versions: {
      ort: ort.env.versions.web,
      tfjs: tf.version_core,
      tfjsWasmSimd: tf.env().getBool('WASM_HAS_SIMD_SUPPORT'),
    },
  };
}

// The targets, per shape, from same-round ratios.
function targets(rows) {
  const perShape = rows.map((r) => {
    const need = r.dk >= 64 ? 1.3 : 1.0;
    const got = r.speedupVsBestPeer.engineSimd;
    return { T: r.T, dk: r.dk, need, got, met: got >= need };
  });
  const big = rows.find((r) => r.T === 512 && r.dk === 128);
  const fractionOfPeak512x128 = big?.fractionOfPeak ?? null;
  return {
    perShape,
    fractionOfPeak512x128,
    peakMet: fractionOfPeak512x128 === null ? null : fractionOfPeak512x128 >= 0.5,
  };
}

function targetLines(t) {
  const lines = t.perShape.map(
    (s) =>
      `- T = ${s.T}, d_k = ${s.dk}: SIMD engine ${s.got.toFixed(2)}× the best peer (target ≥ ${s.need.toFixed(1)}×): ${s.met ? 'met' : 'MISSED'}`,
  );
  if (t.fractionOfPeak512x128 !== null) {
    lines.push(
      `- T = 512, d_k = 128: SIMD engine at ${(100 * t.fractionOfPeak512x128).toFixed(0)} % of the wasm SIMD128 mul+add peak of the same rounds (target ≥ 50 %): ${t.peakMet ? 'met' : 'MISSED'}`,
    );
  }
  return lines.join('\n');
}

function peakLine(peak, where) {
  const variants = peak.variants
    .map((v) => `${v.chains} + ${v.chains} chains ${v.gflops.toFixed(1)}`)
    .join(', ');
  return `wasm SIMD128 mul+add peak (${where}, f32x4.mul + f32x4.add, no FMA in SIMD128): **${peak.gflops.toFixed(1)} GFLOP/s** measured alone (variants: ${variants}); the % column divides by the peak re-measured in each shape's own rounds.`;
}

const peakBytes = readFileSync(`${root}build/bench/peak.wasm`);
const libs = await loadLibs();
const loadBefore = loadavg();
log(
  `Node ${process.version}; onnxruntime-web ${libs.versions.ort}, tfjs ${libs.versions.tfjs}; load ${loads()}`,
);

let nodeResult = null;
if (!args.has('--no-node')) {
  log('wasm mul+add peak (Node)…');
  const peak = await wasmPeak(peakBytes, quick ? { rounds: 3, warmupMs: 200 } : {});
  const rows = [];
  for (const { T, dk } of shapes) {
    log(`Node: T=${T} d_k=${dk}… (load ${loads()})`);
    const row = await benchShape(libs, T, dk, { ...timing, peak });
    rows.push(row);
    log(
      `  SIMD ${row.gflops.engineSimd.toFixed(1)} GFLOP/s, best peer ${row.bestPeer} ${row.gflops[row.bestPeer].toFixed(1)}, ratio ${row.speedupVsBestPeer.engineSimd.toFixed(2)}×, ${(100 * row.fractionOfPeak).toFixed(0)} % of peak`,
    );
  }
  nodeResult = {
    peak: { gflops: peak.gflops, variants: peak.variants },
    shapes: rows,
    targets: targets(rows),
  };
}
for (const e of [libs.engineSimd, libs.engineScalar]) e.delete();

let native = null;
if (!args.has('--no-native')) {
  log(`native forward (separate process)… (load ${loads()})`);
  native = JSON.parse(execFileSync(`${root}build/native/bench_forward`, { encoding: 'utf8' }));
}

let chromium = null;
if (!args.has('--no-browser')) {
  log(`headless chromium… (load ${loads()})`);
  chromium = await runInChromium({ root, shapes, timing, log });
  chromium.targets = targets(chromium.shapes);
}
const loadAfter = loadavg();

const footer = `Load average (1, 5, 15 min) before: ${loadBefore.map((x) => x.toFixed(2)).join(' ')}, after: ${loadAfter.map((x) => x.toFixed(2)).join(' ')}. onnxruntime-web ${libs.versions.ort} (wasm EP, 1 thread), tfjs-backend-wasm ${libs.versions.tfjs} (SIMD ${libs.versions.tfjsWasmSimd}, 1 thread).`;
mkdirSync(`${root}build/bench`, { recursive: true });
const written = ['build/bench/peers.json'];
if (nodeResult) {
  const md = [
    markdownTable(nodeResult.shapes, {
      native: native?.forward,
      title: `### Attention forward in Node ${process.version} (GFLOP/s; FLOPs = 4·T²·d_k; medians of interleaved rounds)`,
    }),
    '',
    peakLine(nodeResult.peak, `Node ${process.version}`),
    native
      ? `Native (${native.arch}, separate process, not same-round): FMA peak **${native.peakGflops.toFixed(1)} GFLOP/s**; forward max |O − f64| ${Math.max(...native.forward.map((r) => r.maxAbsDiff)).toExponential(1)}.`
      : '',
    '',
    'Targets (same-round ratios):',
    targetLines(nodeResult.targets),
    '',
    footer,
  ].join('\n');
  writeFileSync(`${root}build/bench/peers.md`, md + '\n');
  written.push('build/bench/peers.md');
  console.log(md);
  console.log('\nmax |O − float64 reference| (Node):');
  for (const r of nodeResult.shapes) {
    console.log(
      `  T=${r.T} d_k=${r.dk}: ` +
        Object.entries(r.maxAbsDiffVsFloat64)
          .map(([n, d]) => `${n} ${d.toExponential(1)}`)
          .join(', '),
    );
  }
}
if (chromium) {
  const md = [
    markdownTable(chromium.shapes, {
      title: `### Attention forward in headless ${chromium.userAgent} (GFLOP/s; same harness as Node)`,
    }),
    '',
    peakLine(chromium.peak, 'chromium'),
    '',
    'Targets (same-round ratios):',
    targetLines(chromium.targets),
    '',
    footer,
  ].join('\n');
  writeFileSync(`${root}build/bench/peers-chromium.md`, md + '\n');
  written.push('build/bench/peers-chromium.md');
  console.log('\n' + md);
}
const result = {
  date: new Date().toISOString(),
  node: process.version,
  loadavg: { before: loadBefore, after: loadAfter },
  versions: libs.versions,
  quick,
  shapes,
  nodeResult,
  native,
  chromium,
};
writeFileSync(`${root}build/bench/peers.json`, JSON.stringify(result, null, 2));
console.log(`\nwritten: ${written.join(', ')}`);
