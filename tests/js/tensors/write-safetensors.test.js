// The .safetensors writer: its bytes laid out as the format's README says (8-byte little-endian
// header length, a JSON header of dtype, shape and data_offsets with an optional __metadata__,
// padded with spaces to a multiple of 8, then the data), read back by readTensorFile bit for bit,
// and paired by pairHeads as one layer per copy when named <copy>.q, <copy>.k.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readTensorFile } from '../../../web/src/tensors/read-tensors.js';
import { pairHeads } from '../../../web/src/tensors/pair-heads.js';
import { writeSafetensors } from '../../../web/src/tensors/write-safetensors.js';
import * as publicApi from '../../../web/src/tensors/index.js';

const ramp = (n, from = 0, step = 0.25) => Float32Array.from({ length: n }, (_, i) => from + i * step);
const bitsOf = (a) => Array.from(new Uint32Array(a.buffer, a.byteOffset, a.length));

/** The header as written: its length field, its text (padding included) and the parsed JSON. */
function headerOf(bytes) {
  const length = new DataView(bytes.buffer, bytes.byteOffset).getBigUint64(0, true);
  const text = new TextDecoder().decode(bytes.subarray(8, 8 + Number(length)));
  return { length: Number(length), text, json: JSON.parse(text) };
}

test('writeSafetensors: the layout of the format, header padded with spaces to a multiple of 8', () => {
  const bytes = writeSafetensors(
    { a: { dtype: 'F32', shape: [2, 3], data: ramp(6) }, b: { dtype: 'F32', shape: [5], data: ramp(5, 1) } },
    { format: 'pt', note: 'ünïcode' },
  );
  const { length, text, json } = headerOf(bytes);
  assert.equal(length % 8, 0, `header length ${length}`);
  assert.equal((8 + length) % 8, 0, 'the data start at a multiple of 8');
  assert.equal(text[0], '{');
  assert.match(text, /} *$/, 'only spaces after the JSON');
  assert.ok(text.length - text.trimEnd().length < 8, 'at most 7 bytes of padding');
  assert.deepEqual(json, {
    __metadata__: { format: 'pt', note: 'ünïcode' },
    a: { dtype: 'F32', shape: [2, 3], data_offsets: [0, 24] },
    b: { dtype: 'F32', shape: [5], data_offsets: [24, 44] },
  });
  assert.deepEqual(Object.keys(json), ['__metadata__', 'a', 'b'], 'metadata first, tensors in order');
  assert.equal(bytes.length, 8 + length + 44, 'the data fill the rest, no gaps');
  // Little-endian f32: 0.25 is 0x3e800000.
  assert.deepEqual(Array.from(bytes.subarray(8 + length + 4, 8 + length + 8)), [0x00, 0x00, 0x80, 0x3e]);
  for (let extra = 0; extra < 9; extra++) {
    const { length: n } = headerOf(
      writeSafetensors({ ['x'.repeat(1 + extra)]: { shape: [], data: ramp(1) } }),
    );
    assert.equal(n % 8, 0, `name of ${1 + extra} characters: header length ${n}`);
  }
});

test('writeSafetensors → readTensorFile: names, order, shapes, metadata and every bit of the values', () => {
  const specials = Float32Array.of(
    0,
    -0,
    1,
    -2.5,
    3.4028234663852886e38,
    1e-45,
    -1.1754942e-38,
    Infinity,
    -Infinity,
  );
  const nan = new Float32Array(new Uint32Array([0x7fc00000, 0xffc00001, 0x7f800001]).buffer);
  const tensors = {
    'none.q': { dtype: 'F32', shape: [4, 3], data: ramp(12, -1) },
    'none.k': { dtype: 'F32', shape: [4, 3], data: ramp(12, 2, -0.5) },
    specials: { dtype: 'F32', shape: [specials.length], data: specials },
    nan: { shape: [1, 3], data: nan },
    scalar: { shape: [], data: Float32Array.of(1.25) },
    empty: { shape: [0, 4], data: new Float32Array(0) },
    heads: { shape: [2, 2, 2, 2], data: ramp(16) },
  };
  const metadata = { seed: '1', steps: '500', 'none.scaling': 'none (× 1)' };
  const file = readTensorFile(writeSafetensors(tensors, metadata));
  assert.equal(file.format, 'safetensors');
  assert.deepEqual(file.metadata, metadata);
  assert.deepEqual(Object.keys(file.tensors), Object.keys(tensors));
  for (const [name, want] of Object.entries(tensors)) {
    const got = file.tensors[name];
    assert.equal(got.dtype, 'F32', name);
    assert.deepEqual(got.shape, want.shape, name);
    assert.deepEqual(bitsOf(got.data), bitsOf(want.data), `${name}: the same bits`);
  }
  assert.equal(readTensorFile(writeSafetensors({})).metadata, null, 'no metadata: no __metadata__');
  assert.deepEqual(readTensorFile(writeSafetensors({})).tensors, {});
});

