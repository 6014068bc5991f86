// Types of read-tensors.js, by hand: .npy (NEP 1, numpy.lib.format) and .safetensors (its README) files.

/** Element types a .npy file may hold: little-endian f32, f16 and f64. */
export type NpyDtype = '<f4' | '<f2' | '<f8';

/** Element types a .safetensors tensor may hold. */
export type SafetensorsDtype = 'F32' | 'F16' | 'BF16' | 'F64';

/** One tensor, its values widened to f32. */
export interface Tensor {
  /** The element type as the file names it. */
  dtype: NpyDtype | SafetensorsDtype;
  /** Dimensions, outermost first; `[]` for a 0-d scalar (one value), a 0 anywhere for an empty tensor. */
  shape: number[];
  /**
   * product(shape) values in C (row-major) order, in an ArrayBuffer of their own. f32, f16 and
   * bf16 are exact (±0, subnormals, ±inf, NaN included); f64 rounds to the nearest f32 (±inf beyond).
   */
  data: Float32Array;
}

/** Tensors by name, in the file's order (the header's key order for .safetensors). */
export type Tensors = Record<string, Tensor>;

export interface ReadOptions {
  /** What to call a .npy file's one array. Default `'array'`. Ignored for .safetensors. */
  name?: string;
}

export interface TensorFile {
  /** Which format the content was read as. */
  format: 'npy' | 'safetensors';
  tensors: Tensors;
  /** A .safetensors file's `__metadata__` (a string-to-string map), else null. */
  metadata: Record<string, string> | null;
}

/** The whole file: an ArrayBuffer, or any view into one (a Uint8Array or Node Buffer at any byteOffset). */
export type TensorFileInput = ArrayBuffer | SharedArrayBuffer | ArrayBufferView;

/**
 * Reads every tensor of a .npy or .safetensors file, told apart by content: a .npy begins with
 * `\x93NUMPY`; a .safetensors has no magic number, and is recognized by the `{` that opens its
 * JSON header after the 8-byte length.
 *
 * .npy: versions 1.0, 2.0 and 3.0; C order only; `<f4`, `<f2`, `<f8` only. `>f4` (big-endian) is
 * refused, and so are `=f4`, `|f4` and `f4`, which leave the byte order to the machine that wrote
 * the file (numpy itself always writes `<` or `>`). Bytes after the array (np.save called twice on
 * one file) are refused rather than dropped.
 *
 * .safetensors: F32, F16, BF16, F64; every tensor's data_offsets must be ordered, inside the data
 * and as long as its shape needs, and no two tensors may overlap; gaps between tensors are tolerated.
 *
 * Every size in a header is checked against the file before anything is allocated, so the output
 * is never larger than twice the file. Input that is not a file of these formats gets an `Error`
 * whose message names the problem (for example `'the file is empty (0 bytes)'`,
 * `"unsupported dtype '<i4' (supported: <f4, <f2, <f8)"`, `'shape (3, 4) needs 48 bytes, the
 * file has 40'`, `"tensor 'layers.0.q': data_offsets [0, 100] lie outside the data (64 bytes)"`).
 *
 * @throws {Error} the file is empty, truncated, of another format, or malformed.
 * @throws {TypeError} `input` is not an ArrayBuffer or a view, or `options.name` not a string.
 */
export function readTensorFile(input: TensorFileInput, options?: ReadOptions): TensorFile;

/** `readTensorFile(input, options).tensors`. */
export function readTensors(input: TensorFileInput, options?: ReadOptions): Tensors;
