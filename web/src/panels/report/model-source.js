// A model's tensor files for the report, opened without reading their data: each file's header is
// read (Blob.slice), the layers are planned from the shapes alone, and a layer's q and k (batch
// element 0) are read only when it is asked for, so a file of a gigabyte is never held whole.
import { decodeElements, elementSize } from '../../tensors/float-formats.js';
import { hasNpyMagic, isNpyMagicPrefix, readNpyHeader, NPY_HEADER_BYTES } from '../../tensors/npy.js';
import { planLayers } from '../../tensors/pair-heads.js';
import {
  looksLikeSafetensors,
  readSafetensorsIndex,
  safetensorsIndexLength,
} from '../../tensors/safetensors.js';

/** A layer's q and k (and v) together, in bytes of float32, that one Worker is given at a time. */
const LAYER_BYTES_LIMIT = 256 * 1024 * 1024;

const bytesOf = async (blob, begin, end) => new Uint8Array(await blob.slice(begin, end).arrayBuffer());
const stem = (name) => name.replace(/^.*[\\/]/, '').replace(/\.npy$/i, '');

/** One file's tensors: name → { shape, blob, start, kind }; and the format it was read as. */
async function indexFile(blob, fileName) {
  const size = blob.size;
  if (size === 0) throw new Error('the file is empty (0 bytes)');
  const prefix = await bytesOf(blob, 0, Math.min(size, NPY_HEADER_BYTES));
  if (hasNpyMagic(prefix)) {
    const header = readNpyHeader(prefix, size);
    const at = { shape: header.shape, blob, start: header.dataStart, kind: header.kind };
    return { format: 'npy', tensors: { [stem(fileName)]: at }, metadata: null };
  }
  if (isNpyMagicPrefix(prefix)) {
    throw new Error(`the .npy file is truncated (${size} bytes, too short for its magic number)`);
  }
  if (!looksLikeSafetensors(prefix)) throw new Error('not a .npy or .safetensors file (bad magic number)');
  const need = safetensorsIndexLength(prefix, size);
  const head = need <= prefix.length ? prefix : await bytesOf(blob, 0, need);
  const { dataStart, entries, metadata } = readSafetensorsIndex(head, size);
  const tensors = {};
  for (const e of entries)
    Object.defineProperty(tensors, e.name, {
      value: { shape: e.shape, blob, start: dataStart + e.begin, kind: e.kind },
      enumerable: true,
    });
  return { format: 'safetensors', tensors, metadata };
}

/**
 * openModel([{ blob, name }]) → { name, format, bytes, metadata, layers, notes, read(i) }: one
 * .safetensors file or several .npy files (each named by its file name without `.npy`, e.g.
 * `layers.0.q.npy`). `layers[i]`: { layer, heads, kvHeads, seqLen, dk, notes }; `read(i)` →
 * Promise<{ q, k }> of that layer, head-major Float32Arrays; `read(i, { q: h, k: kvHead })` reads
 * only that query head and key head. Errors name the file and its problem.
 */
export async function openModel(files) {
  if (!files.length) throw new Error('no file was chosen');
  const tensors = {};
  const owner = {};
  const formats = new Set();
  let metadata = null;
  for (const { blob, name } of files) {
    let index;
    try {
      index = await indexFile(blob, name);
    } catch (err) {
      throw new Error(`${name}: ${err.message}`);
    }
    formats.add(index.format);
    metadata ??= index.metadata;
    for (const [tensor, at] of Object.entries(index.tensors)) {
      if (Object.hasOwn(owner, tensor))
        throw new Error(
          `tensor '${tensor}' is in both ${owner[tensor]} and ${name}; give each file other names`,
        );
      Object.defineProperty(owner, tensor, { value: name, enumerable: true });
      Object.defineProperty(tensors, tensor, { value: at, enumerable: true });
    }
  }
  const shapes = Object.fromEntries(Object.entries(tensors).map(([n, t]) => [n, t.shape]));
  const plans = planLayers(shapes);
  for (const p of plans) {
    const bytes = (p.values.q + p.values.k + (p.values.v ?? 0)) * 4;
    if (bytes > LAYER_BYTES_LIMIT)
      throw new Error(
        `layer '${p.layer || '(unnamed)'}' holds ${(bytes / 2 ** 20).toFixed(0)} MB of float32 q and k, ` +
          `over the ${LAYER_BYTES_LIMIT / 2 ** 20} MB one Worker is given (save fewer heads or tokens per layer)`,
      );
  }
  const read = async (i, head = null) => {
    const { names, values, seqLen, dk } = plans[i];
    const load = async (role) => {
      const { blob, kind } = tensors[names[role]];
      const size = elementSize(kind);
      const n = head ? seqLen * dk : values[role];
      const start = tensors[names[role]].start + (head ? head[role] * n * size : 0);
      return decodeElements(await bytesOf(blob, start, start + n * size), n, kind);
    };
    const [q, k] = await Promise.all([load('q'), load('k')]);
    return { q, k };
  };
  return {
    name: files.map((f) => f.name).join(', '),
    format: [...formats].join(' + '),
    bytes: files.reduce((a, f) => a + f.blob.size, 0),
    metadata,
    // What the page needs of each layer: its plan without the tensor names and value counts.
    layers: plans.map(({ names: _names, values: _values, ...layer }) => layer),
    notes: [...new Set(plans.flatMap((p) => p.notes))],
    read,
  };
}
