// Writes F32 tensors as a .safetensors file, laid out as the safetensors README defines the format
// (and as safetensors.js reads it).

const LENGTH_SIZE = 8;
const F32_SIZE = 4;
const LITTLE_ENDIAN = new Uint8Array(Uint16Array.of(1).buffer)[0] === 1;

/**
 * `{ name: { dtype: 'F32', shape, data: Float32Array } }` (and an optional string-to-string
 * `__metadata__`) → the bytes of a .safetensors file. The tensors' data follow one another in the
 * object's key order; the header is padded with spaces so that the data start at a multiple of 8.
 * @param {Record<string, { dtype?: 'F32', shape: number[], data: Float32Array }>} tensors
 * @param {Record<string, string>} [metadata]
 * @returns {Uint8Array}
 */
export function writeSafetensors(tensors, metadata) {
  if (tensors === null || typeof tensors !== 'object' || Array.isArray(tensors)) {
    throw new TypeError('writeSafetensors: tensors must be an object of { dtype, shape, data } by name');
  }
  const entries = [];
  let offset = 0;
  for (const [name, tensor] of Object.entries(tensors)) {
    const { shape, data } = checkTensor(name, tensor);
    entries.push({ name, shape, data, begin: offset });
    offset += data.length * F32_SIZE;
  }
  // Written by hand, key by key: the order is the data's, and a tensor may be called '__proto__'.
  const fields = entries.map(
    ({ name, shape, data, begin }) =>
      `${JSON.stringify(name)}:${JSON.stringify({ dtype: 'F32', shape, data_offsets: [begin, begin + data.length * F32_SIZE] })}`,
  );
  if (metadata !== undefined) fields.unshift(`"__metadata__":${JSON.stringify(checkMetadata(metadata))}`);
  const json = new TextEncoder().encode(`{${fields.join(',')}}`);
  const headerLength = Math.ceil(json.length / 8) * 8;
  const dataStart = LENGTH_SIZE + headerLength;
  const out = new Uint8Array(dataStart + offset);
  const view = new DataView(out.buffer);
  view.setBigUint64(0, BigInt(headerLength), true);
  out.set(json, LENGTH_SIZE);
  out.fill(0x20, LENGTH_SIZE + json.length, dataStart);
  for (const { data, begin } of entries) {
    const at = dataStart + begin;
    if (LITTLE_ENDIAN) new Float32Array(out.buffer, at, data.length).set(data);
    else for (let i = 0; i < data.length; i++) view.setFloat32(at + i * F32_SIZE, data[i], true);
  }
  return out;
}

const isCount = (n) => Number.isSafeInteger(n) && n >= 0;

function checkTensor(name, tensor) {
  const where = `writeSafetensors: tensor '${name}'`;
  if (name === '__metadata__') throw new TypeError(`${where}: the name is the header's metadata key`);
  if (name === '') throw new TypeError('writeSafetensors: a tensor name must not be empty');
  if (tensor === null || typeof tensor !== 'object') {
    throw new TypeError(`${where} must be an object { dtype: 'F32', shape, data }`);
  }
  const { dtype = 'F32', shape, data } = tensor;
  if (dtype !== 'F32') throw new TypeError(`${where}: dtype must be 'F32', got ${JSON.stringify(dtype)}`);
  if (!Array.isArray(shape) || !shape.every(isCount)) {
    throw new TypeError(`${where}: shape must be an array of non-negative integers`);
  }
  if (!(data instanceof Float32Array)) throw new TypeError(`${where}: data must be a Float32Array`);
  const count = shape.reduce((a, b) => a * b, 1);
  if (data.length !== count) {
    throw new RangeError(
      `${where}: shape [${shape.join(', ')}] needs ${count} values, data has ${data.length}`,
    );
  }
  return { shape: [...shape], data };
}

function checkMetadata(metadata) {
  const isMap =
    metadata !== null &&
    typeof metadata === 'object' &&
    !Array.isArray(metadata) &&
    Object.values(metadata).every((value) => typeof value === 'string');
  if (!isMap) throw new TypeError('writeSafetensors: metadata must be an object of strings');
  return metadata;
}
