// Types of the trainer (engine.train, engine.trainSchema; cpp/train/), part of engine.d.ts, which
// re-exports every name declared here.
import type { FormatChoice, Precision, QkNorm, Scale, SchemaChoice } from './engine.js';

/** One row of `engine.trainSchema`. */
export type TrainSchemaField =
  | {
      name: 'dk' | 'seqLen' | 'batchSize' | 'seed' | 'scheduleSteps';
      type: 'int';
      min: number;
      max: number;
      default: number;
    }
  | { name: 'learningRate' | 'initScale'; type: 'number'; min: number; max: number; default: number }
  | { name: 'optimizer'; type: 'enum'; values: Optimizer[]; default: Optimizer }
  | {
      name: 'schedule';
      type: 'enum';
      values: NonNullable<TrainConfig['schedule']>[];
      default: NonNullable<TrainConfig['schedule']>;
    }
  | { name: 'workCap'; type: 'limit'; value: number; hint: string }
  | {
      name: 'copies';
      type: 'array';
      /** How many copies `copies` may list. */
      min: number;
      max: number;
      /** The copies trained when `copies` is not given (one per named scaling). */
      default: string[];
      /** The copies a page can offer, the defaults first. */
      choices: TrainCopyChoice[];
    };

export type Optimizer = 'adam' | 'sgd';

/** The default copies a trainer runs side by side: 'custom' only when `scale` was given. */
export type TrainCopy = 'none' | 'sqrt' | 'linear' | 'custom';

/** One chosen copy of `train({ copies })`: its name and how it forms its logits. */
export interface TrainCopySpec<Name extends string = string> {
  /** 1–24 letters, digits, '_' or '-': the key of its curves and of `attention(name)`. */
  name: Name;
  /** Default 'sqrt'. */
  scale?: Scale;
  /** Default 'none'. */
  qkNorm?: QkNorm;
  /** c > 0 turns a logit z into c·tanh(z/c); 0 (default) is off. In [0, 10⁶]. */
  softcap?: number;
  /** s > 0 multiplies the logits by s·ln T; 0 (default) is off. In [0, 100]. */
  lengthScale?: number;
}

/**
 * A copy a page can offer: one entry of `train({ copies })`, every field given, with its label
 * ('RMS-norm + 1/√d_k'); named from its scale, QK-norm, soft-cap and length factor ('rms_sqrt').
 */
export interface TrainCopyChoice extends Required<TrainCopySpec> {
  label: string;
}

/** Training settings; every field is optional. */
export interface TrainConfig {
  /** Integer 1…4096. Default 64. */
  dk?: number;
  /** Integer 8…128. Default 32. */
  seqLen?: number;
  /** Integer 1…64. Default 16. dk · seqLen · batchSize must not exceed 2²¹. */
  batchSize?: number;
  /** Default 'adam'. */
  optimizer?: Optimizer;
  /** In [1e-6, 10]. Default 1e-3. The peak rate under a schedule. */
  learningRate?: number;
  /**
   * Default 'constant' (the rate as given). 'warmup-cosine': a linear warm-up over round(N/20) steps,
   * then a cosine decay to min(1e-5, learningRate) at step N = scheduleSteps, flat after it.
   */
  schedule?: 'constant' | 'warmup-cosine';
  /** Integer 1…10⁶: the run length N that 'warmup-cosine' is scaled to. Default 1000. */
  scheduleSteps?: number;
  /** Std of the initial q and k components, in [0.01, 10]. Default 1. */
  initScale?: number;
  precision?: Precision;
  saturate?: boolean;
  /** Integer 0…2³²−1. Default 1. */
  seed?: number;
  /** A fourth, custom logit multiplier (copy 'custom'), in (0, 10⁶]; not with `copies`. */
  scale?: number;
  /** 1–8 copies to train instead of the default ones. */
  copies?: readonly TrainCopySpec[];
}

/** The training settings in use (`trainer.config`); `schedule` and `scheduleSteps` only when not 'constant'. */
export interface FullTrainConfig
  extends Required<Omit<TrainConfig, 'scale' | 'copies' | 'schedule' | 'scheduleSteps'>> {
  scale?: number;
  schedule?: 'warmup-cosine';
  scheduleSteps?: number;
  copies?: Required<TrainCopySpec>[];
}

/** Per-step metrics of one copy, one entry per step. */
export interface TrainMetrics {
  loss: Float64Array;
  accuracy: Float64Array;
  entropy: Float64Array;
  saturatedFraction: Float64Array;
  gradNormWq: Float64Array;
  gradNormWk: Float64Array;
  /** Largest |logit| the softmax gets (after scale, QK-norm, length factor, soft-cap). */
  maxLogit: Float64Array;
  /** Lowest row entropy of the batch, nats (`entropy` is their mean). */
  minRowEntropy: Float64Array;
  /** `entropyLowerBound(seqLen, σ)` at σ = the batch's largest centred row norm of those logits; ≤ minRowEntropy. */
  entropyFloor: Float64Array;
  /**
   * Bound on every |logit| before the soft-cap from the weights: |scale|·‖W_q W_kᵀ‖₂·max‖x_i‖² over
   * the batch (× s·ln T when set); with QK-norm |scale|·max‖q̂‖·max‖k̂‖. √seqLen × it bounds σ.
   */
  weightBound: Float64Array;
}

/** Metrics by copy: the default copies, or one entry per chosen copy's name. */
export type TrainCopyMetrics<Names extends string> = TrainCopy extends Names
  ? { [K in Exclude<TrainCopy, 'custom'>]: TrainMetrics } & { custom?: TrainMetrics }
  : { [K in Names]: TrainMetrics };

export interface TrainStepResult<Names extends string = TrainCopy> {
  step: Int32Array;
  copies: TrainCopyMetrics<Names>;
}

/** `trainer.qk(copy)`: the queries and keys of the fixed example that `attention(copy)` comes from. */
export interface TrainQk {
  /** seqLen × dk, row-major (row = position): after QK-norm and its gains, rounded to the precision. */
  q: Float32Array;
  /** seqLen × dk, as q. */
  k: Float32Array;
  seqLen: number;
  dk: number;
  /** Always 1: the model has one attention head. */
  heads: number;
  /** The multiplier of q·kᵀ (float32), before the copy's length factor and soft-cap. */
  scale: number;
}

export class Trainer<Names extends string = TrainCopy> {
  private constructor();
  readonly config: FullTrainConfig;
  /** Runs n steps (integer 1…10000, default 1) of every copy. */
  step(n?: number): TrainStepResult<Names>;
  /** The seqLen × seqLen weights of one fixed example under the copy's current weights. */
  attention(copy: Names): Float32Array;
  /** The queries and keys of that example: softmax(q·kᵀ·scale) by rows is `attention(copy)`. */
  qk(copy: Names): TrainQk;
  /** Steps run since the last reset. */
  readonly steps: number;
  /** Back to the initial weights and step 0. */
  reset(): void;
  /** Frees the wasm-side trainer. */
  delete(): void;
}
