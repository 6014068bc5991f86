// Reads a .safetensors file's F32, F16, BF16 and F64 tensors, as the safetensors README defines the format.
import { decodeElements, elementSize } from './float-formats.js';

const LENGTH_SIZE = 8;
/** The format's own bound on the header (its README: 100 MB, against parsing huge JSON). */
const MAX_HEADER_LENGTH = 100_000_000;
const DTYPES = { F32: 'f32', F16: 'f16', BF16: 'bf16', F64: 'f64' };
const SUPPORTED = Object.keys(DTYPES).join(', ');
const OPEN_BRACE = 0x7b;
const JSON_VALUE_START = [...'["-0123456789tfn \t\r\n'].map((c) => c.charCodeAt(0));

/**
 * The format has no magic number: its header begins with '{' right after the length. A length that
 * fits the file followed by the start of some other JSON value is read too, to say what is wrong.
 */
export function looksLikeSafetensors(bytes) {
  if (bytes.length <= LENGTH_SIZE) return false;
  if (bytes[LENGTH_SIZE] === OPEN_BRACE) return true;
  const headerLength = new DataView(bytes.buffer, bytes.byteOffset, 8).getBigUint64(0, true);
  return headerLength <= BigInt(bytes.length - LENGTH_SIZE) && JSON_VALUE_START.includes(bytes[LENGTH_SIZE]);
}

/**
 * The layout: an 8-byte little-endian u64 header length N, N bytes of a UTF-8 JSON object
 * {name: {dtype, shape, data_offsets: [begin, end]}} with an optional string-to-string '__metadata__',
 * then the data; the offsets count from the end of the header.
 * @param {Uint8Array} bytes a whole .safetensors file
 * @returns {{ tensors: Record<string, { dtype: string, shape: number[], data: Float32Array }>,
 *   metadata: Record<string, string> | null }}
 */
export function readSafetensors(bytes) {
  const { dataStart, entries, metadata } = readSafetensorsIndex(bytes, bytes.length);
  const data = bytes.subarray(dataStart);
  const tensors = {};
  for (const { name, dtype, kind, shape, count, begin, end } of entries) {
    // defineProperty: a tensor may be called '__proto__' without touching the object's prototype.
    Object.defineProperty(tensors, name, {
      value: { dtype, shape, data: decodeElements(data.subarray(begin, end), count, kind) },
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return { tensors, metadata };
}

/**
 * How many leading bytes of a file of `fileLength` bytes readSafetensorsIndex needs, from its first
 * 8 (the length and the JSON header; at most the file, so that a bad length is reported by it).
 * @param {Uint8Array} first8 @param {number} fileLength
 */
export function safetensorsIndexLength(first8, fileLength) {
  if (first8.length < LENGTH_SIZE) return fileLength;
  const headerLength = new DataView(first8.buffer, first8.byteOffset, 8).getBigUint64(0, true);
  const end = BigInt(LENGTH_SIZE) + headerLength;
  return end > BigInt(fileLength) || headerLength > BigInt(MAX_HEADER_LENGTH) ? LENGTH_SIZE : Number(end);
}

/**
 * The header of a .safetensors file, read from its first bytes (see safetensorsIndexLength) without
 * its data: where the data starts and each tensor's checked entry, its byte range counted from there.
 * @param {Uint8Array} head the file's first bytes @param {number} fileLength the whole file's bytes
 * @returns {{ dataStart: number, metadata: Record<string, string> | null, entries: Array<{ name: string,
 *   dtype: string, kind: string, shape: number[], count: number, begin: number, end: number }> }}
 */
export function readSafetensorsIndex(head, fileLength) {
  if (fileLength <= LENGTH_SIZE || head.length < LENGTH_SIZE) {
    throw new Error(`the file is too short for a .safetensors header (${fileLength} bytes)`);
  }
  const view = new DataView(head.buffer, head.byteOffset, head.byteLength);
  const headerLength = view.getBigUint64(0, true);
  if (headerLength > BigInt(fileLength)) {
    throw new Error(`header length ${headerLength} is longer than the file (${fileLength} bytes)`);
  }
  if (headerLength > BigInt(fileLength - LENGTH_SIZE)) {
    throw new Error(
      `header length ${headerLength} runs past the end of the file (${fileLength} bytes; ` +
        `the header starts at byte ${LENGTH_SIZE})`,
    );
  }
  if (headerLength > BigInt(MAX_HEADER_LENGTH)) {
    throw new Error(`header length ${headerLength} is over the format's limit of ${MAX_HEADER_LENGTH} bytes`);
  }
  const dataStart = LENGTH_SIZE + Number(headerLength);
  if (head.length < dataStart)
    throw new RangeError(`readSafetensorsIndex needs the first ${dataStart} bytes`);
  const header = parseHeader(head.subarray(LENGTH_SIZE, dataStart));
  const entries = [];
  let metadata = null;
  for (const [name, info] of Object.entries(header)) {
    if (name === '__metadata__') metadata = checkMetadata(info);
    else entries.push(checkEntry(name, info, fileLength - dataStart));
  }
  checkNoOverlap(entries);
  return { dataStart, entries, metadata };
}

function parseHeader(headerBytes) {
  let text;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(headerBytes);
  } catch {
    throw new Error('the JSON header is not valid UTF-8');
  }
  checkNesting(headerBytes);
  let header;
  try {
    header = JSON.parse(text);
  } catch (error) {
    throw new Error(`the JSON header is not valid JSON: ${error.message}`);
  }
  if (header === null || typeof header !== 'object' || Array.isArray(header)) {
    const kind = header === null ? 'null' : Array.isArray(header) ? 'an array' : `a ${typeof header}`;
    throw new Error(`the JSON header is not an object of tensors (it is ${kind})`);
  }
  return header;
}

/** A real header nests 3 deep; JSON.parse takes seconds on millions of nested brackets, a scan does not. */
const MAX_NESTING = 16;

function checkNesting(bytes) {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i];
    if (inString) {
      if (b === 0x5c)
        i++; // a backslash escapes the next byte
      else if (b === 0x22) inString = false;
    } else if (b === 0x22) {
      inString = true;
    } else if (b === 0x7b || b === 0x5b) {
      if (++depth > MAX_NESTING) throw new Error(`the JSON header nests deeper than ${MAX_NESTING} levels`);
    } else if (b === 0x7d || b === 0x5d) {
      depth--;
    }
  }
}

