// Little-endian f32, f64, f16 (IEEE binary16) and bf16 elements → Float32Array, exact but f64 (rounded).

const LITTLE_ENDIAN_HOST = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/** f16 subnormals are mantissa × 2⁻²⁴; the product is exact in f32. */
const F16_SUBNORMAL_STEP = 2 ** -24;

/**
 * Widens binary16 bit patterns to f32 values, exactly: ±0, subnormals, normals, ±inf and NaN
 * (a NaN stays a NaN; its payload is kept where the host keeps it).
 * @param {Uint16Array} bits
 * @returns {Float32Array}
 */
export function f16BitsToF32(bits) {
  const out = new Float32Array(bits.length);
  const outBits = new Uint32Array(out.buffer);
  for (let i = 0; i < bits.length; i++) {
    const h = bits[i];
    const sign = (h & 0x8000) << 16;
    const exponent = (h >> 10) & 0x1f;
    const mantissa = h & 0x3ff;
    if (exponent === 0x1f) {
      outBits[i] = sign | 0x7f800000 | (mantissa << 13);
    } else if (exponent !== 0) {
      // Rebias the exponent from 15 to 127 and widen the mantissa from 10 to 23 bits.
      outBits[i] = sign | ((exponent + 112) << 23) | (mantissa << 13);
    } else if (mantissa !== 0) {
      out[i] = (sign ? -mantissa : mantissa) * F16_SUBNORMAL_STEP;
    } else {
      outBits[i] = sign;
    }
  }
  return out;
}

/**
 * Widens bfloat16 bit patterns to f32 values, exactly: a bf16 is the upper half of an f32.
 * @param {Uint16Array} bits
 * @returns {Float32Array}
 */
export function bf16BitsToF32(bits) {
  const out = new Float32Array(bits.length);
  const outBits = new Uint32Array(out.buffer);
  for (let i = 0; i < bits.length; i++) outBits[i] = bits[i] << 16;
  return out;
}

/** Element formats by size and kind: how to turn `count` little-endian elements into f32. */
const DECODERS = {
  f32: { size: 4, decode: (bytes, count) => new Float32Array(readLittleEndian(bytes, count, 4)) },
  f64: {
    size: 8,
    decode: (bytes, count) => new Float32Array(new Float64Array(readLittleEndian(bytes, count, 8))),
  },
  f16: {
    size: 2,
    decode: (bytes, count) => f16BitsToF32(new Uint16Array(readLittleEndian(bytes, count, 2))),
  },
  bf16: {
    size: 2,
    decode: (bytes, count) => bf16BitsToF32(new Uint16Array(readLittleEndian(bytes, count, 2))),
  },
};

/** @param {'f32' | 'f64' | 'f16' | 'bf16'} kind */
export function elementSize(kind) {
  return DECODERS[kind].size;
}

/**
 * Decodes `count` elements of `kind` from `bytes` (a view that may start at any byte offset).
 * The caller has checked that `bytes` holds count × size bytes.
 * @param {Uint8Array} bytes
 * @param {number} count
 * @param {'f32' | 'f64' | 'f16' | 'bf16'} kind
 * @returns {Float32Array}
 */
export function decodeElements(bytes, count, kind) {
  return DECODERS[kind].decode(bytes, count);
}

/**
 * Copies count × size bytes into a fresh ArrayBuffer, which is aligned for any typed array, in the
 * host's byte order (a byte swap per element on a big-endian host).
 */
function readLittleEndian(bytes, count, size) {
  const copy = bytes.slice(0, count * size);
  if (!LITTLE_ENDIAN_HOST) {
    for (let i = 0; i < copy.length; i += size) copy.subarray(i, i + size).reverse();
  }
  return copy.buffer;
}
