// Groups a file's q, k (and optional v) tensors by layer into head-major arrays within the engine's ranges.
import { formatTuple } from './npy.js';

/** The engine's sequence length T and key dimension d_k ranges (its config's seqLen and dk). */
export const SEQ_LEN_RANGE = Object.freeze([2, 2048]);
export const DK_RANGE = Object.freeze([1, 4096]);

/** `<prefix>q`, `<prefix>k`, `<prefix>v`, the prefix empty or ending in a separator ('mask' is no k). */
const ROLE_NAME = /^(.*[._/:-])?([qkv])$/;

/**
 * The key (and value) head that query head `h` attends with under grouped-query attention: each
 * consecutive group of heads / kvHeads query heads shares one key head.
 * @param {number} h @param {number} heads @param {number} kvHeads
 */
export function keyHeadFor(h, heads, kvHeads) {
  return Math.floor(h / (heads / kvHeads));
}

/**
 * @param {Record<string, { shape: number[], data: Float32Array }>} tensors what readTensors returns
 * @returns {Array<{ layer: string, heads: number, kvHeads: number, seqLen: number, dk: number,
 *   q: Float32Array, k: Float32Array, v?: Float32Array, notes: string[] }>}
 */
export function pairHeads(tensors) {
  for (const name of Object.keys(tensors)) if (ROLE_NAME.test(name)) checkData(name, tensors[name]);
  const shapes = Object.fromEntries(Object.entries(tensors).map(([name, t]) => [name, t?.shape]));
  return planLayers(shapes).map(({ names, values, ...layer }) => {
    // Batch element 0 of a C-order (B, H, T, d) array is its first H·T·d values: a copy the caller owns.
    const out = {
      ...layer,
      q: tensors[names.q].data.slice(0, values.q),
      k: tensors[names.k].data.slice(0, values.k),
    };
    if (names.v) out.v = tensors[names.v].data.slice(0, values.v);
    return out;
  });
}

/**
 * The layers of a file from its tensors' shapes alone (a reader that has not loaded the data yet):
 * what pairHeads checks, and for each layer its tensors' names and how many leading values of each
 * it uses (batch element 0).
 * @param {Record<string, number[]>} shapes
 * @returns {Array<{ layer: string, heads: number, kvHeads: number, seqLen: number, dk: number,
 *   names: { q: string, k: string, v?: string }, values: { q: number, k: number, v?: number },
 *   notes: string[] }>}
 */
export function planLayers(shapes) {
  const groups = new Map();
  for (const name of Object.keys(shapes)) {
    const match = ROLE_NAME.exec(name);
    if (!match) continue;
    const prefix = match[1] ?? '';
    if (!groups.has(prefix)) groups.set(prefix, {});
    groups.get(prefix)[match[2]] = name;
  }
  if (groups.size === 0) {
    const names = Object.keys(shapes).map((n) => `'${n}'`);
    const found = names.length > 8 ? [...names.slice(0, 8), '…'] : names;
    throw new Error(
      "no q/k tensors found: expected names like 'q' and 'k' or 'layers.0.q' and 'layers.0.k'" +
        (found.length > 0 ? ` (the file has ${found.join(', ')})` : ''),
    );
  }
  return [...groups.keys()]
    .sort(naturalCompare)
    .map((prefix) => planLayer(prefix, groups.get(prefix), shapes));
}