function checkMetadata(metadata) {
  const isMap =
    metadata !== null &&
    typeof metadata === 'object' &&
    !Array.isArray(metadata) &&
    Object.values(metadata).every((value) => typeof value === 'string');
  if (!isMap) throw new Error("'__metadata__' is not a map of strings to strings");
  return { ...metadata };
}

const isCount = (n) => Number.isSafeInteger(n) && n >= 0;

function checkEntry(name, info, dataLength) {
  const where = `tensor '${name}'`;
  if (info === null || typeof info !== 'object' || Array.isArray(info)) {
    throw new Error(`${where}: its entry is not an object with dtype, shape and data_offsets`);
  }
  const { dtype, shape, data_offsets: offsets } = info;
  if (typeof dtype !== 'string') throw new Error(`${where}: dtype is missing or not a string`);
  if (!(dtype in DTYPES)) {
    throw new Error(`${where}: unsupported dtype '${dtype}' (supported: ${SUPPORTED})`);
  }
  if (!Array.isArray(shape) || !shape.every(isCount)) {
    throw new Error(`${where}: shape is not a list of non-negative integers`);
  }
  if (!Array.isArray(offsets) || offsets.length !== 2 || !offsets.every(isCount)) {
    throw new Error(`${where}: data_offsets is not a pair [begin, end] of non-negative integers`);
  }
  const [begin, end] = offsets;
  const where2 = `${where}: data_offsets [${begin}, ${end}]`;
  if (begin > end) throw new Error(`${where2} are not ordered (begin after end)`);
  if (end > dataLength) throw new Error(`${where2} lie outside the data (${dataLength} bytes)`);
  const kind = DTYPES[dtype];
  const size = elementSize(kind);
  let count = 1;
  for (const n of shape) {
    count *= n;
    if (count * size > Number.MAX_SAFE_INTEGER) throw new Error(`${where}: shape is too large to address`);
  }
  if (count * size !== end - begin) {
    throw new Error(
      `${where}: shape ${JSON.stringify(shape).replaceAll(',', ', ')} of ${dtype} needs ` +
        `${count * size} bytes, data_offsets [${begin}, ${end}] hold ${end - begin}`,
    );
  }
  return { name, dtype, kind, shape, count, begin, end };
}

/**
 * Overlapping tensors would let a small file claim many times its size in tensors. Gaps between
 * tensors are tolerated: they cost nothing to skip.
 */
function checkNoOverlap(entries) {
  const sorted = entries.filter((e) => e.end > e.begin).sort((a, b) => a.begin - b.begin);
  for (let i = 1; i < sorted.length; i++) {
    const [a, b] = [sorted[i - 1], sorted[i]];
    if (b.begin < a.end) {
      throw new Error(
        `tensors '${a.name}' and '${b.name}' overlap ` +
          `(data_offsets [${a.begin}, ${a.end}] and [${b.begin}, ${b.end}])`,
      );
    }
  }
}
