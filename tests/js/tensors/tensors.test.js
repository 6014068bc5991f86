// The tensor-file reader and the q/k pairing: fixtures written by numpy and by hand
// (tests/tools/make-tensor-fixtures.py) read back to the expected f32 values, the f16 and bf16
// conversions checked over all 65,536 bit patterns, and malformed files and misfit q/k shapes
// rejected with an Error that names the problem, never a crash, a hang or a huge allocation.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { readTensorFile, readTensors } from '../../../web/src/tensors/read-tensors.js';
import { keyHeadFor, pairHeads } from '../../../web/src/tensors/pair-heads.js';
import { bf16BitsToF32, f16BitsToF32 } from '../../../web/src/tensors/float-formats.js';
import * as publicApi from '../../../web/src/tensors/index.js';

const fixture = (name) =>
  new Uint8Array(readFileSync(new URL(`../../fixtures/tensors/${name}`, import.meta.url)));
const expected = JSON.parse(
  readFileSync(new URL('../../fixtures/tensors/expected.json', import.meta.url), 'utf8'),
);
const fromJson = (x) => (x === 'nan' ? NaN : x === 'inf' ? Infinity : x === '-inf' ? -Infinity : x);

function assertSameValues(actual, wanted, what) {
  assert.ok(actual instanceof Float32Array, `${what}: a Float32Array`);
  assert.equal(actual.length, wanted.length, `${what}: length`);
  for (let i = 0; i < wanted.length; i++) {
    const w = fromJson(wanted[i]);
    assert.ok(Object.is(actual[i], w), `${what}[${i}]: ${actual[i]}, expected ${w}`);
  }
}

/** Fails unless `fn` throws a plain Error (not a TypeError or RangeError from inside) matching `message`. */
function assertRejects(fn, message) {
  assert.throws(fn, (error) => {
    assert.equal(error.constructor, Error, `a plain Error, got ${error.constructor.name}: ${error.message}`);
    if (message instanceof RegExp) assert.match(error.message, message);
    else assert.equal(error.message, message);
    return true;
  });
}

const encode = (text) => new TextEncoder().encode(text);
const concat = (...parts) => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  parts.reduce((at, p) => (out.set(p, at), at + p.length), 0);
  return out;
};

/** A .npy file with the given header text, version and data bytes. */
function npy(header, data = new Uint8Array(0), { major = 1, headerLength } = {}) {
  const text = major === 3 ? encode(header) : Uint8Array.from(header, (c) => c.charCodeAt(0));
  const lengthBytes = new Uint8Array(major === 1 ? 2 : 4);
  const view = new DataView(lengthBytes.buffer);
  if (major === 1) view.setUint16(0, headerLength ?? text.length, true);
  else view.setUint32(0, headerLength ?? text.length, true);
  return concat(Uint8Array.of(0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, major, 0), lengthBytes, text, data);
}
const npyHeader = (descr, shape, fortran = 'False') =>
  `{'descr': '${descr}', 'fortran_order': ${fortran}, 'shape': ${shape}, }\n`;
const f32Bytes = (...values) => new Uint8Array(Float32Array.from(values).buffer);

/** A .safetensors file: `header` as an object (serialized) or raw text, then `data`. */
function safetensors(header, data = new Uint8Array(0), { headerLength } = {}) {
  const text = encode(typeof header === 'string' ? header : JSON.stringify(header));
  const length = new Uint8Array(8);
  new DataView(length.buffer).setBigUint64(0, headerLength ?? BigInt(text.length), true);
  return concat(length, text, data);
}

test('every fixture reads back to its expected dtype, shape and f32 values', () => {
  for (const [file, tensors] of Object.entries(expected)) {
    const result = readTensorFile(fixture(file));
    assert.equal(result.format, file.endsWith('.npy') ? 'npy' : 'safetensors', file);
    assert.deepEqual(Object.keys(result.tensors).sort(), Object.keys(tensors).sort(), file);
    for (const [name, want] of Object.entries(tensors)) {
      const got = result.tensors[name];
      assert.equal(got.dtype, want.dtype, `${file} ${name}`);
      assert.deepEqual(got.shape, want.shape, `${file} ${name}`);
      assertSameValues(got.data, want.values, `${file} ${name}`);
    }
  }
});

