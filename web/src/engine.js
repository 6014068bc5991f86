// attnscale's public JS API: one engine, Node ≥ 20 or browser (main thread or module Worker).
//   const engine = await createEngine();           // SIMD build where wasm SIMD exists, else scalar
//   const r = engine.run({ dk: 128, scale: 'none' });
// Every bad input throws a RangeError or TypeError naming the field and its valid range; the
// engine stays usable afterwards.
import { simd as wasmSimdSupported } from 'wasm-feature-detect';
import { hasWebAssembly, NO_WEBASSEMBLY } from './support.js';

const isNode = typeof process !== 'undefined' && !!process.versions?.node && typeof window === 'undefined';

async function wasmBytesForNode(variant) {
  // Node's fetch cannot read file: URLs, so the glue gets the bytes (TOOLCHAIN.md).
  const fsModule = 'node:fs/promises';
  const { readFile } = await import(/* @vite-ignore */ fsModule);
  const fileName = 'attnscale-' + variant + '.wasm';
  return readFile(new URL('../generated/' + fileName, import.meta.url));
}

function throwIfError(result) {
  if (result && result.error) {
    const { kind, message } = result.error;
    throw kind === 'RangeError' ? new RangeError(message) : new TypeError(message);
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
    this.#schema = Object.freeze(JSON.parse(module.schemaJson()).map((f) => Object.freeze(f)));
    const info = JSON.parse(module.buildInfo());
    this.#info = Object.freeze({ simd, version: info.version, arch: info.arch });
  }

  /** { simd, version, arch }: which build runs. */
  get info() {
    return this.#info;
  }

  /** The one table of config fields: { name, type, min, max, minExclusive, values, default, label, hint }. */
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
    const start = now();
    const result = throwIfError(this.#native.run(cfg));
    result.config = JSON.parse(result.config);
    result.timeMs = now() - start;
    return result;
  }

  /**
   * Points one at a time ({ dk, ...scalar fields }) for each d_k in `dks`, so a page can draw them
   * as they arrive. Interleaving with run() is fine.
   */
  *sweepPoints(cfg, dks) {
    const begin = throwIfError(this.#native.sweepBegin(cfg ?? {}, dks));
    try {
      for (;;) {
        const point = this.#native.sweepNext(begin.id);
        if (point === null) return;
        yield point;
      }
    } finally {
      this.#native.sweepEnd(begin.id);
    }
  }

  /** { dk: Int32Array, <every scalar field>: Float64Array } over `dks`. */
  sweep(cfg, dks) {
    const points = [...this.sweepPoints(cfg, dks)];
    const out = { dk: Int32Array.from(points, (p) => p.dk) };
    if (points.length === 0) return out;
    for (const [name, value] of Object.entries(points[0])) {
      if (name === 'dk') continue;
      if (typeof value === 'number') out[name] = Float64Array.from(points, (p) => p[name]);
    }
    out.nonFinite = {};
    for (const stage of Object.keys(points[0].nonFinite)) {
      out.nonFinite[stage] = Float64Array.from(points, (p) => p.nonFinite[stage]);
    }
    out.firstNonFiniteStage = points.map((p) => p.firstNonFiniteStage);
    return out;
  }

  /**
   * O = softmax(Q Kᵀ · s) V with q, k, v Float32Arrays of seqLen·dk values (row-major), options
   * { seqLen, dk, scale, subtractMax, causal, precision, saturate } → Float32Array(seqLen·dk).
   */
  attention(q, k, v, options) {
    if (options === null || typeof options !== 'object') {
      throw new TypeError('attention options must be an object like { seqLen, dk }');
    }
    return throwIfError(this.#native.attention(q, k, v, options)).output;
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
      throw new TypeError(`precision must be one of 'fp32', 'bf16', 'fp16', 'fp8e4m3', 'fp8e5m2', got ${typeof precision}`);
    }
    return throwIfError(this.#native.round(precision, values, saturate)).values;
  }

  /** Bytes of wasm linear memory now (it grows with the largest request, and never shrinks). */
  get memoryBytes() {
    return this.#module.HEAP8.buffer.byteLength;
  }

  /** The training fields with ranges and defaults (for the training panel's controls). */
  get trainSchema() {
    return JSON.parse(this.#module.trainSchemaJson());
  }

  /**
   * A tiny attention model trained in several copies side by side, from one initialisation on the
   * same batches: by default with scale none, 1/√d_k and 1/d_k (and `scale`, a custom multiplier,
   * when given); or the copies listed in `copies`, each { name, scale: 'none' | 'sqrt' | 'linear'
   * | number, qkNorm: 'none' | 'rms' | 'layer', softcap: c (0 = off), lengthScale: s (0 = off) }.
   * cfg: { dk, seqLen, batchSize, optimizer: 'adam' | 'sgd', learningRate, initScale, precision,
   * saturate, seed, scale, copies }.
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
    if (typeof copy !== 'string') throw new TypeError(`copy must be a copy's name (a string), got ${typeof copy}`);
    return throwIfError(this.#alive().attention(copy)).values;
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
  const factory = (simd
    ? await import('../generated/attnscale-simd.mjs')
    : await import('../generated/attnscale-scalar.mjs')).default;
  const moduleOptions = {};
  if (isNode) moduleOptions.wasmBinary = await wasmBytesForNode(variant);
  const module = await factory(moduleOptions);
  return new Engine(module, simd);
}
