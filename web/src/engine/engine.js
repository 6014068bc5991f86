// attnscale's public JS API: one engine, Node ≥ 20 or browser (main thread or module Worker).
//   const engine = await createEngine();           // SIMD build where wasm SIMD exists, else scalar
//   const r = engine.run({ dk: 128, scale: 'none' });
// Every bad input throws a RangeError or TypeError naming the field and its valid range; the
// engine stays usable afterwards.
import { simd as wasmSimdSupported } from 'wasm-feature-detect';
import { hasWebAssembly, NO_WEBASSEMBLY } from './support.js';
import { SweepEstimateJob, SweepJob, checkBudget } from './sweep-jobs.js';

export { SweepEstimateJob, SweepJob };

const isNode = typeof process !== 'undefined' && !!process.versions?.node && typeof window === 'undefined';

async function wasmBytesForNode(variant) {
  // Node's fetch cannot read file: URLs, so the glue gets the bytes (TOOLCHAIN.md).
  const fsModule = 'node:fs/promises';
  const { readFile } = await import(/* @vite-ignore */ fsModule);
  const fileName = 'attnscale-' + variant + '.wasm';
  return readFile(new URL('../../generated/' + fileName, import.meta.url));
}

function throwIfError(result) {
  if (result && result.error) {
    const { kind, message } = result.error;
    const Kind = { RangeError, TypeError }[kind] ?? Error;
    throw new Kind(message);
  }
  return result;
}

export class Engine {
  #module;
  #native;
  #schema;
  #info;

  constructor(module, simd) {
    this.#module = module;
    this.#native = new module.Engine();
    this.#schema = deepFreeze(JSON.parse(module.schemaJson()));
    const info = JSON.parse(module.buildInfo());
    this.#info = Object.freeze({ simd, version: info.version, arch: info.arch });
  }

  /** { simd, version, arch }: which build runs. */
  get info() {
    return this.#info;
  }

  /**
   * The one table of config fields: { name, type, min, max, minExclusive, maxField, values, choices,
   * default, label, hint }. An enum or scale field's `choices` list its `values` with what a page
   * shows of each: { value, label } and, for `scale`, { formula, tex, exponent } (the multiplier is
   * d_k^exponent), for `precision`, { exponentBits, mantissaBits, largestFinite, hasInfinity,
   * canSaturate }.
   */
  get schema() {
    return this.#schema;
  }

