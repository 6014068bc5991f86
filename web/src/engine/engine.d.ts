// Types of attnscale's public JS API (web/src/engine/engine.js), written by hand from the C++ sources they
// mirror: cpp/config/config.* (fields, ranges, defaults), cpp/engine/run_result.* (what `run`
// measures), cpp/bindings.cpp (shapes crossing the wasm boundary) and cpp/train/ (the trainer).
// tests/consumer/package.test.js type-checks a consumer under --strict (and the engine's real outputs
// against these types), and checks that wrong calls fail.

import type {
  FullTrainConfig,
  TrainConfig,
  TrainCopy,
  TrainCopySpec,
  TrainSchemaField,
  Trainer,
} from './engine-train.js';
import type { ScaleKey, SweepEstimateJob, SweepJob, SweepScalesPoint } from './sweep-jobs.js';
export * from './engine-train.js';
export * from './sweep-jobs.js';

/** Number formats the forward pass can be rounded to. */
export type Precision = 'fp32' | 'bf16' | 'fp16' | 'fp8e4m3' | 'fp8e5m2';

/**
 * Multiplier on QKᵀ: `'none'` (×1), `'sqrt'` (×1/√d_k), `'linear'` (×1/d_k) or a finite number
 * in (0, 10⁶].
 */
export type Scale = 'none' | 'sqrt' | 'linear' | number;

/** `'naive'`: the whole row at once; `'online'`: keys in blocks with a running max (FlashAttention). */
export type SoftmaxMode = 'naive' | 'online';

/**
 * QK-norm: each q and k row normalized over its d_k components before q·k (in the engine no gain,
 * no bias; a trainer copy adds a learnable gain, init 1).
 */
export type QkNorm = 'none' | 'rms' | 'layer';

/** The stages whose inf/NaN values `run` counts, in pipeline order. */
export type Stage = 'logits' | 'exp' | 'weights' | 'output';

/** Every config field, with defaults filled in (what `validate` returns and `run` reports). */
export interface FullConfig {
  /** Dimension of each query and key vector: integer 1…4096. Default 64. */
  dk: number;
  /** Sequence length T: integer 2…2048. Default 256. */
  seqLen: number;
  /** Default `'fp32'`. */
  precision: Precision;
  /** fp8 only: overflow clamps to ±max finite instead of NaN/inf. Default false. */
  saturate: boolean;
  /** Default `'sqrt'`. */
  scale: Scale;
  /** Subtract each row's largest logit before exp(). Default true. */
  subtractMax: boolean;
  /** Default `'naive'`. */
  softmax: SoftmaxMode;
  /** Keys per block of the online softmax: integer 1…seqLen. Default 64 (or seqLen if smaller). */
  blockSize: number;
  /** Each query sees only itself and earlier keys. Default false. */
  causal: boolean;
  /** Mean of every q and k component, in [−10⁶, 10⁶]. Default 0. */
  mean: number;
  /** Standard deviation of every q and k component, in (0, 10⁶]. Default 1. */
  std: number;
  /** Correlation between q_i and k_i of the same token, in [−1, 1]. Default 0. */
  correlation: number;
  /** Seed of the sampled Q, K, V and upstream gradient: integer 0…2³²−1. Default 1. */
  seed: number;
  /** rms: x/√(mean x² + 1e-6); layer: (x − mean)/√(var + 1e-6), in fp32, then rounded. Default `'none'`. */
  qkNorm: QkNorm;
  /** s in [0, 4]: row i's logits × s·ln(keys it sees) (Scalable-Softmax). Default 0 (off). */
  lengthScale: number;
  /** c in [0, 1000]: each logit z → c·tanh(z/c). Default 0 (off). */
  softcap: number;
}

/** A config as passed in: any subset of the fields (the rest take their defaults). */
export type Config = Partial<FullConfig>;

/** Counts of inf/NaN values at each stage. */
export interface NonFiniteCounts {
  logits: number;
  exp: number;
  weights: number;
  output: number;
}

/** A histogram over the data's own range: 64 bins. */
export interface Histogram {
  /** 65 bin edges. */
  edges: Float64Array;
  /** 64 counts. */
  counts: Uint32Array;
}