test('__metadata__ is returned by readTensorFile beside the tensors, never as a tensor', () => {
  const { tensors, metadata } = readTensorFile(fixture('dtypes.safetensors'));
  assert.deepEqual(metadata, { format: 'pt', written_by: 'make-tensor-fixtures.py' });
  assert.deepEqual(
    Object.keys(readTensors(fixture('dtypes.safetensors'))).sort(),
    Object.keys(tensors).sort(),
  );
  assert.equal(readTensorFile(fixture('layers.safetensors')).metadata, null);
  assert.equal(readTensorFile(fixture('v1-f4.npy')).metadata, null);
});

test('a .npy array is called "array" unless named; the format comes from the content, not a name', () => {
  assert.deepEqual(Object.keys(readTensors(fixture('v1-f4.npy'))), ['array']);
  assert.deepEqual(Object.keys(readTensors(fixture('v1-f4.npy'), { name: 'layers.0.q' })), ['layers.0.q']);
  assert.deepEqual(readTensors(fixture('scalar-f4.npy')).array.shape, []);
  assert.equal(readTensors(fixture('empty-f4.npy')).array.data.length, 0);
});

test('ArrayBuffers, Node Buffers and views at every byte offset into a bigger buffer read the same', () => {
  for (const file of ['v1-f8.npy', 'v1-f2.npy', 'dtypes.safetensors', 'layers.safetensors']) {
    const bytes = fixture(file);
    const reference = readTensors(bytes);
    const inputs = [bytes.slice().buffer, Buffer.from(bytes), new DataView(bytes.slice().buffer)];
    for (let offset = 1; offset < 9; offset++) {
      const big = new Uint8Array(bytes.length + 16).fill(0xee);
      big.set(bytes, offset);
      inputs.push(big.subarray(offset, offset + bytes.length));
    }
    for (const input of inputs) assert.deepEqual(readTensors(input), reference, file);
  }
  assert.throws(() => readTensors('q.npy'), TypeError);
  assert.throws(() => readTensors([1, 2, 3]), TypeError);
});

test('f16 → f32 is exact for all 65,536 bit patterns (checked against the formula)', () => {
  const bits = Uint16Array.from({ length: 65536 }, (_, i) => i);
  const out = f16BitsToF32(bits);
  for (let h = 0; h < 65536; h++) {
    const sign = h & 0x8000 ? -1 : 1;
    const exponent = (h >> 10) & 0x1f;
    const mantissa = h & 0x3ff;
    let want;
    if (exponent === 0) want = sign * mantissa * Math.pow(2, -24);
    else if (exponent === 31) want = mantissa === 0 ? sign * Infinity : NaN;
    else want = sign * Math.pow(2, exponent - 15) * (1 + mantissa / 1024);
    if (!Object.is(out[h], want)) assert.fail(`f16 0x${h.toString(16)}: ${out[h]}, expected ${want}`);
  }
});

test('bf16 → f32 is exact for all 65,536 bit patterns (checked against the formula and f32 bits)', () => {
  const bits = Uint16Array.from({ length: 65536 }, (_, i) => i);
  const out = bf16BitsToF32(bits);
  const shifted = new Float32Array(1);
  const shiftedBits = new Uint32Array(shifted.buffer);
  for (let h = 0; h < 65536; h++) {
    const sign = h & 0x8000 ? -1 : 1;
    const exponent = (h >> 7) & 0xff;
    const mantissa = h & 0x7f;
    let want;
    if (exponent === 0) want = sign * mantissa * Math.pow(2, -133);
    else if (exponent === 255) want = mantissa === 0 ? sign * Infinity : NaN;
    else want = sign * Math.pow(2, exponent - 127) * (1 + mantissa / 128);
    shiftedBits[0] = h << 16;
    if (!Object.is(out[h], want) || !Object.is(out[h], shifted[0])) {
      assert.fail(`bf16 0x${h.toString(16)}: ${out[h]}, expected ${want}`);
    }
  }
});

