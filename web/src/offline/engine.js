// The engine API for the offline file's inlined Worker: web/src/engine/engine.js unchanged, except that
// createEngine takes the wasm bytes that the page posts to the Worker ({ type: WASM_MESSAGE,
// bytes } or { error }; see install-worker.js) instead of fetching them. The build routes every
// import of ../engine.js here (except this file's own). Browsers without wasm SIMD get a clear
// message (the online page has the scalar fallback).
import { simd as wasmSimdSupported } from 'wasm-feature-detect';
import { Engine } from '../engine/engine.js';
import createModule from '../../generated/attnscale-simd.mjs';
import { WASM_MESSAGE, NEEDS } from './protocol.js';

export { Engine, Trainer } from '../engine/engine.js';

const wasmBytes = new Promise((resolve, reject) => {
  addEventListener('message', function take(e) {
    if (e.data?.type !== WASM_MESSAGE) return;
    removeEventListener('message', take);
    if (e.data.bytes) resolve(e.data.bytes);
    else reject(new Error(e.data.error));
  });
});
wasmBytes.catch(() => {});

export async function createEngine(options = {}) {
  const simd = options.simd ?? (await wasmSimdSupported());
  if (!simd) throw new Error(NEEDS);
  const module = await createModule({ wasmBinary: await wasmBytes });
  return new Engine(module, true);
}