/** The scalar measurements of one run (also one point of a sweep). */
export interface RunScalars {
  /** Mean of QKᵀ before scaling, over the visible (query, key) pairs. */
  rawLogitMean: number;
  /** σ of QKᵀ before scaling. */
  rawLogitStd: number;
  /** The σ the sampling model predicts (√d_k for i.i.d. N(0, 1)). */
  rawLogitStdTheory: number;
  /** σ of q̂·k̂ before the scale (equals rawLogitStd when qkNorm is 'none'). */
  normLogitStd: number;
  /** The multiplier used. */
  scaleFactor: number;
  logitMean: number;
  logitStd: number;
  logitMin: number;
  logitMax: number;
  /** Mean softmax entropy over rows (nats). */
  entropy: number;
  /** Mean ln(keys visible to the row). */
  entropyMax: number;
  /** Mean largest weight. */
  maxWeight: number;
  /** Share of rows whose largest weight is > 0.99. */
  saturatedFraction: number;
  /** ‖diag(p) − ppᵀ‖_F over rows: mean. */
  jacobianNormMean: number;
  /** ‖diag(p) − ppᵀ‖_F over rows: median. */
  jacobianNormMedian: number;
  /** RMS over entries of ∂L/∂Q for L = Σ O ⊙ G. */
  gradNormQ: number;
  /** RMS over entries of ∂L/∂K. */
  gradNormK: number;
  /** Rows left out of the row statistics because a weight is inf/NaN. */
  nonFiniteRows: number;
  /** max |O_online − O_naive| when softmax is 'online' (NaN otherwise). */
  onlineMaxAbsDiff: number;
  /** The format's largest finite value. */
  largestFinite: number;
  nonFinite: NonFiniteCounts;
  /** Where the chain first produced inf/NaN, or null. */
  firstNonFiniteStage: Stage | null;
}

/** What `run` returns. */
export interface RunResult extends RunScalars {
  /** Histogram of the scaled logits. */
  histogram: Histogram;
  /** Histogram of the raw logits QKᵀ. */
  rawHistogram: Histogram;
  /** seqLen² attention weights, row-major (NaN/inf cells kept). */
  attention: Float32Array;
  /** Per query row, seqLen values. */
  rowEntropy: Float32Array;
  rowMaxWeight: Float32Array;
  rowJacobianNorm: Float32Array;
  /** The full config used. */
  config: FullConfig;
  /** Wall time of the call, ms. */
  timeMs: number;
}

/** One point of a sweep, as `sweepPoints` yields it. */
export interface SweepPoint extends RunScalars {
  dk: number;
}

/** Scalar field names of a run (the numeric columns of a sweep). */
export type ScalarName = {
  [K in keyof RunScalars]: RunScalars[K] extends number ? K : never;
}[keyof RunScalars];

/** What `sweep` returns: one column per scalar field, one entry per d_k. */
export type SweepResult = { dk: Int32Array } & { [K in ScalarName]: Float64Array } & {
  nonFinite: { [K in keyof NonFiniteCounts]: Float64Array };
  firstNonFiniteStage: (Stage | null)[];
};

/** One point of a sweep over T, as `sweepSeqLenPoints` yields it. */
export interface SeqLenPoint extends RunScalars {
  seqLen: number;
}

/** What `sweepSeqLen` returns: one column per scalar field, one entry per T. */
export type SeqLenSweepResult = { seqLen: Int32Array } & { [K in ScalarName]: Float64Array } & {
  nonFinite: { [K in keyof NonFiniteCounts]: Float64Array };
  firstNonFiniteStage: (Stage | null)[];
};

/** Options of `attention`: seqLen and dk are required. */
export interface AttentionOptions {
  seqLen: number;
  dk: number;
  scale?: Scale;
  subtractMax?: boolean;
  causal?: boolean;
  precision?: Precision;
  saturate?: boolean;
  qkNorm?: QkNorm;
  lengthScale?: number;
  softcap?: number;
}

/** Options of `analyze`: seqLen and dk are required; the logit fields are `run`'s. */
export interface AnalyzeOptions extends AttentionOptions {
  /** Query heads, 1–256 (default 1). */
  heads?: number;
  /** Key and value heads, a divisor of `heads` (default `heads`): grouped-query attention. */
  kvHeads?: number;
  /** kvHeads·seqLen·dk values: also check O = PV for inf/NaN (and the online softmax against it). */
  v?: Float32Array | null;
  softmax?: SoftmaxMode;
  blockSize?: number;
  /** Also each head's per-row arrays and its seqLen² weights. */
  detail?: boolean;
}

/** What `analyze` measures of one query head: `run`'s fields, less the sampling's and the backward's. */
export interface HeadReport
  extends Omit<RunScalars, 'rawLogitStdTheory' | 'gradNormQ' | 'gradNormK' | 'onlineMaxAbsDiff' | 'nonFinite'> {
  /** The query head, 0-based. */
  head: number;
  /** The key head it reads: ⌊head / (heads / kvHeads)⌋. */
  kvHead: number;
  /** Mean and population σ of the head's finite query components, as given. */
  qMean: number;
  qStd: number;
  /** The same of its key head. */
  kMean: number;
  kStd: number;
  /** inf/NaN components of its q and k (left out of the four moments above). */
  nonFiniteInputs: number;
  /** σ of q·k that independent components with these moments would give: √(d_k((σ_q²+μ_q²)(σ_k²+μ_k²) − μ_q²μ_k²)). */
  iidRawLogitStd: number;
  /** Mean over the query rows of the weight on key 0 (every row sees it): near 1 for an attention sink. */
  sinkWeight: number;
  /** `output` is null when no `v` was given (O = PV was not formed). */
  nonFinite: Omit<NonFiniteCounts, 'output'> & { output: number | null };
  /** With `v` and softmax 'online': max |O_online − O_naive|. */
  onlineMaxAbsDiff?: number;
  histogram: Histogram;
  rawHistogram: Histogram;
  /** With `detail`: seqLen values each. */
  rowEntropy?: Float32Array;
  rowMaxWeight?: Float32Array;
  rowJacobianNorm?: Float32Array;
  /** With `detail`: seqLen² weights, row-major. */
  attention?: Float32Array;
}

