// Reads .npy (NEP 1, numpy.lib.format) and .safetensors (its README) files, known by content, into f32.
import { hasNpyMagic, isNpyMagicPrefix, readNpy } from './npy.js';
import { looksLikeSafetensors, readSafetensors } from './safetensors.js';

/**
 * Reads a file's tensors, with the format it was read as and, for .safetensors, its `__metadata__`.
 * @param {ArrayBuffer | SharedArrayBuffer | ArrayBufferView} input the whole file
 * @param {{ name?: string }} [options] `name`: what to call a .npy file's one array (default 'array')
 * @returns {{ format: 'npy' | 'safetensors',
 *   tensors: Record<string, { dtype: string, shape: number[], data: Float32Array }>,
 *   metadata: Record<string, string> | null }}
 */
export function readTensorFile(input, options = {}) {
  const bytes = toBytes(input);
  const name = options?.name ?? 'array';
  if (typeof name !== 'string') throw new TypeError('readTensors: options.name must be a string');
  if (bytes.length === 0) throw new Error('the file is empty (0 bytes)');
  if (hasNpyMagic(bytes)) {
    const tensors = {};
    Object.defineProperty(tensors, name, {
      value: readNpy(bytes),
      enumerable: true,
      writable: true,
      configurable: true,
    });
    return { format: 'npy', tensors, metadata: null };
  }
  if (isNpyMagicPrefix(bytes)) {
    throw new Error(`the .npy file is truncated (${bytes.length} bytes, too short for its magic number)`);
  }
  if (looksLikeSafetensors(bytes)) return { format: 'safetensors', ...readSafetensors(bytes) };
  throw new Error('not a .npy or .safetensors file (bad magic number)');
}

/**
 * Reads a file's tensors: `{ [name]: { dtype, shape, data } }`.
 * @param {ArrayBuffer | SharedArrayBuffer | ArrayBufferView} input
 * @param {{ name?: string }} [options]
 */
export function readTensors(input, options) {
  return readTensorFile(input, options).tensors;
}

function toBytes(input) {
  if (ArrayBuffer.isView(input)) return new Uint8Array(input.buffer, input.byteOffset, input.byteLength);
  const tag = Object.prototype.toString.call(input);
  if (tag === '[object ArrayBuffer]' || tag === '[object SharedArrayBuffer]') return new Uint8Array(input);
  throw new TypeError('readTensors: the input must be an ArrayBuffer or a Uint8Array');
}
