// The engine API for the offline single file: web/src/engine.js unchanged, except that createEngine
// takes the wasm from inside the file instead of fetching it. The SIMD build is embedded
// gzip-compressed and base64-encoded (build-scripts/vite-offline.js) and inflated with the
// browser's DecompressionStream. The build routes every import of ../engine.js here (except this
// file's own). Browsers without wasm SIMD get a clear message (the online page has the fallback).
import { simd as wasmSimdSupported } from 'wasm-feature-detect';
import { Engine } from '../engine.js';
import { createModule, wasmGzipBase64 } from 'virtual:attnscale-offline-wasm';

export { Engine, Trainer } from '../engine.js';

const NEEDS = 'this offline file needs a browser with WebAssembly SIMD and DecompressionStream '
  + '(Chrome/Edge 91+, Firefox 113+, Safari 16.4+); the online page also runs on older ones';

async function inflate(base64) {
  const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('gzip'));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

export async function createEngine(options = {}) {
  const simd = options.simd ?? (await wasmSimdSupported());
  if (!simd || typeof DecompressionStream !== 'function') throw new Error(NEEDS);
  const module = await createModule({ wasmBinary: await inflate(wasmGzipBase64) });
  return new Engine(module, true);
}
