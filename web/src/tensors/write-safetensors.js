// Writes F32 tensors as a .safetensors file, laid out as the safetensors README defines the format
// (and as safetensors.js reads it).

const LITTLE_ENDIAN = new Uint8Array(Uint16Array.of(1).buffer)[0] === 1;
const isObject = (x) => x !== null && typeof x === 'object' && !Array.isArray(x);
const isCount = (n) => Number.isSafeInteger(n) && n >= 0;

/**
 * `{ name: { dtype: 'F32', shape, data: Float32Array } }` (and an optional string-to-string
 * `__metadata__`) → the bytes of a .safetensors file. The tensors' data follow one another in the
 * object's key order; the header is padded with spaces so that the data start at a multiple of 8.
 * @param {Record<string, { dtype?: 'F32', shape: number[], data: Float32Array }>} tensors
 * @param {Record<string, string>} [metadata]
 * @returns {Uint8Array}
 */
export function writeSafetensors(tensors, metadata) {
  if (!isObject(tensors)) {
    throw new TypeError('writeSafetensors: tensors must be an object of { dtype, shape, data } by name');
  }
  if (
    metadata !== undefined &&
    !(isObject(metadata) && Object.values(metadata).every((v) => typeof v === 'string'))
  ) {
    throw new TypeError('writeSafetensors: metadata must be an object of strings');
  }
  // The header is written key by key: in the data's order, and a tensor may be called '__proto__'.
  const fields = metadata === undefined ? [] : [`"__metadata__":${JSON.stringify(metadata)}`];
  const entries = Object.entries(tensors);
  let size = 0;
  for (const [name, tensor] of entries) {
    check(name, tensor);
    const begin = size;
    size += tensor.data.length * 4;
    const entry = { dtype: 'F32', shape: tensor.shape, data_offsets: [begin, size] };
    fields.push(`${JSON.stringify(name)}:${JSON.stringify(entry)}`);
  }
  const json = new TextEncoder().encode(`{${fields.join(',')}}`);
  const dataStart = 8 + Math.ceil(json.length / 8) * 8;
  const out = new Uint8Array(dataStart + size).fill(0x20, 8 + json.length, dataStart);
  const view = new DataView(out.buffer);
  view.setBigUint64(0, BigInt(dataStart - 8), true);
  out.set(json, 8);
  let at = dataStart;
  for (const [, { data }] of entries) {
    if (LITTLE_ENDIAN) new Float32Array(out.buffer, at, data.length).set(data);
    else data.forEach((x, i) => view.setFloat32(at + 4 * i, x, true));
    at += data.length * 4;
  }
  return out;
}

function check(name, tensor) {
  const where = `writeSafetensors: tensor '${name}'`;
  if (name === '' || name === '__metadata__') throw new TypeError(`${where}: that name is not a tensor's`);
  const { dtype = 'F32', shape, data } = isObject(tensor) ? tensor : {};
  if (
    dtype !== 'F32' ||
    !Array.isArray(shape) ||
    !Array.from(shape).every(isCount) ||
    !(data instanceof Float32Array)
  ) {
    throw new TypeError(`${where} is not { dtype: 'F32', shape: non-negative integers, data: Float32Array }`);
  }
  const count = shape.reduce((a, b) => a * b, 1);
  if (data.length !== count) {
    throw new RangeError(
      `${where}: shape [${shape.join(', ')}] needs ${count} values, data has ${data.length}`,
    );
  }
}
