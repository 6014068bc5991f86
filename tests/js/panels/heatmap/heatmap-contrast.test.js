// The heatmap's contrast job against the real wasm engine: the weights it posts are those of the
// page's setting with the other scale, reduced for display as a run's are, and its numbers are the
// engine's own for that setting, bit for bit (the same calls in the same order, no tolerance).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createEngine } from '../../../../web/src/engine/engine.js';
import { workerJobs } from '../../../../web/src/panels/heatmap/heatmap-job.js';
import { contrastScale } from '../../../../web/src/panels/heatmap/contrast.js';
import { downsampleAttention } from '../../../../web/src/pure/downsample-attention.js';

const run = (engine, cfg) => {
  const posted = [];
  const job = workerJobs.heatmapContrast.start(engine, { session: 1, id: 7, cfg }, (m) => posted.push(m));
  assert.equal(job.next(), false, 'one step');
  return posted;
};

test('the other scale: none where the page scales, 1/√d_k where it does not', () => {
  assert.equal(contrastScale('sqrt'), 'none');
  assert.equal(contrastScale('linear'), 'none');
  assert.equal(contrastScale(0.2), 'none');
  assert.equal(contrastScale('none'), 'sqrt');
});

test('the contrast of d_k 128 at 1/√d_k: the unscaled weights, reduced as a run reduces them', async () => {
  const engine = await createEngine();
  for (const [seqLen, side] of [
    [256, 256],
    [600, 200],
  ]) {
    const cfg = engine.validate({ dk: 128, seqLen, scale: contrastScale('sqrt') });
    const [m] = run(engine, cfg);
    assert.equal(m.type, 'contrastWeights');
    assert.equal(m.heatmap.side, side);
    const want = downsampleAttention(engine.runForward(cfg).attention, seqLen, 256);
    assert.deepEqual(Array.from(m.heatmap.data), Array.from(want.data));
    const stats = engine.forwardStats(cfg);
    for (const k of ['maxWeight', 'entropy', 'saturatedFraction']) assert.equal(m.stats[k], stats[k], k);
    // Unscaled at d_k 128 the rows are sharp: the point of showing it.
    assert.ok(m.stats.maxWeight > 0.5, `mean largest weight ${m.stats.maxWeight}`);
  }
});