test('.npy headers: versions 1.0–3.0, any spacing and key order, Python 2 longs, a UTF-8 v3 header', () => {
  const data = f32Bytes(1, 2, 3, 4, 5, 6);
  const headers = [
    "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }",
    '{"shape":(2,3),"fortran_order":False,"descr":"<f4"}',
    "{'descr':'<f4','fortran_order':False,'shape':(2L, 3L)}      \n",
  ];
  for (const header of headers) {
    for (const major of [1, 2, 3]) {
      const { array } = readTensors(npy(header, data, { major }));
      assert.deepEqual(array.shape, [2, 3], header);
      assert.deepEqual([...array.data], [1, 2, 3, 4, 5, 6]);
    }
  }
  const unicode = "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), 'note': 'größe ✓'}";
  assert.deepEqual([...readTensors(npy(unicode, f32Bytes(7), { major: 3 })).array.data], [7]);
});

test('malformed .npy files get an Error that names the problem', () => {
  const data = f32Bytes(...Array(12).fill(1));
  const only = '(supported: <f4, <f2, <f8)';
  const notDict = 'the .npy header is not a Python dict literal';
  // [header (or descr, shape, fortran_order), message, data]
  const cases = [
    [['<i4', '(3, 4)'], `unsupported dtype '<i4' ${only}`],
    [['>f4', '(3, 4)'], `big-endian dtype '>f4' is not supported ${only}`],
    [['=f4', '(3, 4)'], `dtype '=f4' does not say its byte order ${only}`],
    [['f8', '(3, 4)'], `dtype 'f8' does not say its byte order ${only}`],
    [['<f4', '(3, 4)', 'True'], /^Fortran-order arrays are not supported/],
    [['<f4', '(3, 4)'], 'shape (3, 4) needs 48 bytes, the file has 40', data.subarray(0, 40)],
    [['<f4', '(3, 4)'], /^the file has 48 bytes after its array of shape \(3, 4\)/, concat(data, data)],
    [['<f4', '(1000000000,)'], 'shape (1000000000,) needs 4000000000 bytes, the file has 48'],
    [['<f4', '(4294967296, 4294967296)'], 'shape (4294967296, 4294967296) is too large to address'],
    [['<f4', '[3, 4]'], "the .npy header's 'shape' is not a tuple of non-negative integers"],
    [['<f4', '(3, -4)'], "the .npy header's 'shape' is not a tuple of non-negative integers"],
    [['<f4', '(3.5,)'], `${notDict}: only integers are expected as numbers at character 52`],
    [['<f4', `(${'9'.repeat(30)},)`], `${notDict}: an integer is too large at character 52`],
    ["{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (3,)}", /^structured arrays/],
    ["{'descr': '<f4', 'shape': (3, 4)}", "the .npy header has no 'fortran_order'"],
    ["{'descr': '<f4', 'fortran_order': 0, 'shape': (3, 4)}", /'fortran_order' is neither True/],
    [
      "{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4)",
      `${notDict}: the text ends before the closing '}' at character 57`,
    ],
    ["{'descr': __import__('os'), 'fortran_order': False}", `${notDict}: unexpected '_' at character 11`],
    ["{'descr': '<f4', 'descr': '<f4'}", /the key descr appears twice/],
    ["['descr', '<f4']", notDict],
    [`{'descr': ${'('.repeat(100000)}`, /nesting deeper than 16 levels/],
  ];
  for (const [header, message, bytes = data] of cases) {
    const text = Array.isArray(header) ? npyHeader(...header) : header;
    assertRejects(() => readTensors(npy(text, bytes)), message);
  }
  const version4 = npy(npyHeader('<f4', '(3, 4)'), data, { major: 4 });
  assertRejects(
    () => readTensors(version4),
    'unsupported .npy format version 4.0 (supported: 1.0, 2.0, 3.0)',
  );
  const cut = npy(npyHeader('<f4', '(1,)')).subarray(0, 62);
  const runsPast = 'header length 58 runs past the end of the file (62 bytes; the header starts at byte 10)';
  assertRejects(() => readTensors(cut), runsPast);
  const badUtf8 = npy(npyHeader('<f4', '(1,)'), f32Bytes(1), { major: 3 });
  badUtf8[20] = 0xff;
  assertRejects(() => readTensors(badUtf8), 'the .npy header is not valid UTF-8');
  const longHeader = npy(npyHeader('<f4', '(3, 4)'), data, { major: 2, headerLength: 1234567 });
  const padded = concat(longHeader, new Uint8Array(512 - longHeader.length));
  assertRejects(() => readTensors(padded), 'header length 1234567 is longer than the file (512 bytes)');
});

