// Chapter 8's model presets and the report's config.json: each model's multiplier on q·k, soft-cap
// and QK-norm follow from its published config.json fields by its modelling code's rules
// (state/model-scaling.js); the page settings they make are valid engine configs whose run uses
// that multiplier; a config.json of the wrong shape names the field and the file.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createEngine } from '../../../web/src/engine/engine.js';
import { MODEL_PRESETS } from '../../../web/src/state/model-presets.js';
import {
  llama4Temperature,
  modelScaling,
  scalingSettings,
  yarnMscale,
} from '../../../web/src/state/model-scaling.js';
import {
  configSentence,
  modelConfigOf,
  readModelConfig,
} from '../../../web/src/panels/report/model-config.js';

const byId = (id) => {
  const p = MODEL_PRESETS.find((x) => x.id === id);
  assert.ok(p, `a preset ${id}`);
  return { preset: p, s: modelScaling(p.config) };
};
// The formulas in double precision: the same operations in the same order give the same bits, so
// 1e-12 relative only allows for a different but equivalent order.
const close = (got, want, what) =>
  assert.ok(Math.abs(got - want) <= 1e-12 * Math.abs(want), `${what}: ${got} vs ${want}`);

test('every preset names its model, repository and modelling code, and reads without problems', () => {
  assert.equal(MODEL_PRESETS.length, 7);
  for (const p of MODEL_PRESETS) {
    assert.ok(p.title && p.repo && p.code.includes('.py'), p.id);
    const s = modelScaling(p.config);
    assert.deepEqual(s.problems, [], p.id);
    assert.ok(s.dk > 0 && s.multiplier > 0, p.id);
  }
});

test('GPT-2: n_embd 768 / n_head 12 = 64, × 1/8; Llama 3 8B: 4096 / 32 = 128, × 128^−0.5', () => {
  const gpt2 = byId('gpt2').s;
  assert.equal(gpt2.dk, 64);
  assert.equal(gpt2.multiplier, 1 / 8);
  const llama = byId('llama-3-8b').s;
  assert.equal(llama.dk, 128);
  close(llama.multiplier, 128 ** -0.5, 'Llama 3 8B');
  for (const s of [gpt2, llama]) assert.deepEqual([s.softcap, s.qkNorm], [0, 'none']);
});

test('Gemma 2 27B: query_pre_attn_scalar 144, head_dim 128 → × 1/12 (not 128^−0.5), soft-cap 50', () => {
  const { preset, s } = byId('gemma-2-27b');
  assert.equal(preset.config.query_pre_attn_scalar, 144);
  assert.equal(preset.config.head_dim, 128);
  assert.equal(s.dk, 128);
  close(s.multiplier, 1 / 12, 'Gemma 2 27B');
  assert.ok(Math.abs(s.multiplier - 128 ** -0.5) > 0.005, 'differs from 1/√d_k ≈ 0.0884');
  assert.equal(s.softcap, 50);
  assert.equal(s.qkNorm, 'none');
});

test('Gemma 2 9B: query_pre_attn_scalar 256 = head_dim 256 → × 1/16, soft-cap 50', () => {
  const { preset, s } = byId('gemma-2-9b');
  assert.equal(preset.config.query_pre_attn_scalar, preset.config.head_dim);
  close(s.multiplier, 1 / 16, 'Gemma 2 9B');
  assert.equal(s.softcap, 50);
});

test('Qwen3 8B: × 128^−0.5 with an RMS norm of q and k; Llama 4 Scout: the same, temperature 1 below 8191', () => {
  const qwen = byId('qwen3-8b').s;
  close(qwen.multiplier, 128 ** -0.5, 'Qwen3 8B');
  assert.equal(qwen.qkNorm, 'rms');
  const llama4 = byId('llama-4-scout').s;
  assert.equal(llama4.dk, 128);
  close(llama4.multiplier, 128 ** -0.5, 'Llama 4 Scout');
  assert.equal(llama4.qkNorm, 'rms');
  assert.match(llama4.notes.join(' '), /attn_temperature_tuning/);
  // 1 + 0.1·ln(⌊(i + 1)/8192⌋ + 1): exactly 1 up to i = 8190, then 1 + 0.1·ln 2.
  assert.equal(llama4Temperature(8190, 8192, 0.1), 1);
  close(llama4Temperature(8191, 8192, 0.1), 1 + 0.1 * Math.log(2), 'Llama 4 at 8191');
});

