// The trained sample the build ships (build-scripts/lib/make-trained-sample.mjs → dist/samples/):
// it exists, reads back as the q and k of the three default copies of the training panel's default
// run (seed 1, 500 steps) with that run in its metadata, and its attention, softmaxed here in plain
// JS from q, k and each copy's scale, is more saturated without scaling than with 1/√d_k.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { readTensorFile } from '../../../web/src/tensors/read-tensors.js';
import { pairHeads } from '../../../web/src/tensors/pair-heads.js';
import {
  DEFAULT_STOP_AT,
  copiesField,
  defaultSettings,
  trainerConfig,
} from '../../../web/src/panels/training/train-state.js';
import { bothEngines } from '../helpers.js';

const SAMPLE = fileURLToPath(new URL('../../../dist/samples/trained-sample.safetensors', import.meta.url));

function readSample() {
  assert.ok(existsSync(SAMPLE), `${SAMPLE} is missing: run \`npm run build\` first`);
  return readTensorFile(readFileSync(SAMPLE));
}

/** Row softmax of q·kᵀ·scale (T × d each) → the saturation measures of the engine's run. */
function saturation(q, k, T, d, scale) {
  let saturated = 0,
    entropy = 0,
    maxWeight = 0;
  const z = new Float64Array(T);
  for (let i = 0; i < T; i++) {
    for (let j = 0; j < T; j++) {
      let s = 0;
      for (let c = 0; c < d; c++) s += q[i * d + c] * k[j * d + c];
      z[j] = s * scale;
    }
    const m = Math.max(...z);
    let sum = 0;
    for (let j = 0; j < T; j++) sum += z[j] = Math.exp(z[j] - m);
    let top = 0;
    for (let j = 0; j < T; j++) {
      const p = z[j] / sum;
      top = Math.max(top, p);
      if (p > 0) entropy -= p * Math.log(p);
    }
    maxWeight += top;
    if (top > 0.99) saturated++;
  }
  return { saturatedFraction: saturated / T, entropy: entropy / T, maxWeight: maxWeight / T };
}

test('the trained sample: the q and k of the three default copies after the panel’s default run', async () => {
  const { format, tensors, metadata } = readSample();
  const { simd: engine } = await bothEngines();
  const schema = engine.trainSchema;
  const defaults = copiesField(schema).default;
  assert.equal(format, 'safetensors');
  assert.deepEqual(
    Object.keys(tensors),
    defaults.flatMap((c) => [`${c}.q`, `${c}.k`]),
  );
  assert.equal(metadata.seed, '1');
  assert.equal(metadata.steps, String(DEFAULT_STOP_AT));
  assert.equal(metadata.copies, defaults.join(','));
  // The run the panel starts on the page as it opens (its settings at their defaults, seed 1).
  const { cfg } = trainerConfig(engine.defaults(), { ...defaultSettings(schema), seed: 1 }, schema);
  assert.deepEqual(JSON.parse(metadata.config), cfg);
  const { dk, seqLen } = cfg;
  for (const t of Object.values(tensors)) {
    assert.equal(t.dtype, 'F32');
    assert.deepEqual(t.shape, [seqLen, dk]);
    assert.ok(t.data.every(Number.isFinite));
  }
  assert.equal(metadata['none.scale'], '1');
  assert.equal(metadata['sqrt.scale'], String(Math.fround(1 / Math.sqrt(dk))));
  assert.equal(metadata['linear.scale'], String(Math.fround(1 / dk)));
  assert.equal(metadata['sqrt.scaling'], '1/√d_k');
  assert.deepEqual(
    pairHeads(tensors).map((l) => [l.layer, l.heads, l.seqLen, l.dk]),
    ['linear.', 'none.', 'sqrt.'].map((layer) => [layer, 1, seqLen, dk]),
  );
});

test('the trained sample: the unscaled copy’s attention is more saturated than the 1/√d_k copy’s', (t) => {
  const { tensors, metadata } = readSample();
  const [T, d] = tensors['none.q'].shape;
  const measured = Object.fromEntries(
    metadata.copies
      .split(',')
      .map((c) => [
        c,
        saturation(tensors[`${c}.q`].data, tensors[`${c}.k`].data, T, d, Number(metadata[`${c}.scale`])),
      ]),
  );
  for (const [c, m] of Object.entries(measured)) {
    t.diagnostic(
      `${c}: rows with a weight > 0.99 ${m.saturatedFraction}, mean largest weight ${m.maxWeight.toFixed(4)}, ` +
        `mean entropy ${m.entropy.toFixed(4)} nats (ln T = ${Math.log(T).toFixed(4)})`,
    );
  }
  assert.ok(
    measured.none.saturatedFraction > measured.sqrt.saturatedFraction,
    `saturated rows: none ${measured.none.saturatedFraction}, sqrt ${measured.sqrt.saturatedFraction}`,
  );
  assert.ok(measured.none.entropy < measured.sqrt.entropy, 'lower entropy without scaling');
});
