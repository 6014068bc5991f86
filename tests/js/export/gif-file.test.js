// The charts' GIF writer (web/src/export/gif-encoder.js, gifenc) and the tests' reader of GIF files
// (tests/e2e/support/gif-file.js), in Node: frames in, the same pixels, delays, loop and frame
// count out; a malformed file is named as such.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createGifWriter } from '../../../web/src/export/gif-encoder.js';
import { parseGif, decodeFrame, countControlBlocks } from '../../e2e/support/gif-file.js';

const W = 24,
  H = 10;
/** A frame of three vertical bands of colours; `shift` moves the middle band. */
function frame(shift) {
  const rgba = new Uint8Array(W * H * 4);
  for (let y = 0; y < H; y++)
    for (let x = 0; x < W; x++) {
      const c = x < 8 + shift ? [255, 255, 255] : x < 16 + shift ? [194, 65, 12] : [11, 99, 181];
      rgba.set([...c, 255], (y * W + x) * 4);
    }
  return rgba;
}

test('frames written are frames read back: pixels, delays, the NETSCAPE2.0 loop, the trailer', () => {
  const writer = createGifWriter();
  const shifts = [0, 2, 4];
  shifts.forEach((s, i) => writer.add({ width: W, height: H, rgba: frame(s), delay: i === 2 ? 2000 : 700 }));
  assert.equal(writer.count, 3);
  const bytes = writer.finish();
  assert.equal(String.fromCharCode(...bytes.subarray(0, 6)), 'GIF89a');
  assert.equal(countControlBlocks(bytes), 3);
  const gif = parseGif(bytes);
  assert.deepEqual([gif.width, gif.height, gif.frames.length, gif.loops, gif.trailer], [W, H, 3, 0, true]);
  assert.deepEqual(
    gif.controls.map((c) => c.delay),
    [700, 700, 2000],
  );
  shifts.forEach((s, i) => assert.deepEqual(decodeFrame(gif.frames[i]), frame(s), `frame ${i}`));
});

test('a frame of another size is refused, naming both sizes', () => {
  const writer = createGifWriter();
  writer.add({ width: W, height: H, rgba: frame(0), delay: 0 });
  assert.throws(
    () => writer.add({ width: W, height: H + 1, rgba: new Uint8Array(W * (H + 1) * 4), delay: 0 }),
    /GIF frame 2: 24×11, the first was 24×10/,
  );
});

test('the reader names what is wrong with a file that is not a GIF or is cut short', () => {
  assert.throws(() => parseGif(new TextEncoder().encode('<svg></svg>')), /not a GIF/);
  const writer = createGifWriter();
  writer.add({ width: W, height: H, rgba: frame(0), delay: 0 });
  const bytes = writer.finish();
  assert.throws(() => parseGif(bytes.subarray(0, bytes.length - 8)), /GIF ends inside a data block/);
});
