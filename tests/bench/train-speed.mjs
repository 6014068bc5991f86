// Training speed: steps per second of engine.train at d_k 64, T 32, batch 16, Adam,
// all three copies (none, sqrt, linear) — the trainer's defaults — in
//   native       build/native/bench_train (a child process; prints one JSON line),
//   node         wasm SIMD (and scalar) in this Node process,
//   chromium     wasm SIMD on a page's main thread in headless Debian chromium (the engine module
//                served from this repository), and
//   page         the real page (dist/ or $ATTNSCALE_DIST): the training panel playing in its
//                Worker, chunked, with the charts drawing — the wall-clock rate a visitor sees.
// Same method everywhere: warm up ≥ 1 s (V8 starts wasm in a baseline tier), then rounds of 100
// steps, each from a reset (same work every round), rate = 100 / time; the three engines are
// interleaved round by round (this shared VM's speed drifts) and medians are reported.
// Prints JSON and a Markdown table; also writes build/bench/train-speed.json.
//   node tests/bench/train-speed.mjs [--rounds 5] [--no-page]
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync, readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createEngine } from '../../web/src/engine/engine.js';
import { startServer } from '../e2e/support/serve-dist.js';
import { launchBrowser } from '../e2e/support/browser.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const arg = (name, dflt) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : dflt;
};
const ROUNDS = Number(arg('--rounds', 5));
const STEPS = 100; // per timed batch
const BATCHES = 5; // timed batches per round and engine
const CFG = { dk: 64, seqLen: 32, batchSize: 16, optimizer: 'adam' };
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const round1 = (x) => Math.round(x * 10) / 10;
const loadavg = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).map(Number);

// The same loop runs in Node and (as source text) in the page.
async function timeTrainer(engine, cfg, steps, batches, warmMs) {
  const t = engine.train(cfg);
  try {
    const warmEnd = performance.now() + warmMs;
    while (performance.now() < warmEnd) t.step(10);
    const rates = [];
    for (let b = 0; b < batches; b++) {
      t.reset();
      const t0 = performance.now();
      t.step(steps);
      rates.push((steps * 1000) / (performance.now() - t0));
    }
    return { rates, copies: Object.keys(t.step(1).copies).length };
  } finally {
    t.delete();
  }
}

function native() {
  const bin = join(root, 'build/native/bench_train');
  if (!existsSync(bin)) return null;
  return JSON.parse(execFileSync(bin, [], { encoding: 'utf8' }).trim().split('\n').pop());
}

const load0 = loadavg();
const simd = await createEngine({ simd: true });
const scalar = await createEngine({ simd: false });

// Chromium: the engine module from this repository, on a page's main thread.
const repoServer = await startServer({ root });
const browser = await launchBrowser();
const page = await browser.newPage();
const errors = [];
page.on('pageerror', (e) => errors.push(e.message));
const benchUrl = `${repoServer.url}__train_bench.html`;
await page.route(benchUrl, (r) =>
  r.fulfill({
    contentType: 'text/html',
    body: `<!doctype html><meta charset="utf-8"><script type="importmap">{"imports":{"wasm-feature-detect":"/node_modules/wasm-feature-detect/dist/esm/index.js"}}</script><body>bench</body>`,
  }),
);
await page.goto(benchUrl);
await page.evaluate(async (src) => {
  const { createEngine: ce } = await import('/web/src/engine/engine.js');
  window.engine = await ce();
  window.timeTrainer = (0, eval)(`(${src})`);
}, timeTrainer.toString());
const chromiumInfo = await page.evaluate(() => ({
  ...window.engine.info,
  ua: navigator.userAgent.match(/Chrome\/[\d.]+/)?.[0],
}));

