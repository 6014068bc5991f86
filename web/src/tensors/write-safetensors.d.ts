// Types of write-safetensors.js, by hand: a .safetensors writer for F32 tensors (the format's README).

/** One tensor to write: C (row-major) order values, product(shape) of them. */
export interface WriteTensor {
  /** The only element type written. Default `'F32'`. */
  dtype?: 'F32';
  /** Dimensions, outermost first; `[]` for a scalar, a 0 anywhere for an empty tensor. */
  shape: number[];
  data: Float32Array;
}

/**
 * The bytes of a .safetensors file holding `tensors` (their data in the object's key order, the
 * values' bits as they are) and, when given, `metadata` as its `__metadata__`. The header is padded
 * with spaces to a multiple of 8 bytes. `readTensorFile` reads it back.
 *
 * @throws {TypeError} a tensor that is not `{ dtype: 'F32', shape, data: Float32Array }`, a tensor
 *   named `'__metadata__'` or `''`, or metadata that is not an object of strings.
 * @throws {RangeError} data whose length is not the product of the shape.
 */
export function writeSafetensors(
  tensors: Record<string, WriteTensor>,
  metadata?: Record<string, string>,
): Uint8Array;