/** One allowed value of an enum or scale field of `engine.schema`, with what a page shows of it. */
export interface SchemaChoice {
  value: string;
  /** What a control shows, e.g. '1/√d_k', 'fp8 E4M3', 'RMS norm'. */
  label: string;
}

/** A named scaling: a choice of the `scale` field. Its multiplier on QKᵀ is d_k^exponent. */
export interface ScalingChoice extends SchemaChoice {
  value: Exclude<Scale, number>;
  /** The multiplier in plain text: '1', '1/√d_k', '1/d_k'. */
  formula: string;
  /** The same in TeX: 1, 1/\sqrt{d_k}, 1/d_k. */
  tex: string;
  /** The multiplier is d_k^exponent: 0, −0.5, −1 (`run` reports its float32 value as `scaleFactor`). */
  exponent: number;
}

/** A number format: a choice of the `precision` field. */
export interface FormatChoice extends SchemaChoice {
  value: Precision;
  exponentBits: number;
  /** Stored fraction bits (the leading 1 not counted). */
  mantissaBits: number;
  /** The largest finite value, e.g. 65504 for fp16; exp(z) overflows above ln of it. */
  largestFinite: number;
  /** false for fp8 E4M3: an overflow there is NaN, not inf. */
  hasInfinity: boolean;
  /** `saturate` applies: an overflow may clamp to ± largestFinite instead. */
  canSaturate: boolean;
}

/** One row of `engine.schema`. */
export interface SchemaField {
  name: keyof FullConfig;
  type: 'int' | 'number' | 'bool' | 'enum' | 'scale';
  /** int, number and scale fields. */
  min?: number;
  max?: number;
  minExclusive?: boolean;
  /** blockSize: its upper bound is this field's value. */
  maxField?: 'seqLen';
  /** enum and scale fields: the names allowed. */
  values?: string[];
  /** enum and scale fields: `values` in the same order, each with what a page shows of it. */
  choices?: (ScalingChoice | FormatChoice | SchemaChoice)[];
  default: number | boolean | string;
  label: string;
  hint: string;
}

export interface EngineInfo {
  /** True when the wasm SIMD build runs. */
  simd: boolean;
  /** The engine's version, e.g. '0.1.0'. */
  version: string;
  /** The vector instruction set the build targets: 'sse4.1' (lowered to SIMD128) or 'scalar'. */
  arch: string;
}

export class Engine {
  private constructor();
  /** Which build runs. */
  readonly info: Readonly<EngineInfo>;
  /** The one table of config fields. */
  readonly schema: readonly Readonly<SchemaField>[];
  /** Every config field at its default. */
  defaults(): FullConfig;
  /** The full config that `cfg` stands for (defaults filled in); throws RangeError/TypeError on bad input. */
  validate(cfg?: Config): FullConfig;
  /** One measurement: sampled Q, K, V, forward, backward and statistics. */
  run(cfg?: Config): RunResult;
  /**
   * run in two calls: run's result with gradNormQ and gradNormK NaN and backwardPending true (up to
   * seqLen·dk = 2^21; beyond it run's whole result and false). Any other call ends a pending backward.
   */
  runForward(cfg?: Config): RunResult & { backwardPending: boolean };
  /** The pending backward for about budgetMs (default Infinity): null while work remains, then run's scalars. */
  runBackward(budgetMs?: number): RunScalars | null;
  /** run's scalar fields without the backward: gradNormQ and gradNormK are NaN, the rest the same. */
  forwardStats(cfg?: Config): RunScalars;
  /** Points one at a time for each d_k in `dks` (1…64 integers in [1, 4096]). */
  sweepPoints(cfg: Config | null | undefined, dks: ArrayLike<number>): Generator<SweepPoint, void, undefined>;
  /** Every scalar field over `dks`, as columns. */
  sweep(cfg: Config | null | undefined, dks: ArrayLike<number>): SweepResult;

