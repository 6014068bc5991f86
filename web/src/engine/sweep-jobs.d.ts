// Types of the resumable sweeps (engine.sweepScalesJob, engine.sweepEstimateJob; sweep-jobs.js),
// part of engine.d.ts, which re-exports every name declared here.
import type { NonFiniteCounts, Scale, SweepPoint } from './engine.js';

/** The key of a scale in sweepScales' results: the name, or the number as a string. */
export type ScaleKey<S extends Scale> = S extends number ? `${S}` : S;

/** One d_k of a multi-scale sweep: each scale's point. */
export interface SweepScalesPoint<Key extends string = string> {
  dk: number;
  points: { [K in Key]: SweepPoint };
}

/** A sweep in progress (engine.sweepScalesJob). */
export class SweepJob<Key extends string = string> {
  private constructor();
  /**
   * Works until a point completes ({ done: false, value }), about `budgetMs` passed (value null,
   * the work is kept) or the sweep is over ({ done: true, value: null }).
   */
  advance(budgetMs?: number): { done: boolean; value: SweepScalesPoint<Key> | null };
  /** Frees the job (call it when dropping a job early). */
  delete(): void;
}

/**
 * The fields a sweep estimate gives with a standard error (`<name>Se`): run's, from the sampled
 * rows; the SE is 0 where the value is exact (entropyMax, scaleFactor, rawLogitStdTheory,
 * largestFinite).
 */
export type EstimatedName =
  | 'rawLogitMean'
  | 'rawLogitStd'
  | 'rawLogitStdTheory'
  | 'normLogitStd'
  | 'scaleFactor'
  | 'logitMean'
  | 'logitStd'
  | 'entropy'
  | 'entropyMax'
  | 'maxWeight'
  | 'saturatedFraction'
  | 'jacobianNormMean'
  | 'nonFiniteRows'
  | 'largestFinite';

/** The fields of run that a sweep estimate leaves to the exact sweep (each estimate's `exactOnly`). */
export type ExactOnlyName =
  | 'gradNormQ'
  | 'gradNormK'
  | 'jacobianNormMedian'
  | 'logitMin'
  | 'logitMax'
  | 'onlineMaxAbsDiff'
  | 'nonFinite.output'
  | 'firstNonFiniteStage';

/** One scale's estimate at one d_k: each estimated field, its standard error, and the sample's own values. */
export type SweepEstimate = { dk: number; rows: number } & { [K in EstimatedName]: number } & {
  [K in EstimatedName as `${K}Se`]: number;
} & {
  /** The median of ‖diag(p) − ppᵀ‖_F over the sampled rows: no standard error. */
  jacobianNormMedian: number;
  /** RMS of ∂L/∂Q over the sampled rows: a preview with no standard error (a few rows can carry it). */
  gradNormQ: number;
  /** The sample's inf/NaN counts times seqLen/rows: unbiased, no standard error. */
  nonFinite: Omit<NonFiniteCounts, 'output'>;
  exactOnly: ExactOnlyName[];
};

/** One d_k of a sweep estimate: each scale's estimate. */
export interface SweepEstimatesPoint<Key extends string = string> {
  dk: number;
  points: { [K in Key]: SweepEstimate };
}

/** A sweep estimate in progress (engine.sweepEstimateJob). */
export class SweepEstimateJob<Key extends string = string> {
  private constructor();
  /** The sampled query rows, ascending. */
  readonly rows: Int32Array;
  /** As SweepJob's: a point's estimates, null when about `budgetMs` passed first, or done. */
  advance(budgetMs?: number): { done: boolean; value: SweepEstimatesPoint<Key> | null };
  /** Frees the job (call it when dropping a job early). */
  delete(): void;
}
