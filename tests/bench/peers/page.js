// Browser half of `npm run bench:peers` (loaded by page.html, driven by chromium.mjs): the same
// harness as Node, with the UMD builds of onnxruntime-web and tfjs (globals ort, tf) and our engine
// through its public web/src/engine/engine.js. Progress goes to console.log; the result to globalThis.benchState.
import { createEngine } from '/web/src/engine/engine.js';
import { benchShape, wasmPeak } from './harness.js';

const { ort, tf } = globalThis;
const params = new URLSearchParams(location.search);
const shapes = params
  .get('shapes')
  .split(',')
  .map((s) => {
    const [T, dk] = s.split('x').map(Number);
    return { T, dk };
  });
const timing = JSON.parse(params.get('timing') ?? '{}');
const say = (s) => {
  document.getElementById('log').textContent += s + '\n';
  console.log(s);
};
globalThis.benchState = { done: false };

try {
  ort.env.wasm.numThreads = 1; // no cross-origin isolation here, and the engine is single-threaded
  ort.env.wasm.wasmPaths = '/node_modules/onnxruntime-web/dist/';
  tf.wasm.setWasmPaths('/node_modules/@tensorflow/tfjs-backend-wasm/dist/');
  await tf.setBackend('wasm');
  await tf.ready();
  const libs = {
    engineSimd: await createEngine({ simd: true }),
    engineScalar: await createEngine({ simd: false }),
    ort,
    tf,
  };
  say(
    `tfjs wasm SIMD: ${tf.env().getBool('WASM_HAS_SIMD_SUPPORT')}, threads: ${tf.env().getBool('WASM_HAS_MULTITHREAD_SUPPORT')}`,
  );
  const peakBytes = await (await fetch('/build/bench/peak.wasm')).arrayBuffer();
  const quick = (timing.rounds ?? 99) < 5;
  const peak = await wasmPeak(peakBytes, quick ? { rounds: 3, warmupMs: 200 } : {});
  say(`wasm mul+add peak ${peak.gflops.toFixed(1)} GFLOP/s`);
  const rows = [];
  for (const { T, dk } of shapes) {
    const row = await benchShape(libs, T, dk, { ...timing, peak });
    rows.push(row);
    say(
      `T=${T} d_k=${dk}: SIMD ${row.gflops.engineSimd.toFixed(1)} GFLOP/s, best peer ${row.bestPeer} ${row.gflops[row.bestPeer].toFixed(1)}, ratio ${row.speedupVsBestPeer.engineSimd.toFixed(2)}×, ${(100 * row.fractionOfPeak).toFixed(0)} % of peak`,
    );
  }
  const userAgent = navigator.userAgent.match(/(Headless)?Chrome\/[\d.]+/)?.[0] ?? navigator.userAgent;
  globalThis.benchState = {
    done: true,
    result: { userAgent, peak: { gflops: peak.gflops, variants: peak.variants }, shapes: rows },
  };
} catch (e) {
  globalThis.benchState = { error: `${e?.message ?? e}\n${e?.stack ?? ''}` };
}
