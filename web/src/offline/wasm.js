// The offline file's SIMD wasm, inflated on the page's thread (once) for its Workers. It is
// stored gzip-compressed and base64-encoded (build-scripts/lib/vite-offline.js) and inflated with the
// browser's DecompressionStream. Not in the Worker: WebKit cannot read any Blob inside a Worker
// started from a blob: URL on a file:// page (NotReadableError), and the inlined Worker is one.
import { wasmGzipBase64 } from 'virtual:attnscale-offline-wasm';
import { NEEDS } from './protocol.js';

let bytes = null;

async function inflate(base64) {
  if (typeof DecompressionStream !== 'function') throw new Error(NEEDS);
  const gz = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
  const stream = new Blob([gz]).stream().pipeThrough(new DecompressionStream('gzip'));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

/** The wasm bytes (a promise; the same one for every Worker). */
export const offlineWasm = () => (bytes ??= inflate(wasmGzipBase64));
