// Reads a .npy file's one array, format versions 1.0–3.0, as NEP 1 and numpy.lib.format define them.
import { decodeElements, elementSize } from './float-formats.js';
import { parsePythonLiteral, TUPLE } from './python-literal.js';

const MAGIC = [0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59];
const PREAMBLE = 8; // magic + version
/** Far above any header a float array needs (numpy pads it to 64-byte multiples); checked first. */
const MAX_HEADER_LENGTH = 1 << 20;

/** Little-endian descriptions only: '>' is big-endian, and '=', '|' or none leave the order to the writer. */
const DTYPES = { '<f4': 'f32', '<f2': 'f16', '<f8': 'f64' };
const SUPPORTED = Object.keys(DTYPES).join(', ');

/** @param {Uint8Array} bytes */
export function hasNpyMagic(bytes) {
  return bytes.length >= MAGIC.length && MAGIC.every((b, i) => bytes[i] === b);
}

/** A file too short to hold the magic but that starts like one: a truncated .npy, not another format. */
export function isNpyMagicPrefix(bytes) {
  return bytes.length > 0 && bytes.length < MAGIC.length && [...bytes].every((b, i) => MAGIC[i] === b);
}

/** The shape as Python prints it: (), (5,), (3, 4). */
export function formatTuple(shape) {
  return `(${shape.join(', ')}${shape.length === 1 ? ',' : ''})`;
}

/**
 * The layout: the magic "\x93NUMPY", the version as two bytes, the header length (1.0: u16; 2.0 and
 * 3.0: u32; little-endian), the header (latin-1; UTF-8 from 3.0), a Python dict literal with 'descr',
 * 'fortran_order' and 'shape', then the array's bytes.
 * @param {Uint8Array} bytes a whole .npy file
 * @returns {{ dtype: string, shape: number[], data: Float32Array }}
 */
export function readNpy(bytes) {
  const { dataStart, ...header } = readNpyHeader(bytes, bytes.length);
  return readData(bytes.subarray(dataStart), header);
}

/** Enough leading bytes of any .npy file this reader accepts for readNpyHeader. */
export const NPY_HEADER_BYTES = PREAMBLE + 4 + MAX_HEADER_LENGTH;

/**
 * A .npy file's header from its first bytes (NPY_HEADER_BYTES or the whole file), checked against
 * the file's length: its dtype, shape, the byte its data starts at and the number of elements.
 * @param {Uint8Array} head @param {number} fileLength
 * @returns {{ descr: string, kind: string, fortranOrder: boolean, shape: number[], dataStart: number, count: number }}
 */
export function readNpyHeader(head, fileLength) {
  if (fileLength < PREAMBLE + 2 || head.length < PREAMBLE + 2) {
    throw new Error(`the .npy file is truncated (${fileLength} bytes, too short for its header length)`);
  }
  const major = head[6];
  const minor = head[7];
  if (minor !== 0 || major < 1 || major > 3) {
    throw new Error(`unsupported .npy format version ${major}.${minor} (supported: 1.0, 2.0, 3.0)`);
  }
  const lengthSize = major === 1 ? 2 : 4;
  if (fileLength < PREAMBLE + lengthSize) {
    throw new Error(`the .npy file is truncated (${fileLength} bytes, too short for its header length)`);
  }
  const view = new DataView(head.buffer, head.byteOffset, head.byteLength);
  const headerLength = lengthSize === 2 ? view.getUint16(PREAMBLE, true) : view.getUint32(PREAMBLE, true);
  const headerStart = PREAMBLE + lengthSize;
  checkHeaderFits(headerLength, headerStart, fileLength);
  const headerBytes = head.subarray(headerStart, headerStart + headerLength);
  const header = parseHeader(major === 3 ? decodeUtf8(headerBytes) : decodeLatin1(headerBytes));
  const dataStart = headerStart + headerLength;
  const count = checkDataLength(fileLength - dataStart, header);
  return { ...header, dataStart, count };
}

