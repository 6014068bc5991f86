// Reading a tensor file's header alone, as the report does before it reads any data: every
// fixture's dtypes, shapes and data ranges from readSafetensorsIndex / readNpyHeader give, sliced
// out of the file, the same bits as readTensorFile; planLayers (shapes only) plans the layers
// pairHeads makes; a header cut short or lying about its length is rejected like a whole file.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { readTensorFile } from '../../../web/src/tensors/read-tensors.js';
import { pairHeads, planLayers } from '../../../web/src/tensors/pair-heads.js';
import { decodeElements, elementSize } from '../../../web/src/tensors/float-formats.js';
import { NPY_HEADER_BYTES, readNpyHeader } from '../../../web/src/tensors/npy.js';
import { readSafetensorsIndex, safetensorsIndexLength } from '../../../web/src/tensors/safetensors.js';

const dir = new URL('../../fixtures/tensors/', import.meta.url);
const names = Object.keys(JSON.parse(readFileSync(new URL('expected.json', dir), 'utf8')));
const fixture = (name) => new Uint8Array(readFileSync(new URL(name, dir)));
const bits = (a) => Array.from(new Uint32Array(a.buffer, a.byteOffset, a.length));

/** name → { shape, data } from the header and a slice of the data per tensor. */
function readByHeader(bytes, name) {
  if (name.endsWith('.npy')) {
    const { shape, dataStart, count, kind } = readNpyHeader(
      bytes.subarray(0, NPY_HEADER_BYTES),
      bytes.length,
    );
    const data = decodeElements(
      bytes.subarray(dataStart, dataStart + count * elementSize(kind)),
      count,
      kind,
    );
    return { array: { shape, data } };
  }
  const head = bytes.subarray(0, safetensorsIndexLength(bytes.subarray(0, 8), bytes.length));
  const { dataStart, entries } = readSafetensorsIndex(head, bytes.length);
  return Object.fromEntries(
    entries.map((e) => [
      e.name,
      {
        shape: e.shape,
        data: decodeElements(bytes.subarray(dataStart + e.begin, dataStart + e.end), e.count, e.kind),
      },
    ]),
  );
}

test('every fixture read from its header and slices has the same shapes and bits as readTensorFile', () => {
  for (const name of names) {
    const bytes = fixture(name);
    const whole = readTensorFile(bytes).tensors;
    const sliced = readByHeader(bytes, name);
    assert.deepEqual(Object.keys(sliced), Object.keys(whole), name);
    for (const [tensor, t] of Object.entries(whole)) {
      assert.deepEqual(sliced[tensor].shape, t.shape, `${name} ${tensor}`);
      assert.deepEqual(bits(sliced[tensor].data), bits(t.data), `${name} ${tensor}`);
    }
  }
});

test('planLayers from the shapes alone plans what pairHeads pairs, with the values each layer uses', () => {
  const { tensors } = readTensorFile(fixture('layers.safetensors'));
  const shapes = Object.fromEntries(Object.entries(tensors).map(([n, t]) => [n, t.shape]));
  const plans = planLayers(shapes);
  const layers = pairHeads(tensors);
  const outline = ({ layer, heads, kvHeads, seqLen, dk, notes }) => ({
    layer,
    heads,
    kvHeads,
    seqLen,
    dk,
    notes,
  });
  assert.deepEqual(plans.map(outline), layers.map(outline));
  for (const [i, p] of plans.entries()) {
    assert.equal(p.values.q, layers[i].q.length);
    assert.equal(p.values.k, layers[i].k.length);
  }
  // A batch of 3: only element 0's values are read.
  const [batch] = planLayers({ q: [3, 2, 8, 4], k: [3, 1, 8, 4] });
  assert.deepEqual(batch.values, { q: 64, k: 32 });
  assert.match(batch.notes[0], /holds a batch of 3; using batch element 0/);
});

test('a header that does not fit the file is rejected from the header alone', () => {
  const bytes = fixture('dtypes.safetensors');
  // The real length, but the file said to be 20 bytes long.
  assert.throws(
    () => readSafetensorsIndex(bytes, 20),
    /header length \d+ is longer than the file \(20 bytes\)/,
  );
  // A length past the file: the index length is 8, so the error comes from the first 8 bytes.
  const lying = new Uint8Array(16);
  new DataView(lying.buffer).setBigUint64(0, 1000n, true);
  assert.equal(safetensorsIndexLength(lying, 16), 8);
  assert.throws(
    () => readSafetensorsIndex(lying.subarray(0, 8), 16),
    /header length 1000 is longer than the file/,
  );
  const npy = fixture('v1-f4.npy');
  assert.throws(() => readNpyHeader(npy, npy.length - 1), /needs \d+ bytes, the file has \d+/);
});
