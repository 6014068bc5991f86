// The largest request the config allows (T = 2048, d_k = 4096: the largest GEMMs and ~210 MB of wasm
// heap) must complete, not abort with out-of-memory, and leave the engine usable.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createEngine } from '../../../web/src/engine/engine.js';

test('T = 2048, d_k = 4096 completes and the engine stays usable', { timeout: 180000 }, async () => {
  const engine = await createEngine();
  const r = engine.run({ dk: 4096, seqLen: 2048, scale: 'none' });
  assert.ok(Math.abs(r.rawLogitStd - 64) < 2, `rawLogitStd ${r.rawLogitStd}`);
  assert.equal(r.attention.length, 2048 * 2048);
  assert.ok(engine.memoryBytes < 1024 * 1024 * 1024, `heap ${engine.memoryBytes} bytes`);
  const small = engine.run({ dk: 8, seqLen: 8 });
  assert.equal(small.attention.length, 64);
});
