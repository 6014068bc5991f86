// The learning-rate sweep as the page runs it: LR_GRID's 7 rates × 2 copies (1/√d_k, and
// LayerNorm QK-norm + 1/√d_k), each rate and copy one run of the lrSweep Worker job
// (web/src/panels/lr-sweep/lr-sweep-job.js) of N steps with the warmup-cosine schedule, dealt to
// 2 worker_threads (2 cores) a run at a time, each with its own wasm SIMD engine. The wall-clock
// time of the whole sweep, median of --runs (default 3); and what the sweep measured (the runs
// are deterministic: every repeat gives the same bits): final loss per rate and copy, the largest
// attention logit, lrSensitivity, and the max logit along the steps at the highest rates.
//   node tests/bench/lr-sweep.mjs [--steps 1000] [--runs 3] [--dk 64] [--seqLen 32] [--batchSize 16]
// Prints JSON and Markdown tables; writes build/bench/lr-sweep.json.
import { Worker, isMainThread, parentPort } from 'node:worker_threads';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createEngine } from '../../web/src/engine/engine.js';
import { workerJobs } from '../../web/src/panels/lr-sweep/lr-sweep-job.js';
import { LR_GRID, lrSensitivity } from '../../web/src/panels/lr-sweep/lr-sensitivity.js';

const COPIES = [
  { name: 'sqrt', label: '1/√d_k', scale: 'sqrt' },
  { name: 'layer_sqrt', label: 'QK-layernorm + 1/√d_k', scale: 'sqrt', qkNorm: 'layer' },
];
const SLICE_MS = 50;

if (!isMainThread) {
  const engine = await createEngine({ simd: true });
  parentPort.on('message', (m) => {
    const loss = [];
    const maxLogit = [];
    let done = null;
    const job = workerJobs.lrSweep(
      engine,
      m,
      (msg) => {
        if (msg.type === 'lrSweepDone') done = msg;
        else (loss.push(msg.loss), maxLogit.push(msg.maxLogit));
      },
      SLICE_MS,
    );
    while (job.next());
    job.dispose();
    const flat = (xs) => Float64Array.from(xs.flatMap((a) => [...a]));
    parentPort.postMessage({ part: m.part, done, loss: flat(loss), maxLogit: flat(maxLogit) });
  });
  parentPort.postMessage({ ready: true });
} else {
  await main();
}

async function main() {
  const root = fileURLToPath(new URL('../../', import.meta.url));
  const arg = (name, dflt) => {
    const i = process.argv.indexOf(name);
    return i > 0 ? Number(process.argv[i + 1]) : dflt;
  };
  const steps = arg('--steps', 1000);
  const runs = arg('--runs', 3);
  const base = { dk: arg('--dk', 64), seqLen: arg('--seqLen', 32), batchSize: arg('--batchSize', 16) };
  const loadavg = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).map(Number);
  const load0 = loadavg();
  const workers = await Promise.all(
    [0, 1].map(
      () =>
        new Promise((resolve) => {
          const w = new Worker(new URL(import.meta.url));
          w.once('message', () => resolve(w));
        }),
    ),
  );
  const tasks = COPIES.flatMap((c) => LR_GRID.map((lr) => ({ copy: c, lr })));

  /** The whole grid over the two workers, a run at a time each: { ms, results[part] }. */
  async function sweep() {
    const results = [];
    let next = 0;
    const t0 = performance.now();
    await Promise.all(
      workers.map(async (w) => {
        while (next < tasks.length) {
          const part = next++;
          const { copy, lr } = tasks[part];
          const { label, ...spec } = copy;
          const cfg = { ...base, learningRate: lr, copies: [spec] };
          results[part] = await new Promise((resolve) => {
            w.once('message', resolve);
            w.postMessage({ type: 'lrSweep', session: 'bench', id: 1, part, cfg, steps });
          });
        }
      }),
    );
    return { ms: performance.now() - t0, results };
  }

  const times = [];
  let last = null;
  for (let r = 0; r < runs; r++) {
    last = await sweep();
    times.push(last.ms);
  }
  await Promise.all(workers.map((w) => w.terminate()));
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const r3 = (x) => (Number.isFinite(x) ? Number(x.toPrecision(4)) : x);

  // What the sweep measured, per copy: the final loss and largest logit per rate, the sensitivity.
  const byCopy = COPIES.map((c, ci) => {
    const rows = LR_GRID.map((lr, li) => last.results[ci * LR_GRID.length + li]);
    const initialLoss = rows[0].done.initialLoss;
    const finals = rows.map((x) => x.done.finalLoss);
    const checkpoints = [1, 0.1, 0.25, 0.5, 1].map((f, i) => (i === 0 ? 1 : Math.round(steps * f)));
    return {
      copy: c.name,
      label: c.label,
      initialLoss,
      lrSensitivity: r3(lrSensitivity(finals, initialLoss)),
      lrSensitivityLn16: r3(lrSensitivity(finals, Math.log(16))),
      rates: rows.map((x, li) => ({
        learningRate: LR_GRID[li],
        finalLoss: r3(x.done.finalLoss),
        largestLogit: r3(x.done.largestLogit),
        maxLogitAt: Object.fromEntries(checkpoints.map((s) => [s, r3(x.maxLogit[s - 1])])),
      })),
    };
  });
  const out = {
    date: new Date().toISOString(),
    config: {
      ...base,
      optimizer: 'adam',
      schedule: 'warmup-cosine',
      steps,
      copies: COPIES.map((c) => c.name),
    },
    method: `${tasks.length} runs (${LR_GRID.length} rates × ${COPIES.length} copies) over 2 worker_threads, a run at a time each, wasm SIMD; ${runs} sweeps, median wall clock`,
    loadavgBefore: load0,
    loadavgAfter: loadavg(),
    seconds: { median: r3(median(times) / 1000), each: times.map((t) => r3(t / 1000)) },
    runSeconds: last.results.map((x) => r3(x.done.ms / 1000)),
    byCopy,
    node: process.version,
  };
  mkdirSync(join(root, 'build/bench'), { recursive: true });
  writeFileSync(join(root, 'build/bench/lr-sweep.json'), `${JSON.stringify(out, null, 2)}\n`);
  console.log(JSON.stringify(out, null, 2));
  const head = `| learning rate | ${COPIES.map((c) => c.label).join(' | ')} |\n|---:|${COPIES.map(() => '---:').join('|')}|`;
  const table = (f) =>
    LR_GRID.map((lr, li) => `| ${lr} | ${byCopy.map((c) => f(c.rates[li])).join(' | ')} |`).join('\n');
  console.log(`
Sweep: ${out.seconds.median} s (median of ${runs}: ${out.seconds.each.join(', ')} s), ${steps} steps a run, d_k ${base.dk}, T ${base.seqLen}, batch ${base.batchSize}

Final loss (mean of the last 5 % of steps; ℓ₀ = ${byCopy.map((c) => r3(c.initialLoss)).join(' / ')}):
${head}
${table((x) => x.finalLoss)}
| LR sensitivity | ${byCopy.map((c) => c.lrSensitivity).join(' | ')} |

Largest attention logit of the run:
${head}
${table((x) => x.largestLogit)}

load average before ${load0.join(' ')}, after ${out.loadavgAfter.join(' ')}`);
}
