// The GIF's Worker: frames in ({ type: 'frame', width, height, rgba: ArrayBuffer, delay }), each
// encoded as it arrives ({ type: 'encoded', count }); 'finish' → { type: 'done', bytes } (the
// buffer transferred). A failure → { type: 'error', message }. `self.onmessage`, not a listener:
// the blob: shim that loads this module from another origin hands its early messages there.
import { createGifWriter } from './gif-encoder.js';

let writer = createGifWriter();

self.onmessage = (e) => {
  const m = e.data;
  try {
    if (m.type === 'frame') {
      writer.add(m);
      self.postMessage({ type: 'encoded', count: writer.count });
    } else if (m.type === 'finish') {
      const bytes = writer.finish();
      writer = createGifWriter();
      self.postMessage({ type: 'done', bytes: bytes.buffer }, [bytes.buffer]);
    }
  } catch (err) {
    self.postMessage({ type: 'error', message: String(err?.message ?? err) });
  }
};
self.postMessage({ type: 'ready' });
