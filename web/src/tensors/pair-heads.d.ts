// Types of pair-heads.js, written by hand from it; the ranges are the engine's (see engine.d.ts: seqLen, dk).

/** What pairHeads reads of a tensor (readTensors' tensors fit). */
export interface TensorLike {
  shape: readonly number[];
  data: Float32Array;
}

/** One layer's queries and keys (and values), head-major: element [h][t][i] at (h·T + t)·d_k + i. */
export interface LayerHeads {
  /** The names' common prefix: `'layers.3.'` for `layers.3.q`, `''` for bare `q` and `k`. */
  layer: string;
  /** Query heads. */
  heads: number;
  /** Key (and value) heads: `heads` or a divisor of it (grouped-query attention, see keyHeadFor). */
  kvHeads: number;
  /** Sequence length T, in SEQ_LEN_RANGE. */
  seqLen: number;
  /** Head dimension d_k, in DK_RANGE. */
  dk: number;
  /** heads·T·d_k values, a copy the layer owns. */
  q: Float32Array;
  /** kvHeads·T·d_k values. */
  k: Float32Array;
  /** kvHeads·T·d_k values, when the file has `<prefix>v`. */
  v?: Float32Array;
  /** What was done that the caller should say, e.g. a batch reduced to its element 0. */
  notes: string[];
}

/** The engine's range of T: 2…2048. */
export const SEQ_LEN_RANGE: readonly [number, number];
/** The engine's range of d_k: 1…4096. */
export const DK_RANGE: readonly [number, number];

/** The key head query head `h` attends with: ⌊h / (heads / kvHeads)⌋. */
export function keyHeadFor(h: number, heads: number, kvHeads: number): number;

/**
 * Pairs `<prefix>q` with `<prefix>k` (and optional `<prefix>v`), where the prefix is empty or ends
 * in one of `. _ / : -` (so `mask` is no key); other tensors are ignored. Shapes (T, d), (H, T, d)
 * or (B, H, T, d); from a batch (B > 1) element 0 is taken, and a note says so. Layers come in
 * natural order of their prefix (`layers.2.` before `layers.10.`).
 *
 * @throws {Error} naming the problem: no q/k tensors, a q without k or k without q, a rank outside
 *   2–4, q and k with different T or d_k, query heads not a multiple of key heads, T or d_k outside
 *   the engine's range (the message gives the range), a v that does not match k.
 */
export function pairHeads(tensors: Record<string, TensorLike>): LayerHeads[];
