// `prepack`: npm pack / npm publish ship build outputs (web/generated/, dist/) that git ignores.
// Fail with a clear message when they are missing instead of packing a package that cannot run.
// It does not build: `npm run build` (or `npm test`, which builds first) comes before packing.
import { existsSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
const required = [
  'web/generated/attnscale-simd.mjs',
  'web/generated/attnscale-simd.wasm',
  'web/generated/attnscale-scalar.mjs',
  'web/generated/attnscale-scalar.wasm',
  'dist/attn-scale-demo.js',
];
const missing = required.filter((f) => !existsSync(root + f));
const assets = existsSync(root + 'dist/assets') ? readdirSync(root + 'dist/assets') : [];
if (!assets.some((f) => f.endsWith('.wasm'))) missing.push('dist/assets/*.wasm');
if (missing.length) {
  console.error(
    `attnscale: cannot pack, build outputs are missing: ${missing.join(', ')}.\n` +
      'Run `npm run build` first (it writes web/generated/ and dist/), then pack again.',
  );
  process.exit(1);
}
