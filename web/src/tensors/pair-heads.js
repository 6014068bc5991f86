// Groups a file's q, k (and optional v) tensors by layer into head-major arrays within the engine's ranges.

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
  const groups = new Map();
  for (const name of Object.keys(tensors)) {
    const match = ROLE_NAME.exec(name);
    if (!match) continue;
    const prefix = match[1] ?? '';
    if (!groups.has(prefix)) groups.set(prefix, {});
    groups.get(prefix)[match[2]] = name;
  }
  if (groups.size === 0) {
    const names = Object.keys(tensors).map((n) => `'${n}'`);
    const found = names.length > 8 ? [...names.slice(0, 8), '…'] : names;
    throw new Error(
      "no q/k tensors found: expected names like 'q' and 'k' or 'layers.0.q' and 'layers.0.k'" +
        (found.length > 0 ? ` (the file has ${found.join(', ')})` : ''),
    );
  }
  return [...groups.keys()]
    .sort(naturalCompare)
    .map((prefix) => pairLayer(prefix, groups.get(prefix), tensors));
}

function pairLayer(prefix, names, tensors) {
  const named = (role) => `'${prefix}${role}'`;
  if (!names.q || !names.k) {
    const [has, lacks] = names.q ? ['q', 'k'] : names.k ? ['k', 'q'] : ['v', 'q'];
    throw new Error(`${named(has)} has no matching ${named(lacks)}`);
  }
  const notes = [];
  const q = heads(names.q, tensors[names.q], notes);
  const k = heads(names.k, tensors[names.k], notes);
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
  const layer = { layer: prefix, heads: q.count, kvHeads: k.count, seqLen: q.seqLen, dk: q.dim, q: q.data };
  layer.k = k.data;
  if (names.v) {
    const v = heads(names.v, tensors[names.v], notes);
    if (v.count !== k.count || v.seqLen !== k.seqLen || v.dim !== k.dim) {
      const sizes = (t) => `${t.count} heads, T ${t.seqLen}, d ${t.dim}`;
      throw new Error(`${named('v')} has ${sizes(v)} but ${named('k')} has ${sizes(k)}; v must match k`);
    }
    layer.v = v.data;
  }
  layer.notes = notes;
  return layer;
}

function checkRange(what, value, [min, max]) {
  if (value < min || value > max) throw new Error(`${what} is outside the engine's range ${min}…${max}`);
}

/** Reads (T, d), (H, T, d) or (B, H, T, d) as heads × T × d, from batch element 0. */
function heads(name, tensor, notes) {
  const shape = tensor?.shape;
  if (!Array.isArray(shape) || !(tensor.data instanceof Float32Array)) {
    throw new Error(`'${name}' is not a tensor with a shape and Float32Array data`);
  }
  const shown = `(${shape.join(', ')}${shape.length === 1 ? ',' : ''})`;
  const values = shape.reduce((a, b) => a * b, 1);
  if (tensor.data.length !== values) {
    throw new Error(`'${name}' has ${tensor.data.length} values, its shape ${shown} needs ${values}`);
  }
  const rank = shape.length;
  if (rank < 2 || rank > 4) {
    throw new Error(`'${name}' has rank ${rank}, shape ${shown}; expected (T, d), (H, T, d) or (B, H, T, d)`);
  }
  if (rank === 4 && shape[0] > 1) notes.push(`'${name}' holds a batch of ${shape[0]}; using batch element 0`);
  const count = rank === 2 ? 1 : shape[rank - 3];
  const [seqLen, dim] = shape.slice(rank - 2);
  if (values === 0) throw new Error(`'${name}' is empty, shape ${shown}`);
  // Batch element 0 of a C-order (B, H, T, d) array is its first H·T·d values: a copy the caller owns.
  return { count, seqLen, dim, data: tensor.data.slice(0, count * seqLen * dim) };
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
