// Reads a GIF file block by block (GIF89a spec): its header, size, colour tables, every Graphic
// Control Extension and image, the NETSCAPE2.0 loop extension, and the trailer; and decodes a
// frame's LZW data to RGBA, so the tests can say how many frames a download holds, whether it
// loops, and whether its frames differ. Used in Node by the page's and Firefox's GIF tests.

const ascii = (b, at, n) => String.fromCharCode(...b.subarray(at, at + n));

/** The data sub-blocks from `at` (size byte, bytes, …, 0) → { data, end }. */
function subBlocks(b, at) {
  const parts = [];
  let i = at;
  for (;;) {
    if (i >= b.length) throw new RangeError(`GIF ends inside a data block at byte ${i}`);
    const n = b[i++];
    if (n === 0) break;
    parts.push(b.subarray(i, i + n));
    i += n;
  }
  const data = new Uint8Array(parts.reduce((a, p) => a + p.length, 0));
  let o = 0;
  for (const p of parts) {
    data.set(p, o);
    o += p.length;
  }
  return { data, end: i };
}

/**
 * parseGif(bytes) → { version, width, height, globalColors, loops (null: no NETSCAPE2.0, 0: forever),
 * controls: the Graphic Control Extensions' { delay (ms), transparent }, frames: [{ left, top,
 * width, height, colors, minCode, data, control }], trailer }. Throws on a malformed file.
 */
export function parseGif(bytes) {
  const b = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes);
  const version = ascii(b, 0, 6);
  if (version !== 'GIF89a' && version !== 'GIF87a')
    throw new RangeError(`not a GIF: header ${JSON.stringify(version)}`);
  const u16 = (i) => b[i] | (b[i + 1] << 8);
  const width = u16(6),
    height = u16(8),
    packed = b[10];
  let i = 13;
  let globalColors = null;
  if (packed & 0x80) {
    const n = 3 * 2 ** ((packed & 7) + 1);
    globalColors = b.subarray(i, i + n);
    i += n;
  }
  const out = { version, width, height, globalColors, loops: null, controls: [], frames: [], trailer: false };
  let control = null;
  while (i < b.length) {
    const kind = b[i++];
    if (kind === 0x3b) {
      out.trailer = true;
      break;
    }
    if (kind === 0x21) {
      const label = b[i++];
      const { data, end } = subBlocks(b, i);
      if (label === 0xf9) {
        control = { delay: (data[1] | (data[2] << 8)) * 10, transparent: data[0] & 1 ? data[3] : null };
        out.controls.push(control);
      } else if (label === 0xff && ascii(data, 0, 11) === 'NETSCAPE2.0')
        out.loops = data[12] | (data[13] << 8);
      i = end;
    } else if (kind === 0x2c) {
      const f = { left: u16(i), top: u16(i + 2), width: u16(i + 4), height: u16(i + 6), control };
      const p = b[i + 8];
      i += 9;
      f.colors = globalColors;
      if (p & 0x80) {
        const n = 3 * 2 ** ((p & 7) + 1);
        f.colors = b.subarray(i, i + n);
        i += n;
      }
      f.minCode = b[i++];
      const { data, end } = subBlocks(b, i);
      f.data = data;
      i = end;
      out.frames.push(f);
      control = null;
    } else throw new RangeError(`unknown GIF block 0x${kind.toString(16)} at byte ${i - 1}`);
  }
  return out;
}

/** The colour indices of a frame: its LZW data decoded (width × height bytes). */
export function decodeIndices(frame) {
  const { minCode, data } = frame;
  const size = frame.width * frame.height;
  const out = new Uint8Array(size);
  const clear = 1 << minCode,
    eoi = clear + 1;
  let codeSize = minCode + 1;
  let dict = [];
  const reset = () => {
    dict = [];
    for (let c = 0; c < clear; c++) dict.push([c]);
    dict.push(null, null);
    codeSize = minCode + 1;
  };
  reset();
  let bit = 0,
    o = 0,
    prev = null;
  const read = () => {
    let v = 0;
    for (let k = 0; k < codeSize; k++, bit++) v |= ((data[bit >> 3] >> (bit & 7)) & 1) << k;
    return v;
  };
  while (bit + codeSize <= data.length * 8 && o < size) {
    const code = read();
    if (code === clear) {
      reset();
      prev = null;
      continue;
    }
    if (code === eoi) break;
    let entry;
    if (code < dict.length && dict[code]) entry = dict[code];
    else if (prev) entry = [...prev, prev[0]];
    else throw new RangeError(`bad LZW code ${code}`);
    for (const v of entry) if (o < size) out[o++] = v;
    if (prev && dict.length < 4096) dict.push([...prev, entry[0]]);
    if (dict.length === 1 << codeSize && codeSize < 12) codeSize++;
    prev = entry;
  }
  return out;
}

/** A frame as RGBA (its own colours; these files draw whole frames, so no disposal is needed). */
export function decodeFrame(frame) {
  const idx = decodeIndices(frame);
  const rgba = new Uint8Array(idx.length * 4);
  for (let p = 0; p < idx.length; p++) {
    const c = idx[p] * 3;
    rgba.set([frame.colors[c], frame.colors[c + 1], frame.colors[c + 2], 255], p * 4);
  }
  return rgba;
}

/** How many times the bytes 0x21 0xF9 0x04 (a Graphic Control Extension's start) occur. */
export function countControlBlocks(bytes) {
  let n = 0;
  for (let i = 0; i + 2 < bytes.length; i++)
    if (bytes[i] === 0x21 && bytes[i + 1] === 0xf9 && bytes[i + 2] === 0x04) n++;
  return n;
}
