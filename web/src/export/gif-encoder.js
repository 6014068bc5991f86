// The GIF file of a chart's frames, by gifenc: each frame quantized to its own palette of at most
// 256 colours (the charts are flat colours and antialiased edges: no dithering), written with its
// delay; the file loops forever (the NETSCAPE2.0 extension gifenc writes with repeat 0). Runs in
// the GIF's Worker (gif-worker.js), or on the page's thread where no Worker can start.
import gifenc from 'gifenc'; // its CommonJS build: Node reads no named exports from it

const { GIFEncoder, quantize, applyPalette } = gifenc;

/** createGifWriter() → { add({ width, height, rgba, delay }), finish() → Uint8Array, count }. */
export function createGifWriter() {
  const gif = GIFEncoder();
  let count = 0;
  let size = null;
  return {
    add({ width, height, rgba, delay }) {
      if (size && (size[0] !== width || size[1] !== height))
        throw new RangeError(
          `GIF frame ${count + 1}: ${width}×${height}, the first was ${size[0]}×${size[1]}`,
        );
      size = [width, height];
      const data = rgba instanceof Uint8Array ? rgba : new Uint8Array(rgba.buffer ?? rgba);
      const palette = quantize(data, 256);
      gif.writeFrame(applyPalette(data, palette), width, height, { palette, delay, repeat: 0 });
      count += 1;
    },
    finish() {
      gif.finish();
      return gif.bytes();
    },
    get count() {
      return count;
    },
  };
}
