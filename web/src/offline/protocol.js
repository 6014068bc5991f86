// What the offline file's page and its inlined Worker share: the message that carries the wasm
// bytes to the Worker, and the message for browsers that cannot run the file.
export const WASM_MESSAGE = 'attnscale:wasm';

export const NEEDS =
  'this offline file needs a browser with WebAssembly SIMD and DecompressionStream ' +
  '(Chrome/Edge 91+, Firefox 113+, Safari 16.4+); the online page also runs on older ones';