  /**
   * One sweep for several scalings (1–8 distinct): sampled and accumulated once; each scale's
   * result equals `sweep({ ...cfg, scale }, dks)` bit for bit. Keyed by the scale as given
   * ('none', 'sqrt', 'linear' or String(number)). A `scale` inside `cfg` is ignored.
   */
  sweepScales<const S extends readonly Scale[]>(
    cfg: Config | null | undefined,
    dks: ArrayLike<number>,
    scales: S,
  ): { [K in ScaleKey<S[number]>]: SweepResult };
  /** The same a point at a time: one `{ dk, points }` per d_k, in the order given. */
  sweepScalesPoints<const S extends readonly Scale[]>(
    cfg: Config | null | undefined,
    dks: ArrayLike<number>,
    scales: S,
  ): Generator<SweepScalesPoint<ScaleKey<S[number]>>, void, undefined>;
  /** The same as a resumable job (a Worker advances it in time slices and can drop it). */
  sweepScalesJob<const S extends readonly Scale[]>(
    cfg: Config | null | undefined,
    dks: ArrayLike<number>,
    scales: S,
  ): SweepJob<ScaleKey<S[number]>>;
  /**
   * The same sweep estimated first, from `rows` sampled query rows (an integer in [2, seqLen],
   * default min(128, seqLen)) against all keys: each point's fields with standard errors, at
   * about rows/seqLen of the exact work. Same arguments and errors as `sweepScalesJob`.
   * `gradients: false` leaves the backward out (about half the work): `gradNormQ` is then NaN,
   * every other field the same.
   */
  sweepEstimateJob<const S extends readonly Scale[]>(
    cfg: Config | null | undefined,
    dks: ArrayLike<number>,
    scales: S,
    options?: { rows?: number; gradients?: boolean },
  ): SweepEstimateJob<ScaleKey<S[number]>>;
  /** Milliseconds per phase of the last sweep that ended (sampling, products, logits, …). */
  readonly lastSweepPhaseMs: Record<string, number>;
  /**
   * Statistics against the sequence length at cfg's d_k, one point per T in `seqLens` (1…64
   * integers in [2, 2048]); each equals `run({ ...cfg, seqLen: T })`'s scalars (a blockSize above
   * T is lowered to T).
   */
  sweepSeqLenPoints(cfg: Config | null | undefined, seqLens: ArrayLike<number>): Generator<SeqLenPoint, void, undefined>;
  /** Every scalar field over `seqLens`, as columns. */
  sweepSeqLen(cfg: Config | null | undefined, seqLens: ArrayLike<number>): SeqLenSweepResult;

  /** O = softmax(Q Kᵀ · s) V for row-major Float32Arrays of seqLen·dk values. */
  attention(q: Float32Array, k: Float32Array, v: Float32Array, options: AttentionOptions): Float32Array;
  /**
   * `run`'s measurements on a model's own heads: q of heads·seqLen·dk values, k of
   * kvHeads·seqLen·dk, head-major ((head, token, component) order).
   * @throws {TypeError | RangeError} naming the field: a length that does not match, heads not a
   *   multiple of kvHeads, a logit field out of range. NaN in the data is counted, not thrown.
   */
  analyze(q: Float32Array, k: Float32Array, options: AnalyzeOptions): { heads: HeadReport[] };
  /** float32 → format → float32, round-to-nearest-even. */
  round(precision: Precision, values: Float32Array, options?: { saturate?: boolean }): Float32Array;
  /**
   * The lowest softmax entropy (nats) of seqLen logits whose centred norm ‖z − mean z‖₂ is at most
   * sigma: ln(1 + (T−1)β) + σ√(T(T−1))·β/(1 + (T−1)β), β = exp(−σ√(T/(T−1))); ln T at σ = 0.
   * @throws {TypeError | RangeError} seqLen not an integer ≥ 1, sigma not a finite number ≥ 0.
   */
  entropyLowerBound(seqLen: number, sigma: number): number;
  /** Bytes of wasm linear memory now. */
  readonly memoryBytes: number;
  /** The training fields with ranges and defaults. */
  readonly trainSchema: TrainSchemaField[];
  /** Trains a tiny attention model in the chosen copies side by side (names checked by type). */
  train<const C extends readonly TrainCopySpec[]>(
    cfg: Omit<TrainConfig, 'copies' | 'scale'> & { copies: C },
  ): Trainer<C[number]['name']>;
  /** Trains a tiny attention model with each scaling side by side. */
  train(cfg?: Omit<TrainConfig, 'copies'>): Trainer;
  /** Frees the wasm-side engine. */
  delete(): void;
}

export interface CreateEngineOptions {
  /** true forces the SIMD build, false the scalar one; by default the runtime is feature-detected. */
  simd?: boolean;
}

/** Loads the engine (the SIMD build where wasm SIMD exists, else the scalar one). */
export function createEngine(options?: CreateEngineOptions): Promise<Engine>;
