// Dumps the bits of what the engine computes, to check that a change of the C++ changes no number.
// Every number is written as the hex of its float64 bits, every typed array as its length and the
// SHA-256 of its bytes, one line per value; two dumps are equal exactly when every result is.
//   node tests/tools/bit-dump.mjs simd   > /tmp/bits-before-simd.txt     (the build in web/generated)
//   node tests/tools/bit-dump.mjs scalar > /tmp/bits-before-scalar.txt
//   … change the C++, bash build-scripts/lib/build-wasm.sh, dump again to -after, then diff.
// It covers run (scales, formats, QK-norm, soft-cap, length factor, mask, online softmax),
// runForward/runBackward, forwardStats, sweepScales, sweepSeqLen, sweepEstimateJob (drained),
// analyze, attention, round, training steps with several copy choices, and the schemas' values.
import { createHash } from 'node:crypto';
import { createEngine } from '../../web/src/engine/engine.js';

const variant = process.argv[2] ?? 'simd';
if (variant !== 'simd' && variant !== 'scalar')
  throw new Error(`build must be simd or scalar, got ${variant}`);
const engine = await createEngine({ simd: variant === 'simd' });

const lines = [];
const f64 = new Float64Array(1);
const u32 = new Uint32Array(f64.buffer);
const hex = (x) => {
  f64[0] = x;
  return u32[1].toString(16).padStart(8, '0') + u32[0].toString(16).padStart(8, '0');
};

// One line per leaf: numbers as float64 bits, typed arrays hashed, the rest as JSON.
function dump(path, value) {
  if (typeof value === 'number') lines.push(`${path} = ${hex(value)}`);
  else if (ArrayBuffer.isView(value)) {
    const bytes = new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
    const sha = createHash('sha256').update(bytes).digest('hex');
    lines.push(`${path} = ${value.constructor.name}(${value.length}) ${sha}`);
  } else if (Array.isArray(value)) value.forEach((v, i) => dump(`${path}[${i}]`, v));
  else if (value !== null && typeof value === 'object') {
    for (const key of Object.keys(value).sort()) dump(`${path}.${key}`, value[key]);
  } else lines.push(`${path} = ${JSON.stringify(value)}`);
}

// Reproducible normal samples without the engine (Box–Muller over a linear congruential generator).
function normals(n, seed, mean = 0, std = 1) {
  let s = seed >>> 0;
  const next = () => ((s = (s * 1664525 + 1013904223) >>> 0) + 0.5) / 2 ** 32;
  const out = new Float32Array(n);
  for (let i = 0; i < n; i++)
    out[i] = mean + std * Math.sqrt(-2 * Math.log(next())) * Math.cos(2 * Math.PI * next());
  return out;
}

const withoutTime = ({ timeMs: _t, ...rest }) => rest;

// The schemas' existing rows and keys only: additions (a row's choices, trainSchema's copies) do not
// change this dump.
const schemaKeys = [
  'name',
  'type',
  'min',
  'max',
  'minExclusive',
  'maxField',
  'values',
  'default',
  'label',
  'hint',
];
const pick = (row, keys) => Object.fromEntries(keys.filter((k) => k in row).map((k) => [k, row[k]]));
dump(
  'schema',
  engine.schema.map((row) => pick(row, schemaKeys)),
);
const trainRows = ['dk', 'seqLen', 'batchSize', 'optimizer', 'learningRate', 'initScale', 'seed', 'workCap'];
dump(
  'trainSchema',
  engine.trainSchema.filter((row) => trainRows.includes(row.name)),
);
dump('defaults', engine.defaults());

const runs = [
  {},
  { dk: 128, scale: 'none' },
  { dk: 16, scale: 'linear', seqLen: 96 },
  { dk: 256, scale: 0.05, seqLen: 64 },
  { dk: 64, precision: 'bf16', causal: true },
  { dk: 512, precision: 'fp16', scale: 'none', seqLen: 128 },
  { dk: 64, precision: 'fp8e4m3', scale: 'none', seqLen: 64 },
  { dk: 64, precision: 'fp8e4m3', saturate: true, scale: 'none', seqLen: 64 },
  { dk: 64, precision: 'fp8e5m2', scale: 'none', seqLen: 64, subtractMax: false },
  { dk: 64, precision: 'fp8e5m2', saturate: true, scale: 'none', seqLen: 64, subtractMax: false },
  { dk: 32, qkNorm: 'rms', seqLen: 80 },
  { dk: 32, qkNorm: 'layer', scale: 'none', seqLen: 80, causal: true },
  { dk: 128, softcap: 50, scale: 'none', seqLen: 100 },
  { dk: 64, lengthScale: 0.4, causal: true, seqLen: 120 },
  { dk: 64, softmax: 'online', blockSize: 16, precision: 'bf16', seqLen: 128 },
  { dk: 48, mean: 0.3, std: 1.7, correlation: 0.6, seed: 7, seqLen: 72 },
  { dk: 200, subtractMax: false, scale: 'none', seqLen: 64, precision: 'fp16' },
];
runs.forEach((cfg, i) => dump(`run[${i}]`, withoutTime(engine.run(cfg))));
runs.forEach((cfg, i) => dump(`forwardStats[${i}]`, engine.forwardStats(cfg)));

for (const [i, cfg] of [{ dk: 64 }, { dk: 32, qkNorm: 'rms', softcap: 20, causal: true }].entries()) {
  dump(`runForward[${i}]`, withoutTime(engine.runForward(cfg)));
  let back = null;
  while (back === null) back = engine.runBackward(1);
  dump(`runBackward[${i}]`, back);
}