test('DeepSeek-V3: d_k 128 + 64 = 192, × 192^−0.5 · (0.1·mscale_all_dim·ln factor + 1)² ≈ 0.1352', () => {
  const { preset, s } = byId('deepseek-v3');
  const { qk_nope_head_dim: nope, qk_rope_head_dim: rope, rope_scaling: rs } = preset.config;
  assert.equal(s.dk, nope + rope);
  assert.equal(s.dk, 192);
  const mscale = 0.1 * rs.mscale_all_dim * Math.log(rs.factor) + 1;
  close(s.multiplier, 192 ** -0.5 * mscale * mscale, 'DeepSeek-V3');
  assert.equal(Number(s.multiplier.toFixed(4)), 0.1352);
  assert.equal(yarnMscale(1, 1), 1, 'no scaling at factor 1');
});

test('the page settings are valid engine configs, and a run uses the model’s multiplier', async () => {
  const engine = await createEngine({ simd: false });
  try {
    for (const p of MODEL_PRESETS) {
      const s = modelScaling(p.config);
      const set = scalingSettings(s);
      const r = engine.run({ ...set, seqLen: 16 });
      // The engine reports the float32 multiplier it used.
      assert.equal(r.scaleFactor, Math.fround(s.multiplier), p.id);
      assert.equal(r.config.softcap, s.softcap, p.id);
      assert.equal(r.config.qkNorm, s.qkNorm, p.id);
    }
    assert.equal(scalingSettings(byId('gpt2').s).scale, 'sqrt', 'exactly 1/√d_k is named');
    assert.equal(typeof scalingSettings(byId('gemma-2-27b').s).scale, 'number');
  } finally {
    engine.delete();
  }
});

test('a report’s config.json: the fields used, the multiplier and the soft-cap', () => {
  const cfg = modelConfigOf(byId('gemma-2-27b').preset.config, 'config.json');
  close(cfg.multiplier, 1 / 12, 'config multiplier');
  assert.equal(cfg.softcap, 50);
  const text = configSentence(cfg, [128]);
  assert.match(text, /query_pre_attn_scalar = 144 → × 144\^−0\.5 = 1\/12/);
  assert.match(text, /attn_logit_softcapping = 50/);
  assert.doesNotMatch(text, /not the config’s head dim/);
  assert.match(configSentence(cfg, [64]), /not the config’s head dim 128/);
  // Qwen3's QK-norm is in the captured q and k already: named, not applied again.
  assert.match(
    configSentence(modelConfigOf(byId('qwen3-8b').preset.config, 'config.json'), [128]),
    /not applied again/,
  );
});

test('a bad config.json names the file and the field, and the report falls back to 1/√d_k', async () => {
  const wrongType = modelConfigOf({ model_type: 'gemma2', head_dim: '128' }, 'config.json');
  assert.equal(wrongType.multiplier, null);
  assert.deepEqual(wrongType.problems, [
    'config.json: head_dim is the string "128"; it must be a positive integer.',
  ]);
  assert.match(configSentence(wrongType, [128]), /measured with 1\/√d_k/);
  const cap = modelConfigOf({ head_dim: 64, attn_logit_softcapping: -1 }, 'm.json');
  assert.match(
    cap.problems[0],
    /^m\.json: attn_logit_softcapping is -1; it must be a positive number in \(0, 1000\]/,
  );
  assert.equal(cap.softcap, null);
  const none = modelConfigOf({ vocab_size: 32000 }, 'config.json');
  assert.equal(none.multiplier, null);
  assert.match(configSentence(none, [64]), /No field of config\.json gives the multiplier/);
  const notJson = await readModelConfig({ blob: new Blob(['{"head_dim": 128,']), name: 'config.json' });
  assert.equal(notJson.multiplier, null);
  assert.match(notJson.problems[0], /^config\.json is not JSON \(/);
  const list = modelConfigOf([128], 'config.json');
  assert.match(list.problems[0], /top level is \[128\]; it must be an object/);
});
