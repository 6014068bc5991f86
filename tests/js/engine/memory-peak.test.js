// Peak wasm memory of one engine at the page's largest settings stays within 256 MiB
// (fresh engine per case; memoryBytes never shrinks, so it is the peak). Today's layout: Q and K
// (T × d_k), seven T × T matrices, column and row blocks; V, G, dQ, dK and O are never stored whole.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createEngine } from '../../../web/src/engine/engine.js';

const LIMIT = 256 * 2 ** 20;
const CASES = [
  [
    'three-scale sweep at T = 2048 up to d_k = 4096',
    (e) => e.sweepScales({ seqLen: 2048 }, [1, 4096], ['none', 'sqrt', 'linear']),
  ],
  ['run at T = 2048, d_k = 4096', (e) => e.run({ seqLen: 2048, dk: 4096 })],
  [
    'run then sweep in one engine',
    (e) => {
      e.run({ seqLen: 2048, dk: 4096 });
      e.sweep({ seqLen: 2048 }, [4096]);
    },
  ],
];

for (const [name, work] of CASES) {
  test(`peak memory ≤ 256 MiB: ${name}`, { timeout: 180_000 }, async () => {
    const engine = await createEngine({ simd: true });
    work(engine);
    const mib = (engine.memoryBytes / 2 ** 20).toFixed(0);
    assert.ok(engine.memoryBytes <= LIMIT, `${name}: ${mib} MiB`);
    engine.delete();
  });
}