  /** Every config field at its default. */
  defaults() {
    return Object.fromEntries(this.#schema.map((f) => [f.name, f.default]));
  }

  /** The full config that `cfg` stands for (defaults filled in); throws on bad input. */
  validate(cfg = {}) {
    return JSON.parse(throwIfError(this.#native.validate(cfg)).config);
  }

  /** One measurement: sampled Q, K, V, forward, backward and statistics. */
  run(cfg = {}) {
    return this.#timed('run', cfg);
  }

  /**
   * run(cfg) in two calls, so that what needs only the forward can be shown first: the result is
   * run's with gradNormQ and gradNormK NaN and backwardPending true; runBackward() then goes on
   * with the same work. Up to seqLen·dk = 2^21 (beyond it the result is run's whole and
   * backwardPending false). Any other call of this engine ends a pending backward.
   */
  runForward(cfg = {}) {
    return this.#timed('runForward', cfg);
  }

  #timed(call, cfg) {
    const start = now();
    const result = throwIfError(this.#native[call](cfg));
    result.config = JSON.parse(result.config);
    result.timeMs = now() - start;
    return result;
  }

  /**
   * Works on runForward's backward for about budgetMs (Infinity: to the end): null while work
   * remains, then every scalar field of run(cfg), bit for bit. Throws when none is pending.
   */
  runBackward(budgetMs = Infinity) {
    checkBudget(budgetMs, 'to the end');
    const step = throwIfError(this.#native.runBackward(budgetMs));
    if (!step.done) return null;
    delete step.done;
    return step;
  }

  /**
   * run(cfg)'s scalar fields without the backward (about 0.6× a run's work at d_k < T, less from
   * there, and no arrays): gradNormQ and gradNormK are NaN, every other field the same bit for bit.
   */
  forwardStats(cfg = {}) {
    return throwIfError(this.#native.forwardStats(cfg));
  }

  /**
   * Points one at a time ({ dk, ...scalar fields }) for each d_k in `dks`, so a page can draw them
   * as they arrive. Interleaving with run() is fine.
   */
  *sweepPoints(cfg, dks) {
    const job = this.#sweepJob(cfg, dks, null, [0]);
    try {
      for (;;) {
        const step = job.advance(Infinity);
        if (step.done) return;
        yield step.value.points[0];
      }
    } finally {
      job.delete();
    }
  }

  /** { dk: Int32Array, <every scalar field>: Float64Array, nonFinite, firstNonFiniteStage } over `dks`. */
  sweep(cfg, dks) {
    return collectSweep([...this.sweepPoints(cfg, dks)]);
  }

  /**
   * One sweep for several scalings: Q, K, V, G are sampled and QKᵀ, GVᵀ accumulated once; only
   * the scale-dependent work is done per scale. `scales`: 'none', 'sqrt', 'linear' or numbers > 0.
   * Returns { [key]: what sweep({ ...cfg, scale }, dks) returns, bit for bit }, keyed by the scale
   * as given ('none', 'sqrt', 'linear' or String(number)).
   */
  sweepScales(cfg, dks, scales) {
    const points = [...this.sweepScalesPoints(cfg, dks, scales)];
    const keys = scaleKeys(scales);
    return Object.fromEntries(keys.map((key) => [key, collectSweep(points.map((p) => p.points[key]))]));
  }

  /** The same a point at a time: yields { dk, points: { [key]: point } } per d_k, in order. */
  *sweepScalesPoints(cfg, dks, scales) {
    const job = this.sweepScalesJob(cfg, dks, scales);
    try {
      for (;;) {
        const step = job.advance(Infinity);
        if (step.done) return;
        yield step.value;
      }
    } finally {
      job.delete();
    }
  }

  /**
   * The same as a resumable job for a Worker that must stay responsive:
   *   job.advance(budgetMs) → { done: false, value: { dk, points } } when a point completed,
   *                           { done: false, value: null } when about budgetMs passed first (the
   *                           work so far is kept), { done: true, value: null } after the last;
   *   job.delete() frees it (call it when dropping a job early).
   * One advance overshoots its budget by at most one step of work (a few milliseconds).
   */
  sweepScalesJob(cfg, dks, scales) {
    return this.#sweepJob(cfg, dks, scales, scaleKeys(scales));
  }

  /**
   * The same sweep estimated first: each d_k point of every scale from `rows` sampled query rows
   * (an integer in [2, seqLen], default min(128, seqLen)) against all T keys, with a standard
   * error per field, at about rows/T of the exact sweep's work. A job like sweepScalesJob's:
   * advance(budgetMs) → { done, value: { dk, points: { [key]: estimate } } | null }; delete().
   * An estimate is { dk, rows, <field>, <field>Se, …, exactOnly: [fields it leaves to the exact
   * sweep] } (docs/api.md, "Sweep estimates"). `gradients: false` leaves the backward out (about
   * half the work): gradNormQ is then NaN, every other field the same.
   */
  sweepEstimateJob(cfg, dks, scales, options = {}) {
    if (options === null || typeof options !== 'object') {
      throw new TypeError('sweepEstimateJob options must be an object like { rows: 128 }');
    }
    const { rows, gradients = true, ...rest } = options;
    const unknown = Object.keys(rest)[0];
    if (unknown !== undefined) {
      throw new TypeError(
        `unknown sweepEstimateJob option '${unknown.slice(0, 40)}'; valid options: rows, gradients`,
      );
    }
    if (typeof gradients !== 'boolean') {
      throw new TypeError(`gradients must be a boolean (true or false), got ${typeof gradients}`);
    }
    const keys = scaleKeys(scales);
    const begin = throwIfError(this.#native.estimateBegin(cfg ?? {}, dks, scales, rows, gradients));
    return new SweepEstimateJob(this.#native, begin.id, keys, begin.rows);
  }

  /**
   * Statistics against the sequence length at the config's d_k: yields { seqLen, ...scalars } for
   * each T in `seqLens` (integers in [2, 2048]); each equals run({ ...cfg, seqLen: T })'s
   * scalars (a blockSize above T is lowered to T for that point).
   */
  *sweepSeqLenPoints(cfg, seqLens) {
    const { seqLen } = throwIfError(this.#native.seqLenSweepCheck(cfg ?? {}, seqLens));
    for (const T of seqLen) yield throwIfError(this.#native.seqLenPoint(cfg ?? {}, T));
  }

  /** { seqLen: Int32Array, <every scalar field>: Float64Array, nonFinite, firstNonFiniteStage } over `seqLens`. */
  sweepSeqLen(cfg, seqLens) {
    return collectSweep([...this.sweepSeqLenPoints(cfg, seqLens)], 'seqLen');
  }

  /** Milliseconds per phase (sampling, products, logits, softmax, output, backward) of the last sweep that ended: a profile. */
  get lastSweepPhaseMs() {
    return this.#native.lastSweepPhaseMs();
  }

  #sweepJob(cfg, dks, scales, keys) {
    const begin = throwIfError(this.#native.sweepBegin(cfg ?? {}, dks, scales));
    return new SweepJob(this.#native, begin.id, keys);
  }

  /**
   * O = softmax(Q Kᵀ · s) V with q, k, v Float32Arrays of seqLen·dk values (row-major), options
   * { seqLen, dk, scale, subtractMax, causal, precision, saturate, qkNorm, lengthScale, softcap }
   * → Float32Array(seqLen·dk).
   */
  attention(q, k, v, options) {
    if (options === null || typeof options !== 'object') {
      throw new TypeError('attention options must be an object like { seqLen, dk }');
    }
    return throwIfError(this.#native.attention(q, k, v, options)).output;
  }

  /**
   * `run`'s measurements on a model's own queries and keys, head by head. q: heads·seqLen·dk
   * values, k (and options.v): kvHeads·seqLen·dk, head-major; query head h reads key head
   * ⌊h / (heads / kvHeads)⌋. options: { seqLen, dk, heads, kvHeads, v, detail } and the logit
   * fields of `run` → { heads: [one report per query head] }.
   */
  analyze(q, k, options) {
    if (options === null || typeof options !== 'object') {
      throw new TypeError('analyze options must be an object like { seqLen, dk, heads }');
    }
    const { v = null, ...rest } = options;
    const out = throwIfError(this.#native.analyze(q, k, v, rest));
    return { heads: out.heads };
  }

  /** float32 → format → float32, round-to-nearest-even. */
  round(precision, values, options = {}) {
    if (options === null || typeof options !== 'object') {
      throw new TypeError('round options must be an object like { saturate: true }');
    }
    const saturate = options.saturate ?? false;
    if (typeof saturate !== 'boolean') {
      throw new TypeError(`saturate must be a boolean (true or false), got ${typeof saturate}`);
    }
    if (typeof precision !== 'string') {
      const names = this.#schema.find((f) => f.name === 'precision').values;
      throw new TypeError(
        `precision must be one of ${names.map((n) => `'${n}'`).join(', ')}, got ${typeof precision}`,
      );
    }
    return throwIfError(this.#native.round(precision, values, saturate)).values;
  }

  /**
   * The lowest softmax entropy (nats) of a row of seqLen logits whose centred norm ‖z − mean z‖₂
   * is at most sigma (docs/science.md, "The entropy floor"): ln seqLen at sigma 0, falling towards
   * 0 as sigma grows. seqLen: an integer ≥ 1 (any row length, a causal row's too); sigma ≥ 0.
   */
  entropyLowerBound(seqLen, sigma) {
    const MAX = Number.MAX_SAFE_INTEGER;
    if (typeof seqLen !== 'number')
      throw new TypeError(`seqLen must be an integer in [1, ${MAX}], got ${typeof seqLen}`);
    if (!Number.isSafeInteger(seqLen) || seqLen < 1)
      throw new RangeError(`seqLen must be an integer in [1, ${MAX}], got ${seqLen}`);
    if (typeof sigma !== 'number')
      throw new TypeError(`sigma must be a finite number >= 0, got ${typeof sigma}`);
    if (!(Number.isFinite(sigma) && sigma >= 0))
      throw new RangeError(`sigma must be a finite number >= 0, got ${sigma}`);
    return this.#module.entropyLowerBound(seqLen, sigma);
  }

  /** Bytes of wasm linear memory now (it grows with the largest request, and never shrinks). */
  get memoryBytes() {
    return this.#module.HEAP8.buffer.byteLength;
  }

  /**
   * The training fields with ranges and defaults (for the training panel's controls). Its `copies`
   * row lists the default copies' names (`default`) and the copies a page can offer (`choices`):
   * { name, label, scale, qkNorm, softcap, lengthScale }, each one entry of `train({ copies })`.
   */
  get trainSchema() {
    return JSON.parse(this.#module.trainSchemaJson());
  }

  /**
   * A tiny attention model trained in several copies side by side, from one initialisation on the
   * same batches: by default with scale none, 1/√d_k and 1/d_k (and `scale`, a custom multiplier,
   * when given); or the copies listed in `copies`, each { name, scale: 'none' | 'sqrt' | 'linear'
   * | number, qkNorm: 'none' | 'rms' | 'layer', softcap: c (0 = off), lengthScale: s (0 = off) }.
   * cfg: { dk, seqLen, batchSize, optimizer: 'adam' | 'sgd', learningRate, schedule: 'constant' |
   * 'warmup-cosine', scheduleSteps, initScale, precision, saturate, seed, scale, copies }.
   */
  train(cfg = {}) {
    const native = new this.#module.Trainer(cfg ?? {});
    const error = native.error();
    if (error) {
      native.delete();
      throwIfError(error);
    }
    return new Trainer(native);
  }

  /** Frees the wasm-side engine. */
  delete() {
    this.#native.delete();
  }
}

export class Trainer {
  #native;

  constructor(native) {
    this.#native = native;
    this.config = JSON.parse(native.configJson());
  }

  #alive() {
    if (!this.#native) throw new Error('this trainer was deleted');
    return this.#native;
  }

  /** Runs n steps of every copy: { step: Int32Array(n), copies: { [name]: { metric: Float64Array(n) } } }. */
  step(n = 1) {
    return throwIfError(this.#alive().step(n));
  }

  /** The seqLen × seqLen attention weights of one fixed example under the copy's current weights. */
  attention(copy) {
    if (typeof copy !== 'string')
      throw new TypeError(`copy must be a copy's name (a string), got ${typeof copy}`);
    return throwIfError(this.#alive().attention(copy)).values;
  }

  /**
   * The queries and keys of that example, { q, k, seqLen, dk, heads, scale }: q and k are
   * seqLen × dk (row-major, one head) after QK-norm and rounded to the precision, so
   * attention(copy) is the row softmax of q·kᵀ times `scale` (then the copy's length factor and
   * soft-cap, if it has them).
   */
  qk(copy) {
    if (typeof copy !== 'string')
      throw new TypeError(`copy must be a copy's name (a string), got ${typeof copy}`);
    const { q, k, scale } = throwIfError(this.#alive().qk(copy));
    return { q, k, seqLen: this.config.seqLen, dk: this.config.dk, heads: 1, scale };
  }

  /** Steps run since the last reset. */
  get steps() {
    return this.#alive().stepsDone();
  }

  /** Back to the initial weights and step 0. */
  reset() {
    this.#alive().reset();
  }

  /** Frees the wasm-side trainer. */
  delete() {
    if (this.#native) this.#native.delete();
    this.#native = null;
  }
}

// Object keys for sweepScales: the scale as given ('none', 'sqrt', 'linear' or String(number)).
// Anything else is left to the engine, whose error names the entry and the valid range.
function scaleKeys(scales) {
  if (!Array.isArray(scales)) {
    throw new TypeError(
      `scales must be a non-empty array (at most 8 entries, no repeats) of 'none', 'sqrt', 'linear' or finite numbers > 0, got ${scales === null ? 'null' : typeof scales}`,
    );
  }
  return scales.map((s) => (typeof s === 'number' ? String(s) : s));
}

// Points of one scale (in d_k order) → { dk: Int32Array, <scalar>: Float64Array, nonFinite, firstNonFiniteStage }.
function collectSweep(points, key = 'dk') {
  const out = { [key]: Int32Array.from(points, (p) => p[key]) };
  if (points.length === 0) return out;
  for (const [name, value] of Object.entries(points[0])) {
    if (name === key) continue;
    if (typeof value === 'number') out[name] = Float64Array.from(points, (p) => p[name]);
  }
  out.nonFinite = {};
  for (const stage of Object.keys(points[0].nonFinite)) {
    out.nonFinite[stage] = Float64Array.from(points, (p) => p.nonFinite[stage]);
  }
  out.firstNonFiniteStage = points.map((p) => p.firstNonFiniteStage);
  return out;
}

/** Freezes an object and everything in it (the schema's rows and their choices). */
function deepFreeze(value) {
  if (value !== null && typeof value === 'object') Object.values(value).forEach(deepFreeze);
  return Object.freeze(value);
}

function now() {
  return globalThis.performance ? performance.now() : Date.now();
}

/**
 * Loads the engine. `{ simd: false }` forces the scalar build; `{ simd: true }` forces SIMD
 * (fails where the runtime lacks wasm SIMD). By default the runtime is feature-detected.
 */
export async function createEngine(options = {}) {
  if (!hasWebAssembly()) throw new Error(NO_WEBASSEMBLY);
  const simd = options.simd ?? (await wasmSimdSupported());
  const variant = simd ? 'simd' : 'scalar';
  // Only the glue of the build in use is fetched (bundlers split these two imports).
  const factory = (
    simd
      ? await import('../../generated/attnscale-simd.mjs')
      : await import('../../generated/attnscale-scalar.mjs')
  ).default;
  const moduleOptions = {};
  if (isNode) moduleOptions.wasmBinary = await wasmBytesForNode(variant);
  const module = await factory(moduleOptions);
  return new Engine(module, simd);
}