function checkHeaderFits(headerLength, headerStart, fileLength) {
  if (headerLength > fileLength) {
    throw new Error(`header length ${headerLength} is longer than the file (${fileLength} bytes)`);
  }
  if (headerStart + headerLength > fileLength) {
    throw new Error(
      `header length ${headerLength} runs past the end of the file (${fileLength} bytes; ` +
        `the header starts at byte ${headerStart})`,
    );
  }
  if (headerLength > MAX_HEADER_LENGTH) {
    throw new Error(
      `header length ${headerLength} is too long for a .npy header (at most ${MAX_HEADER_LENGTH})`,
    );
  }
}

function decodeLatin1(bytes) {
  let text = '';
  for (let i = 0; i < bytes.length; i += 8192) {
    text += String.fromCharCode(...bytes.subarray(i, i + 8192));
  }
  return text;
}

function decodeUtf8(bytes) {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new Error('the .npy header is not valid UTF-8');
  }
}

function parseHeader(text) {
  let dict;
  try {
    dict = parsePythonLiteral(text);
  } catch (error) {
    throw new Error(`the .npy header is not a Python dict literal: ${error.message}`);
  }
  if (!(dict instanceof Map)) throw new Error('the .npy header is not a Python dict literal');
  for (const key of ['descr', 'fortran_order', 'shape']) {
    if (!dict.has(key)) throw new Error(`the .npy header has no '${key}'`);
  }
  const descr = dict.get('descr');
  const fortranOrder = dict.get('fortran_order');
  const shape = dict.get('shape');
  if (Array.isArray(descr)) {
    throw new Error(`structured arrays are not supported (supported dtypes: ${SUPPORTED})`);
  }
  if (typeof descr !== 'string') throw new Error("the .npy header's 'descr' is not a string");
  if (typeof fortranOrder !== 'boolean') {
    throw new Error("the .npy header's 'fortran_order' is neither True nor False");
  }
  if (!Array.isArray(shape) || !shape[TUPLE] || !shape.every((n) => Number.isSafeInteger(n) && n >= 0)) {
    throw new Error("the .npy header's 'shape' is not a tuple of non-negative integers");
  }
  return { descr, kind: dtypeKind(descr), fortranOrder, shape: [...shape] };
}

function dtypeKind(descr) {
  if (descr in DTYPES) return DTYPES[descr];
  if (/^>[fiuc]/.test(descr)) {
    throw new Error(`big-endian dtype '${descr}' is not supported (supported: ${SUPPORTED})`);
  }
  if (/^[=|]?f[248]$/.test(descr)) {
    throw new Error(`dtype '${descr}' does not say its byte order (supported: ${SUPPORTED})`);
  }
  throw new Error(`unsupported dtype '${descr}' (supported: ${SUPPORTED})`);
}

function readData(data, header) {
  const count = checkDataLength(data.length, header);
  return { dtype: header.descr, shape: header.shape, data: decodeElements(data, count, header.kind) };
}

/** The element count of the array, once its order and byte length are checked. */
function checkDataLength(dataLength, { kind, fortranOrder, shape }) {
  if (fortranOrder) {
    throw new Error('Fortran-order arrays are not supported (save np.ascontiguousarray(a) instead)');
  }
  const size = elementSize(kind);
  let count = 1;
  for (const n of shape) {
    count *= n;
    if (count * size > Number.MAX_SAFE_INTEGER) {
      throw new Error(`shape ${formatTuple(shape)} is too large to address`);
    }
  }
  const needed = count * size;
  if (dataLength < needed) {
    throw new Error(`shape ${formatTuple(shape)} needs ${needed} bytes, the file has ${dataLength}`);
  }
  if (dataLength > needed) {
    throw new Error(
      `the file has ${dataLength - needed} bytes after its array of shape ${formatTuple(shape)} ` +
        '(several arrays saved into one file? save each to its own .npy, or all to one .safetensors)',
    );
  }
  return count;
}
