// The floor the sweep job puts on each exact point (web/src/compute/jobs/sweep.js): B(n, σ̂) with
// σ̂ = (logitMax − logitMin)·√n / 2 bounds every row's centred norm, so the floor lies at or below
// the point's mean row entropy, with and without a causal mask, at every scaling; the estimates
// carry none. Tolerance: the floor and the mean entropy are computed in float64 and float32 sums
// respectively, so the check allows 1e-6 nats (the float32 mean's rounding at ln T ≈ 5.5).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createEngine } from '../../../web/src/engine/engine.js';
import { sweepJob } from '../../../web/src/compute/jobs/sweep.js';

const DKS = [1, 4, 16, 64, 256, 1024];
const SCALES = ['none', 'sqrt', 'linear'];

function drain(engine, m) {
  const posted = [];
  const job = sweepJob(engine, { session: 1, id: 1, ...m }, (msg) => posted.push(msg), 1e9);
  while (job.next());
  job.dispose();
  return posted.filter((p) => p.type === 'sweepPoints');
}

test('every exact point’s entropy floor is at or below its mean row entropy', async () => {
  const engine = await createEngine();
  for (const causal of [false, true])
    for (const cfg of [
      { seqLen: 64, causal },
      { seqLen: 128, causal, mean: 0.5, correlation: 0.5 },
      { seqLen: 32, causal, softcap: 5 },
    ]) {
      const points = drain(engine, { cfg, dks: DKS, scales: SCALES });
      assert.equal(points.length, DKS.length);
      let positive = 0;
      for (const { dk, points: byScale } of points)
        for (const [scale, p] of Object.entries(byScale)) {
          const where = `${JSON.stringify(cfg)} d_k ${dk} ${scale}`;
          assert.ok(Number.isFinite(p.entropyFloor), where);
          assert.ok(p.entropyFloor >= 0, where);
          assert.ok(p.entropyFloor <= p.entropy + 1e-6, `${where}: ${p.entropyFloor} > ${p.entropy}`);
          if (p.entropyFloor > 0.1) positive += 1;
        }
      assert.ok(positive > 0, 'the floor is not 0 everywhere (1/d_k at large d_k)');
    }
});

test('sweep estimates carry no floor: their range is a sample’s', async () => {
  const engine = await createEngine();
  const points = drain(engine, { cfg: { seqLen: 512 }, dks: [64], scales: ['sqrt'], estimateRows: 128 });
  assert.equal(points[0].estimate, true);
  assert.equal(points[0].points.sqrt.entropyFloor, undefined);
});
