// The training panel's pure state (web/src/panels/training/train-state.js) against the real engine: the clamps of
// the page's values, the one-click comparisons (they must reproduce the numbers they quote, which
// come from the training findings in docs/science.md), the 90 % rule and the text summary.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { bothEngines } from '../../helpers.js';
import { noticeText } from '../../../../web/src/state/state.js';
import {
  trainerConfig,
  defaultSettings,
  coerceSetting,
  copiesOf,
  stepReaching,
  summarize,
  REACH_WINDOW,
  METRICS,
  settingsFromQuery,
  settingsToQuery,
  copiesField,
  coerceCopies,
} from '../../../../web/src/panels/training/train-state.js';
import {
  FINDINGS_PRESETS,
  PRESET_PAGE_BASE,
  TRAIN_PRESETS,
} from '../../../../web/src/state/study-presets.js';

const PAGE = { dk: 64, seqLen: 32, precision: 'fp32', saturate: false, scale: 'sqrt' };

test('train-state: the page’s values pass through when they fit, are clamped with a note when not', async () => {
  const { simd } = await bothEngines();
  const schema = simd.trainSchema;
  const settings = defaultSettings(schema);
  assert.deepEqual(settings, {
    optimizer: 'adam',
    learningRate: 1e-3,
    initScale: 1,
    batchSize: 16,
    seed: 1,
    stopAt: 500,
    copies: ['none', 'sqrt', 'linear'],
  });

  const ok = trainerConfig(PAGE, settings, schema);
  assert.deepEqual(ok.notes, []);
  assert.deepEqual(ok.cfg, {
    dk: 64,
    seqLen: 32,
    batchSize: 16,
    optimizer: 'adam',
    learningRate: 1e-3,
    initScale: 1,
    precision: 'fp32',
    saturate: false,
    seed: 1,
  });
  assert.deepEqual(simd.train(ok.cfg).config, { ...ok.cfg }, 'the engine takes the derived config as it is');

  const longT = trainerConfig({ ...PAGE, seqLen: 256 }, settings, schema);
  assert.equal(longT.cfg.seqLen, 128);
  assert.match(longT.notes[0], /T = 256 is above the trainer's range 8\.\.128: training uses T = 128/);

  const capped = trainerConfig({ ...PAGE, dk: 4096, seqLen: 2048 }, settings, schema);
  assert.equal(capped.cfg.seqLen, 128);
  assert.equal(capped.cfg.batchSize, 4); // 4096 · 128 · 4 = 2^21
  assert.equal(capped.notes.length, 2);
  assert.match(capped.notes[1], /cost cap of 2097152: training uses batch size 4/);
  const t = simd.train(capped.cfg); // accepted by the engine
  t.delete();

  const custom = trainerConfig({ ...PAGE, scale: 0.05 }, settings, schema);
  assert.equal(custom.cfg.scale, 0.05);
  assert.deepEqual(copiesOf(custom.cfg, schema), ['none', 'sqrt', 'linear', 'custom']);

  assert.deepEqual(coerceSetting(schema, 'learningRate', '20'), {
    value: 10,
    notice: 'learningRate=20 is above the allowed range 0.000001..10; using learningRate=10.',
  });
  assert.equal(coerceSetting(schema, 'batchSize', '3.6').value, 4);
  assert.equal(coerceSetting(schema, 'stopAt', '-3').value, 0);
});

test('train-state: the d_k 64 and d_k 256 comparisons reproduce the quoted steps to 90 %, and the summary says so', async () => {
  const { simd } = await bothEngines();
  const schema = simd.trainSchema;
  for (const [id, steps] of [
    ['dk64', 200],
    ['dk256', 120],
  ]) {
    const p = TRAIN_PRESETS.find((x) => x.id === id);
    const { cfg, notes } = trainerConfig(
      { ...PAGE, ...PRESET_PAGE_BASE, ...p.page },
      { ...defaultSettings(schema), ...p.train },
      schema,
    );
    assert.deepEqual(notes, []);
    const t = simd.train(cfg);
    const r = t.step(steps);
    t.delete();
    const run = { cfg, steps: Array.from(r.step), copies: {}, reached: {} };
    for (const c of copiesOf(cfg, schema)) {
      run.copies[c] = Object.fromEntries(METRICS.map((m) => [m, Array.from(r.copies[c][m])]));
      // Incremental use (chunks of 7) gives the same answer as one pass.
      const st = { sum: 0, at: null, next: 0 };
      for (let n = 7; n < steps + 7; n += 7) stepReaching(run.steps, run.copies[c].accuracy.slice(0, n), st);
      run.reached[c] = st.at;
      assert.equal(st.at, stepReaching(run.steps, run.copies[c].accuracy));
    }
    const quoted = Number(/1\/√d_k (\d+)/.exec(p.measured)[1]);
    assert.equal(run.reached.sqrt, quoted, `${id}: 1/√d_k reaches 90 % at the quoted step`);
    const text = summarize(run, schema, simd.schema);
    assert.match(
      text,
      new RegExp(`Reached 90% \\(mean of ${REACH_WINDOW} steps\\): 1/√d_k at step ${quoted}`),
    );
    // Whichever is larger is named (at step 200 of d_k 64 the learning 1/√d_k copy's is).
    assert.match(text, /: the (unscaled|1\/√d_k) copy's is [\d.]+× the (1\/√d_k|unscaled) copy's\./);
  }
  assert.match(summarize({ cfg: null, steps: [] }, schema, simd.schema), /No steps yet/);
});

test('train-state: the settings in the URL: own names, defaults left out, bad values clamped with a notice', async () => {
  const { simd } = await bothEngines();
  const schema = simd.trainSchema;
  const defaults = defaultSettings(schema);
  assert.equal(settingsToQuery(defaults, schema), '', 'the defaults add nothing to the URL');
  assert.deepEqual(settingsFromQuery('', schema), { settings: defaults, notices: [] });
  // The page's own seed is not the trainer's.
  assert.deepEqual(settingsFromQuery('seed=9&dk=16', schema).settings, defaults);

  const chosen = {
    ...defaults,
    optimizer: 'sgd',
    learningRate: 1,
    initScale: 0.5,
    batchSize: 8,
    seed: 3,
    stopAt: 0,
  };
  const q = settingsToQuery(chosen, schema);
  assert.equal(
    q,
    'trainOptimizer=sgd&trainLearningRate=1&trainInitScale=0.5&trainBatchSize=8&trainSeed=3&trainStopAt=0',
  );
  assert.deepEqual(settingsFromQuery(q, schema), { settings: chosen, notices: [] });
  assert.equal(settingsToQuery({ ...defaults, seed: 2 }, schema), 'trainSeed=2');

  const bad = settingsFromQuery(
    'trainLearningRate=20&trainOptimizer=rmsprop&trainBatchSize=2.5&trainStopAt=-4&trainInitScale=abc',
    schema,
  );
  assert.deepEqual(bad.settings, { ...defaults, learningRate: 10, batchSize: 3, stopAt: 0 });
  const byField = Object.fromEntries(bad.notices.map((n) => [n.field, n]));
  assert.deepEqual(Object.keys(byField).sort(), [
    'trainBatchSize',
    'trainInitScale',
    'trainLearningRate',
    'trainOptimizer',
    'trainStopAt',
  ]);
  assert.match(
    noticeText(byField.trainLearningRate),
    /^trainLearningRate=20 is above the allowed range 0\.000001\.\.10; using trainLearningRate=10\.$/,
  );
  assert.match(
    noticeText(byField.trainOptimizer),
    /trainOptimizer=rmsprop is not one of adam, sgd; using trainOptimizer=adam/,
  );
  // What a clamped URL holds once written back: no bad value left.
  assert.deepEqual(settingsFromQuery(settingsToQuery(bad.settings, schema), schema).notices, []);
});

test("train-state: picked copies go to engine.train as named copies; the default three stay the trainer's defaults", async () => {
  const { simd } = await bothEngines();
  const schema = simd.trainSchema;
  const settings = { ...defaultSettings(schema), copies: ['sqrt', 'rms_sqrt', 'none_cap50'] };
  const { cfg, notes } = trainerConfig(PAGE, settings, schema);
  assert.deepEqual(notes, []);
  // Each as the training schema offers it: every field given.
  const copy = (name, spec) => ({ name, scale: 'sqrt', qkNorm: 'none', softcap: 0, lengthScale: 0, ...spec });
  assert.deepEqual(cfg.copies, [
    copy('sqrt'),
    copy('rms_sqrt', { qkNorm: 'rms' }),
    copy('none_cap50', { scale: 'none', softcap: 50 }),
  ]);
  assert.deepEqual(copiesOf(cfg, schema), ['sqrt', 'rms_sqrt', 'none_cap50']);
  const t = simd.train(cfg);
  assert.deepEqual(Object.keys(t.step(2).copies), ['sqrt', 'rms_sqrt', 'none_cap50']);
  t.delete();
  // With a custom multiplier it is one more copy; with all eight picked there is no room for it (said).
  assert.deepEqual(copiesOf(trainerConfig({ ...PAGE, scale: 0.05 }, settings, schema).cfg, schema), [
    'sqrt',
    'rms_sqrt',
    'none_cap50',
    'custom',
  ]);
  const all = trainerConfig(
    { ...PAGE, scale: 0.05 },
    { ...settings, copies: copiesField(schema).choices.map((c) => c.name) },
    schema,
  );
  assert.equal(all.cfg.copies.length, 8);
  assert.match(all.notes[0], /at most 8 copies/);
  // The defaults in any order are the defaults: no `copies` field, the trainer's own three.
  assert.equal(
    trainerConfig(PAGE, { ...settings, copies: ['linear', 'none', 'sqrt'].sort() }, schema).cfg.copies,
    undefined,
  );
  assert.deepEqual(coerceCopies(['linear', 'sqrt', 'none'], schema).copies, ['none', 'sqrt', 'linear']);
});

test('train-state: trainCopies in the URL round-trips; unknown names are dropped with a notice', async () => {
  const { simd } = await bothEngines();
  const schema = simd.trainSchema;
  const defaults = defaultSettings(schema);
  const chosen = { ...defaults, copies: ['none', 'rms_sqrt', 'sqrt_logn'] };
  const q = settingsToQuery(chosen, schema);
  assert.equal(q, 'trainCopies=none,rms_sqrt,sqrt_logn');
  assert.deepEqual(settingsFromQuery(q, schema), { settings: chosen, notices: [] });
  assert.equal(
    settingsToQuery({ ...chosen, seed: 2 }, schema),
    'trainSeed=2&trainCopies=none,rms_sqrt,sqrt_logn',
  );
  const bad = settingsFromQuery('trainCopies=sqrt,flash,rms_sqrt,sqrt', schema);
  assert.deepEqual(bad.settings.copies, ['sqrt', 'rms_sqrt']);
  assert.match(
    noticeText(bad.notices[0]),
    /^trainCopies=sqrt,flash,rms_sqrt,sqrt names unknown copies \(flash; known: none, sqrt, .*\); using trainCopies=sqrt,rms_sqrt\.$/,
  );
  const empty = settingsFromQuery('trainCopies=', schema);
  assert.deepEqual(empty.settings.copies, ['none', 'sqrt', 'linear']);
  assert.match(noticeText(empty.notices[0]), /picks no copy; using trainCopies=none,sqrt,linear/);
});

test('train-state: the QK-norm finding repeats: at init 2, d_k 256 RMS-norm + 1/√d_k reaches 90 % at the quoted step', async () => {
  const { simd } = await bothEngines();
  const schema = simd.trainSchema;
  const p = FINDINGS_PRESETS.find((x) => x.id === 'qknorm-init2');
  const { cfg } = trainerConfig(
    { ...PAGE, ...PRESET_PAGE_BASE, ...p.page },
    { ...defaultSettings(schema), ...p.train },
    schema,
  );
  const quoted = Number(/RMS-norm \+ 1\/√d_k (\d+)/.exec(p.measured)[1]);
  const t = simd.train(cfg);
  const r = t.step(quoted);
  t.delete();
  assert.equal(stepReaching(Array.from(r.step), Array.from(r.copies.rms_sqrt.accuracy)), quoted);
});
