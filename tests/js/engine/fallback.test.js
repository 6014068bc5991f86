// Run twice by `npm test`: normally, and under `node --no-enable-sse4-1` (V8 without wasm SIMD),
// where createEngine() must pick the scalar build by itself and still measure correctly.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createEngine } from '../../../web/src/engine/engine.js';

test('createEngine() picks the build the runtime supports', async () => {
  const engine = await createEngine();
  if (process.env.ATTNSCALE_EXPECT_SIMD === '0') {
    assert.equal(engine.info.simd, false, 'wasm SIMD is off in V8, so the scalar build must load');
    await assert.rejects(() => createEngine({ simd: true }), 'the SIMD build cannot compile here');
  } else {
    assert.equal(engine.info.simd, true);
  }
  const r = engine.run({ dk: 128, seqLen: 256, scale: 'none' });
  assert.ok(Math.abs(r.rawLogitStd - 11.31) < 0.45, `rawLogitStd ${r.rawLogitStd}`);
});