const samples = { native: [], nodeSimd: [], nodeScalar: [], chromiumSimd: [] };
let nativeInfo = null;
for (let r = 0; r < ROUNDS; r++) {
  const warm = r === 0 ? 1500 : 300;
  const n = native();
  if (n) {
    nativeInfo = n;
    samples.native.push(n.stepsPerSecMedian);
  }
  samples.nodeSimd.push(median((await timeTrainer(simd, CFG, STEPS, BATCHES, warm)).rates));
  samples.nodeScalar.push(median((await timeTrainer(scalar, CFG, STEPS, BATCHES, warm)).rates));
  const c = await page.evaluate(
    ({ cfg, steps, batches, warmMs }) => window.timeTrainer(window.engine, cfg, steps, batches, warmMs),
    { cfg: CFG, steps: STEPS, batches: BATCHES, warmMs: warm },
  );
  samples.chromiumSimd.push(median(c.rates));
}
await page.close();
await repoServer.close();

// The real page: play the training panel for a few seconds and read its own speed readouts.
let pageResult = null;
const dist = process.env.ATTNSCALE_DIST || join(root, 'dist');
if (!process.argv.includes('--no-page') && existsSync(join(dist, 'index.html'))) {
  const server = await startServer({ root: dist });
  const p = await browser.newPage({ width: 1280, height: 900 });
  p.on('pageerror', (e) => errors.push(e.message));
  await p.goto(`${server.url}?dk=${CFG.dk}&seqLen=${CFG.seqLen}`);
  await p.waitForFunction(() => document.getElementById('app')?.dataset.state === 'ready', null, {
    timeout: 60000,
  });
  await p.fill('[data-train-field="stopAt"] input', '0');
  await p.press('[data-train-field="stopAt"] input', 'Tab');
  await p.click('[data-panel="training"] [data-action="play"]');
  await p.waitForTimeout(2000); // warm-up (and the Worker's engine start)
  const read = () =>
    p.evaluate(() => ({
      steps: Number(document.querySelector('[data-stat="train.step"]').textContent),
      t: performance.now(),
    }));
  const a = await read();
  await p.waitForTimeout(6000);
  const b = await read();
  const engineRate = await p.evaluate(() =>
    Number(document.querySelector('[data-panel="training"]').dataset.engineStepsPerSec),
  );
  await p.click('[data-panel="training"] [data-action="play"]');
  pageResult = {
    wallStepsPerSec: round1(((b.steps - a.steps) * 1000) / (b.t - a.t)),
    workerEngineStepsPerSec: round1(engineRate),
    stepsTimed: b.steps - a.steps,
  };
  await p.close();
  await server.close();
}
await browser.close();

const out = {
  date: new Date().toISOString(),
  config: { ...CFG, learningRate: 1e-3, copies: 3 },
  method: `${ROUNDS} rounds, engines interleaved; per round ${BATCHES} × ${STEPS} steps from a reset (native: its own 9 × 100), median per round, median of rounds`,
  loadavgBefore: load0,
  loadavgAfter: loadavg(),
  stepsPerSec: {
    native: samples.native.length ? round1(median(samples.native)) : null,
    nodeWasmSimd: round1(median(samples.nodeSimd)),
    nodeWasmScalar: round1(median(samples.nodeScalar)),
    chromiumWasmSimd: round1(median(samples.chromiumSimd)),
    page: pageResult,
  },
  perRound: Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, v.map(round1)])),
  native: nativeInfo,
  node: { version: process.version, simd: simd.info },
  chromium: chromiumInfo,
  errors,
};
mkdirSync(join(root, 'build/bench'), { recursive: true });
writeFileSync(join(root, 'build/bench/train-speed.json'), `${JSON.stringify(out, null, 2)}\n`);
console.log(JSON.stringify(out, null, 2));
const s = out.stepsPerSec;
console.log(`
| where | steps/s (d_k 64, T 32, batch 16, Adam, 3 copies) |
|---|---:|
| native (${nativeInfo?.arch ?? '—'}) | ${s.native ?? '—'} |
| Node ${process.version}, wasm SIMD | ${s.nodeWasmSimd} |
| Node, wasm scalar | ${s.nodeWasmScalar} |
| ${chromiumInfo.ua}, wasm SIMD, main thread | ${s.chromiumWasmSimd} |
| the page: training panel playing (Worker time only / wall clock with charts) | ${pageResult ? `${pageResult.workerEngineStepsPerSec} / ${pageResult.wallStepsPerSec}` : '—'} |

load average before ${load0.join(' ')}, after ${out.loadavgAfter.join(' ')}`);
if (errors.length) process.exitCode = 1;