test('empty, truncated and unknown files are rejected with what they are', () => {
  assertRejects(() => readTensors(new Uint8Array(0)), 'the file is empty (0 bytes)');
  assertRejects(() => readTensors(encode('PK\x03\x04 a zip file, not a tensor file')), /bad magic number/);
  assertRejects(
    () => readTensors(Uint8Array.of(0x93, 0x4e, 0x55, 0x4d)),
    /^the .npy file is truncated \(4 bytes/,
  );
  assertRejects(
    () => readTensors(fixture('v1-f4.npy').subarray(0, 9)),
    /^the .npy file is truncated \(9 bytes/,
  );
  for (const file of Object.keys(expected)) {
    const bytes = fixture(file);
    for (let length = 1; length < bytes.length; length++) {
      assert.throws(
        () => readTensors(bytes.subarray(0, length)),
        (error) => error.constructor === Error,
        `${file} cut to ${length} bytes`,
      );
    }
  }
});

test('malformed .safetensors files get an Error that names the problem', () => {
  const data64 = new Uint8Array(64);
  const f32 = (shape, begin, end) => ({ dtype: 'F32', shape, data_offsets: [begin, end] });
  const entry = (fields) => ({ a: { dtype: 'F32', shape: [4], data_offsets: [0, 16], ...fields } });
  const notObject = 'the JSON header is not an object of tensors';
  const notPair = "tensor 'a': data_offsets is not a pair [begin, end] of non-negative integers";
  // [header (an object, or raw text), message]
  const cases = [
    ['{"a": {"dtype": "F32",', /^the JSON header is not valid JSON: /],
    ['[1, 2]', `${notObject} (it is an array)`],
    ['42', `${notObject} (it is a number)`],
    ['null', `${notObject} (it is null)`],
    [`{"a": ${'['.repeat(1e6)}`, 'the JSON header nests deeper than 16 levels'],
    ['{"a": {"dtype": "F32", "shape": "[[[[[[[[[[[[[[[[[[[[[\\"]", "data_offsets": []}}', /shape is not/],
    [
      { 'layers.0.q': f32([4, 4], 0, 100) },
      "tensor 'layers.0.q': data_offsets [0, 100] lie outside the data (64 bytes)",
    ],
    [
      { a: f32([3, 4], 0, 40) },
      "tensor 'a': shape [3, 4] of F32 needs 48 bytes, data_offsets [0, 40] hold 40",
    ],
    [
      { a: f32([2 ** 20, 2 ** 20], 0, 8) },
      /^tensor 'a': shape \[1048576, 1048576\] of F32 needs 4398046511104 bytes/,
    ],
    [{ a: f32([2 ** 30, 2 ** 30, 2 ** 30], 0, 8) }, "tensor 'a': shape is too large to address"],
    [{ a: f32([2], 16, 8) }, "tensor 'a': data_offsets [16, 8] are not ordered (begin after end)"],
    [
      { a: f32([4], 0, 16), b: f32([4], 8, 24) },
      "tensors 'a' and 'b' overlap (data_offsets [0, 16] and [8, 24])",
    ],
    [{ a: f32([4], 0, 16), b: f32([4], 0, 16) }, /^tensors 'a' and 'b' overlap/],
    [entry({ dtype: 'I32' }), "tensor 'a': unsupported dtype 'I32' (supported: F32, F16, BF16, F64)"],
    [entry({ dtype: undefined }), "tensor 'a': dtype is missing or not a string"],
    [entry({ shape: 4 }), "tensor 'a': shape is not a list of non-negative integers"],
    [entry({ shape: [-4] }), "tensor 'a': shape is not a list of non-negative integers"],
    [entry({ data_offsets: [0] }), notPair],
    [entry({ data_offsets: [0.5, 16] }), notPair],
    [entry({ data_offsets: [0, 2 ** 60] }), notPair],
    [{ a: 'F32' }, "tensor 'a': its entry is not an object with dtype, shape and data_offsets"],
    [{ __metadata__: { format: 7 } }, "'__metadata__' is not a map of strings to strings"],
  ];
  for (const [header, message] of cases)
    assertRejects(() => readTensors(safetensors(header, data64)), message);
  for (const headerLength of [2n ** 53n, 2n ** 64n - 1n]) {
    const lying = safetensors({ a: f32([4], 0, 16) }, data64, { headerLength });
    assertRejects(
      () => readTensors(lying),
      `header length ${headerLength} is longer than the file (${lying.length} bytes)`,
    );
  }
  const file512 = concat(safetensors({ a: f32([4], 0, 16) }, data64), new Uint8Array(512));
  new DataView(file512.buffer).setBigUint64(0, 1234567n, true);
  assertRejects(
    () => readTensors(file512.subarray(0, 512)),
    'header length 1234567 is longer than the file (512 bytes)',
  );
  const badUtf8 = safetensors('{"\xff": 1}');
  badUtf8.set([0xff], 10);
  assertRejects(() => readTensors(badUtf8), 'the JSON header is not valid UTF-8');
});

test('.safetensors edge cases: empty and 0-d tensors, gaps, padded headers, a tensor named __proto__', () => {
  const bytes = safetensors(
    {
      empty: { dtype: 'F32', shape: [0, 4], data_offsets: [4, 4] },
      scalar: { dtype: 'F32', shape: [], data_offsets: [0, 4] },
      ['__proto__']: { dtype: 'F16', shape: [1], data_offsets: [8, 10] },
    },
    concat(f32Bytes(2.5), new Uint8Array(4), Uint8Array.of(0x00, 0x3c)),
  );
  const tensors = readTensors(bytes);
  assert.deepEqual(Object.keys(tensors).sort(), ['__proto__', 'empty', 'scalar']);
  assert.equal(Object.getPrototypeOf(tensors), Object.prototype);
  assert.deepEqual([...tensors.scalar.data], [2.5]);
  assert.equal(tensors.empty.data.length, 0);
  assert.deepEqual([...Object.getOwnPropertyDescriptor(tensors, '__proto__').value.data], [1]);
  const padded = safetensors(
    '{"x": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]}}      ',
    f32Bytes(3),
  );
  assert.deepEqual([...readTensors(padded).x.data], [3]);
  assert.deepEqual(readTensors(safetensors({})), {});
});

test('random byte damage to every fixture gives a result or a plain Error, never a crash', () => {
  let seed = 12345;
  const random = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
  for (const file of Object.keys(expected)) {
    const original = fixture(file);
    for (let trial = 0; trial < 400; trial++) {
      const bytes = original.slice();
      const flips = 1 + Math.floor(random() * 4);
      // Most damage goes to the header, where a lie is most dangerous.
      for (let f = 0; f < flips; f++)
        bytes[Math.floor(random() * Math.min(bytes.length, 140))] = random() * 256;
      try {
        readTensors(bytes);
      } catch (error) {
        assert.equal(error.constructor, Error, `${file} trial ${trial}: ${error.stack}`);
      }
    }
  }
});

test('pairHeads groups layers in natural order, with heads, key heads, T and d_k from the shapes', () => {
  const tensors = readTensors(fixture('layers.safetensors'));
  const layers = pairHeads(tensors);
  assert.deepEqual(
    layers.map(({ layer, heads, kvHeads, seqLen, dk }) => [layer, heads, kvHeads, seqLen, dk]),
    [
      ['layers.0.', 1, 1, 4, 3],
      ['layers.1.', 2, 2, 4, 3],
      ['layers.2.', 4, 2, 4, 3],
      ['layers.10.', 1, 1, 4, 3],
    ],
  );
  assert.deepEqual(layers[0].q, tensors['layers.0.q'].data);
  assert.deepEqual(layers[2].k, tensors['layers.2.k'].data);
  assert.deepEqual(layers[2].v, tensors['layers.2.v'].data);
  assert.equal(layers[1].v, undefined);
  assert.notEqual(layers[0].q.buffer, tensors['layers.0.q'].data.buffer, 'the layer owns its arrays');
  assert.ok(layers.every((l) => l.notes.length === 0));
  assert.deepEqual(
    [0, 1, 2, 3].map((h) => keyHeadFor(h, 4, 2)),
    [0, 0, 1, 1],
  );
  assert.deepEqual(
    [0, 1, 2, 3, 4, 5].map((h) => keyHeadFor(h, 6, 3)),
    [0, 0, 1, 1, 2, 2],
  );
  assert.equal(publicApi.pairHeads, pairHeads);
  assert.equal(publicApi.readTensors, readTensors);
});

test('pairHeads: q.npy and k.npy named on reading, bare q and k, and a batch reduced to element 0', () => {
  const tensors = {
    ...readTensors(fixture('q.npy'), { name: 'q' }),
    ...readTensors(fixture('k.npy'), { name: 'k' }),
  };
  const [layer] = pairHeads({ ...tensors, mask: { shape: [5, 5], data: new Float32Array(25) } });
  assert.deepEqual([layer.layer, layer.heads, layer.kvHeads, layer.seqLen, layer.dk], ['', 2, 2, 5, 4]);
  const batch = Float32Array.from({ length: 2 * 2 * 3 * 2 }, (_, i) => i);
  const [batched] = pairHeads({
    'h.q': { shape: [2, 2, 3, 2], data: batch },
    'h.k': { shape: [3, 2], data: batch.slice(0, 6) },
  });
  assert.deepEqual([...batched.q], [...batch.subarray(0, 12)]);
  assert.equal(batched.kvHeads, 1);
  assert.deepEqual(batched.notes, ["'h.q' holds a batch of 2; using batch element 0"]);
});

test('pairHeads rejects q/k sets that do not fit together, naming the problem and the valid range', () => {
  const t = (...shape) => ({ shape, data: new Float32Array(shape.reduce((a, b) => a * b, 1)) });
  const cases = [
    [{ 'layers.3.q': t(4, 8) }, "'layers.3.q' has no matching 'layers.3.k'"],
    [{ 'layers.3.k': t(4, 8) }, "'layers.3.k' has no matching 'layers.3.q'"],
    [{ v: t(4, 8) }, "'v' has no matching 'q'"],
    [
      { weight: t(4, 8), bias: t(8) },
      "no q/k tensors found: expected names like 'q' and 'k' or 'layers.0.q' and 'layers.0.k' " +
        "(the file has 'weight', 'bias')",
    ],
    [{ q: t(4, 8), k: t(5, 8) }, "'q' and 'k' have different sequence lengths T (q: 4, k: 5)"],
    [{ q: t(4, 8), k: t(4, 16) }, "'q' and 'k' have different head dimensions d_k (q: 8, k: 16)"],
    [{ q: t(6, 4, 8), k: t(4, 4, 8) }, /^'q' has 6 heads, not a multiple of the 4 key heads of 'k'/],
    [{ q: t(), k: t(4, 8) }, "'q' has rank 0, shape (); expected (T, d), (H, T, d) or (B, H, T, d)"],
    [{ q: t(8), k: t(8) }, "'q' has rank 1, shape (8,); expected (T, d), (H, T, d) or (B, H, T, d)"],
    [{ q: t(1, 1, 1, 4, 8), k: t(4, 8) }, /^'q' has rank 5/],
    [{ q: t(1, 8), k: t(1, 8) }, "sequence length T = 1 of 'q' is outside the engine's range 2…2048"],
    [
      { q: t(2049, 1), k: t(2049, 1) },
      "sequence length T = 2049 of 'q' is outside the engine's range 2…2048",
    ],
    [{ q: t(2, 4097), k: t(2, 4097) }, "d_k = 4097 of 'q' is outside the engine's range 1…4096"],
    [{ q: t(0, 4, 8), k: t(4, 8) }, "'q' is empty, shape (0, 4, 8)"],
    [
      { q: t(2, 4, 8), k: t(2, 4, 8), v: t(1, 4, 8) },
      "'v' has 1 heads, T 4, d 8 but 'k' has 2 heads, T 4, d 8; v must match k",
    ],
    [
      { q: { shape: [4, 8], data: new Float32Array(8) }, k: t(4, 8) },
      "'q' has 8 values, its shape (4, 8) needs 32",
    ],
    [
      { q: { shape: [2, 2], data: [1, 2, 3, 4] }, k: t(2, 2) },
      "'q' is not a tensor with a shape and Float32Array data",
    ],
  ];
  for (const [tensors, message] of cases) assertRejects(() => pairHeads(tensors), message);
});