test('writeSafetensors: a tensor called __proto__ and a view into a larger buffer are written as they are', () => {
  const tensors = {};
  Object.defineProperty(tensors, '__proto__', {
    value: { shape: [2], data: Float32Array.of(3, 4) },
    enumerable: true,
  });
  const big = ramp(10);
  tensors.view = { shape: [3], data: big.subarray(5, 8) };
  const back = readTensorFile(writeSafetensors(tensors)).tensors;
  assert.deepEqual(Object.keys(back), ['__proto__', 'view']);
  assert.deepEqual(Array.from(Object.getOwnPropertyDescriptor(back, '__proto__').value.data), [3, 4]);
  assert.deepEqual(Array.from(back.view.data), [1.25, 1.5, 1.75]);
});

test('writeSafetensors: <copy>.q, <copy>.k of shape (T, d) pair as one layer per copy', () => {
  const T = 6,
    d = 4;
  const tensors = {};
  for (const [i, copy] of ['none', 'sqrt', 'linear'].entries()) {
    tensors[`${copy}.q`] = { dtype: 'F32', shape: [T, d], data: ramp(T * d, i) };
    tensors[`${copy}.k`] = { dtype: 'F32', shape: [T, d], data: ramp(T * d, -i) };
  }
  const layers = pairHeads(readTensorFile(writeSafetensors(tensors)).tensors);
  assert.deepEqual(
    layers.map((l) => [l.layer, l.heads, l.kvHeads, l.seqLen, l.dk]),
    [
      ['linear.', 1, 1, T, d],
      ['none.', 1, 1, T, d],
      ['sqrt.', 1, 1, T, d],
    ],
  );
  assert.deepEqual(Array.from(layers[1].q), Array.from(tensors['none.q'].data));
  assert.deepEqual(Array.from(layers[2].k), Array.from(tensors['sqrt.k'].data));
});

test('writeSafetensors: bad tensors and metadata throw errors that name the problem', () => {
  const ok = { shape: [2], data: new Float32Array(2) };
  for (const [args, type, message] of [
    [[null], TypeError, /tensors must be an object/],
    [[[ok]], TypeError, /tensors must be an object/],
    [
      [{ a: null }],
      TypeError,
      /tensor 'a' is not \{ dtype: 'F32', shape: non-negative integers, data: Float32Array \}/,
    ],
    [[{ a: { ...ok, dtype: 'F16' } }], TypeError, /tensor 'a' is not \{ dtype: 'F32'/],
    [[{ a: { ...ok, shape: [2.5] } }], TypeError, /tensor 'a' is not/],
    [[{ a: { ...ok, shape: [-1] } }], TypeError, /tensor 'a' is not/],
    [[{ a: { ...ok, shape: 2 } }], TypeError, /tensor 'a' is not/],
    [[{ a: { ...ok, shape: [, 2] } }], TypeError, /tensor 'a' is not/], // eslint-disable-line no-sparse-arrays
    [[{ a: { shape: [2], data: [1, 2] } }], TypeError, /tensor 'a' is not/],
    [[{ a: { shape: [2], data: new Float64Array(2) } }], TypeError, /tensor 'a' is not/],
    [
      [{ a: { shape: [3, 2], data: new Float32Array(5) } }],
      RangeError,
      /tensor 'a': shape \[3, 2\] needs 6 values, data has 5/,
    ],
    [[{ __metadata__: ok }], TypeError, /tensor '__metadata__': that name is not a tensor's/],
    [[{ '': ok }], TypeError, /tensor '': that name is not a tensor's/],
    [[{ a: ok }, { seed: 1 }], TypeError, /metadata must be an object of strings/],
    [[{ a: ok }, null], TypeError, /metadata must be an object of strings/],
    [[{ a: ok }, ['x']], TypeError, /metadata must be an object of strings/],
  ]) {
    assert.throws(
      () => writeSafetensors(...args),
      (e) => e instanceof type && message.test(e.message),
      String(message),
    );
  }
});

test('attnscale/tensors exports the writer', () => {
  assert.equal(publicApi.writeSafetensors, writeSafetensors);
});