const dks = [1, 3, 16, 64, 200];
const scales = ['none', 'sqrt', 'linear', 0.07];
const sweepCfgs = [
  { seqLen: 64 },
  { seqLen: 48, precision: 'bf16', causal: true, qkNorm: 'layer' },
  { seqLen: 40, softcap: 30, lengthScale: 0.5, precision: 'fp8e5m2', saturate: true },
];
sweepCfgs.forEach((cfg, i) => dump(`sweepScales[${i}]`, engine.sweepScales(cfg, dks, scales)));
dump('sweepSeqLen', engine.sweepSeqLen({ dk: 32, causal: true }, [2, 17, 64, 130]));

for (const [i, [cfg, options]] of [
  [{ seqLen: 128 }, { rows: 32 }],
  [
    { seqLen: 96, causal: true, precision: 'bf16' },
    { rows: 24, gradients: false },
  ],
  [{ seqLen: 64, qkNorm: 'rms', softcap: 10 }, { rows: 64 }],
].entries()) {
  const job = engine.sweepEstimateJob(cfg, dks, scales, options);
  dump(`sweepEstimate[${i}].rows`, job.rows);
  for (let step = job.advance(Infinity), n = 0; !step.done; step = job.advance(Infinity), n++) {
    dump(`sweepEstimate[${i}].point[${n}]`, step.value);
  }
  job.delete();
}

{
  const T = 48;
  const d = 24;
  const q = normals(4 * T * d, 11, 0.1, 1.3);
  const k = normals(2 * T * d, 12, -0.2, 0.8);
  const v = normals(2 * T * d, 13);
  const base = { seqLen: T, dk: d, heads: 4, kvHeads: 2 };
  dump('analyze[0]', engine.analyze(q, k, { ...base, detail: true }));
  dump('analyze[1]', engine.analyze(q, k, { ...base, v, scale: 'none', precision: 'fp16', causal: true }));
  dump('analyze[2]', engine.analyze(q, k, { ...base, v, softmax: 'online', blockSize: 8, qkNorm: 'rms' }));
  dump('analyze[3]', engine.analyze(q, k, { ...base, softcap: 5, lengthScale: 0.3, precision: 'fp8e4m3' }));
  const one = { seqLen: T, dk: d };
  const [q1, k1, v1] = [q, k, v].map((a) => a.subarray(0, T * d));
  dump('attention[0]', engine.attention(q1, k1, v1, one));
  dump(
    'attention[1]',
    engine.attention(q1, k1, v1, { ...one, scale: 'none', causal: true, precision: 'bf16' }),
  );
  dump('attention[2]', engine.attention(q1, k1, v1, { ...one, qkNorm: 'layer', softcap: 3, lengthScale: 1 }));
}

{
  const edges = [0, -0, 1, -1, 65504, 65519, 65520, 448, 464, 57344, 61440, 3.4e38, Infinity, -Infinity, NaN];
  const bits = new Uint32Array(4096);
  let s = 12345;
  for (let i = 0; i < bits.length; i++) bits[i] = s = (Math.imul(s, 1103515245) + 12345) >>> 0;
  const values = Float32Array.from([...edges, ...new Float32Array(bits.buffer)]);
  for (const p of ['fp32', 'bf16', 'fp16', 'fp8e4m3', 'fp8e5m2']) {
    for (const saturate of [false, true])
      dump(`round.${p}.${saturate}`, engine.round(p, values, { saturate }));
  }
}

const trainCfgs = [
  { dk: 16, seqLen: 16, batchSize: 4 },
  { dk: 16, seqLen: 16, batchSize: 4, scale: 0.3, optimizer: 'sgd', learningRate: 0.05 },
  { dk: 8, seqLen: 12, batchSize: 3, precision: 'bf16', seed: 5 },
  { dk: 8, seqLen: 12, batchSize: 3, precision: 'fp8e4m3', saturate: true },
  {
    dk: 16,
    seqLen: 16,
    batchSize: 4,
    copies: [
      { name: 'plain', scale: 'none' },
      { name: 'rms', qkNorm: 'rms' },
      { name: 'layer', qkNorm: 'layer', scale: 'linear' },
      { name: 'cap', softcap: 5, scale: 0.2 },
      { name: 'ssmax', lengthScale: 0.5 },
    ],
  },
  {
    dk: 16,
    seqLen: 16,
    batchSize: 4,
    copies: [{ name: 'none', scale: 'none' }, { name: 'sqrt' }, { name: 'linear', scale: 'linear' }],
  },
];
trainCfgs.forEach((cfg, i) => {
  const trainer = engine.train(cfg);
  dump(`train[${i}].config`, trainer.config);
  const first = trainer.step(7);
  dump(`train[${i}].step7`, first);
  dump(`train[${i}].step3`, trainer.step(3));
  for (const name of Object.keys(first.copies)) {
    dump(`train[${i}].attention.${name}`, trainer.attention(name));
    dump(`train[${i}].qk.${name}`, trainer.qk(name));
  }
  trainer.reset();
  dump(`train[${i}].afterReset`, trainer.step(2));
  trainer.delete();
});

for (const [i, bad] of [
  { dk: 0 },
  { scale: 'cube' },
  { precision: 'fp4' },
  { foo: 1 },
  { scale: -1 },
].entries()) {
  try {
    engine.validate(bad);
    dump(`error[${i}]`, 'none');
  } catch (e) {
    dump(`error[${i}]`, `${e.name}: ${e.message}`);
  }
}
for (const [i, bad] of [
  { precision: 'fp4' },
  { scale: 'cube' },
  { copies: [{ name: 'a', scale: 'x' }] },
].entries()) {
  try {
    engine.train(bad).delete();
    dump(`trainError[${i}]`, 'none');
  } catch (e) {
    dump(`trainError[${i}]`, `${e.name}: ${e.message}`);
  }
}

engine.delete();
process.stdout.write(lines.join('\n') + '\n');