function planLayer(prefix, names, shapes) {
  const named = (role) => `'${prefix}${role}'`;
  if (!names.q || !names.k) {
    const [has, lacks] = names.q ? ['q', 'k'] : names.k ? ['k', 'q'] : ['v', 'q'];
    throw new Error(`${named(has)} has no matching ${named(lacks)}`);
  }
  const notes = [];
  const q = heads(names.q, shapes[names.q], notes);
  const k = heads(names.k, shapes[names.k], notes);
  if (q.seqLen !== k.seqLen) {
    throw new Error(
      `${named('q')} and ${named('k')} have different sequence lengths T (q: ${q.seqLen}, k: ${k.seqLen})`,
    );
  }
  if (q.dim !== k.dim) {
    throw new Error(
      `${named('q')} and ${named('k')} have different head dimensions d_k (q: ${q.dim}, k: ${k.dim})`,
    );
  }
  checkRange(`sequence length T = ${q.seqLen} of ${named('q')}`, q.seqLen, SEQ_LEN_RANGE);
  checkRange(`d_k = ${q.dim} of ${named('q')}`, q.dim, DK_RANGE);
  if (q.count % k.count !== 0) {
    throw new Error(
      `${named('q')} has ${q.count} heads, not a multiple of the ${k.count} key heads of ${named('k')} ` +
        '(grouped-query attention shares each key head among an equal number of query heads)',
    );
  }
  const layer = { layer: prefix, heads: q.count, kvHeads: k.count, seqLen: q.seqLen, dk: q.dim };
  layer.names = { q: names.q, k: names.k };
  layer.values = { q: q.values, k: k.values };
  if (names.v) {
    const v = heads(names.v, shapes[names.v], notes);
    if (v.count !== k.count || v.seqLen !== k.seqLen || v.dim !== k.dim) {
      const sizes = (t) => `${t.count} heads, T ${t.seqLen}, d ${t.dim}`;
      throw new Error(`${named('v')} has ${sizes(v)} but ${named('k')} has ${sizes(k)}; v must match k`);
    }
    layer.names.v = names.v;
    layer.values.v = v.values;
  }
  layer.notes = notes;
  return layer;
}

function checkRange(what, value, [min, max]) {
  if (value < min || value > max) throw new Error(`${what} is outside the engine's range ${min}…${max}`);
}

function checkData(name, tensor) {
  const shape = tensor?.shape;
  if (!Array.isArray(shape) || !(tensor.data instanceof Float32Array)) {
    throw new Error(`'${name}' is not a tensor with a shape and Float32Array data`);
  }
  const values = shape.reduce((a, b) => a * b, 1);
  if (tensor.data.length !== values) {
    throw new Error(
      `'${name}' has ${tensor.data.length} values, its shape ${formatTuple(shape)} needs ${values}`,
    );
  }
}

/** Reads (T, d), (H, T, d) or (B, H, T, d) as heads × T × d, from batch element 0. */
function heads(name, shape, notes) {
  if (!Array.isArray(shape)) throw new Error(`'${name}' is not a tensor with a shape`);
  const values = shape.reduce((a, b) => a * b, 1);
  const rank = shape.length;
  if (rank < 2 || rank > 4) {
    throw new Error(
      `'${name}' has rank ${rank}, shape ${formatTuple(shape)}; expected (T, d), (H, T, d) or (B, H, T, d)`,
    );
  }
  if (rank === 4 && shape[0] > 1) notes.push(`'${name}' holds a batch of ${shape[0]}; using batch element 0`);
  const count = rank === 2 ? 1 : shape[rank - 3];
  const [seqLen, dim] = shape.slice(rank - 2);
  if (values === 0) throw new Error(`'${name}' is empty, shape ${formatTuple(shape)}`);
  return { count, seqLen, dim, values: count * seqLen * dim };
}

/** 'layers.2.' before 'layers.10.': runs of digits compare as numbers. */
function naturalCompare(a, b) {
  const partsA = a.match(/\d+|\D+/g) ?? [];
  const partsB = b.match(/\d+|\D+/g) ?? [];
  for (let i = 0; i < Math.min(partsA.length, partsB.length); i++) {
    const [x, y] = [partsA[i], partsB[i]];
    if (x === y) continue;
    const numeric = /^\d/.test(x) && /^\d/.test(y);
    if (numeric && Number(x) !== Number(y)) return Number(x) - Number(y);
    return x < y ? -1 : 1;
  }
  return partsA.length - partsB.length;
}
