// The drill's questions (web/src/panels/predict/) against the real wasm engine: every question's
// measured number, from its Worker job called as compute/worker.js calls it, equals the engine's
// own forwardStats (run for the questions that read the weights) on the config the question
// publishes in data-config, at two seeds; the verdict follows each stated tolerance on both sides;
// a seed always gives the same set.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { createEngine } from '../../../../web/src/engine/engine.js';
import {
  buildSet,
  judge,
  settingText,
  toleranceText,
  QUESTION_IDS,
} from '../../../../web/src/panels/predict/questions.js';
import { workerJobs, rowSumError } from '../../../../web/src/panels/predict/predict-job.js';
import { meta } from '../../../../web/src/panels/predict/meta.js';

const SEEDS = [1, 90210];
let engine;
before(async () => {
  engine = await createEngine();
});

/** The job's answer to a question's check, run to its end. */
function measure(q) {
  let out = null;
  const job = workerJobs.predict(
    engine,
    { session: 1, id: 7, configs: q.configs, rowSums: !!q.def.rowSums },
    (m) => {
      out = m;
    },
  );
  while (job.next());
  job.dispose();
  assert.equal(out.type, 'predictMeasured');
  assert.equal(out.id, 7);
  return out.measured;
}

/** The configs as the card publishes them in data-config (JSON: one config, or an array of two). */
const publishedConfigs = (q) => {
  const parsed = JSON.parse(JSON.stringify(q.configs.length > 1 ? q.configs : q.configs[0]));
  return Array.isArray(parsed) ? parsed : [parsed];
};

test('the drill holds at least 8 questions: core ones, follow-ups and common mistakes, number and choice', () => {
  const { questions, notices } = buildSet(QUESTION_IDS, 1, engine.schema);
  assert.deepEqual(notices, []);
  assert.ok(questions.length >= 8);
  assert.deepEqual(
    questions.map((q) => q.id),
    meta.questions.map((q) => q.id),
  );
  const count = (k, v) => questions.filter((q) => q[k] === v).length;
  assert.ok(count('group', 'core') >= 2);
  assert.equal(count('group', 'follow-up'), 3);
  assert.equal(count('group', 'mistake'), 3);
  assert.ok(count('kind', 'number') >= 3 && count('kind', 'choice') >= 3);
  for (const q of questions) {
    assert.ok(q.prompt.length > 40, q.id);
    assert.match(toleranceText(q), /^Close when/, q.id);
    assert.match(settingText(q.configs, q.lists), /d_k \d+.*T \d+.*scaling/, q.id);
  }
});

for (const seed of SEEDS)
  test(`seed ${seed}: each question's measured value is the engine's own on its data-config`, () => {
    const { questions } = buildSet(QUESTION_IDS, seed, engine.schema);
    for (const q of questions) {
      const measured = measure(q);
      const configs = publishedConfigs(q);
      assert.equal(measured.length, configs.length, q.id);
      configs.forEach((cfg, i) => {
        const own = q.def.rowSums ? engine.run(cfg) : engine.forwardStats(cfg);
        // Bit for bit: the same engine, the same config, the same samples.
        assert.equal(measured[i][q.quantity], own[q.quantity], `${q.id} config ${i}`);
      });
      assert.ok(Number.isFinite(judge(q, q.kind === 'number' ? 1 : 'x', measured).value), q.id);
      if (q.def.rowSums)
        assert.ok(
          measured.every((m) => m.rowSumError < 1e-4),
          q.id,
        );
    }
  });

test('a number question’s verdict follows its tolerance on both sides of it', () => {
  for (const seed of SEEDS) {
    const { questions } = buildSet(QUESTION_IDS, seed, engine.schema);
    for (const q of questions.filter((x) => x.kind === 'number')) {
      const measured = measure(q);
      const m = measured[0][q.quantity];
      const { factor, within } = q.def.answer.tolerance;
      const verdict = (p) => judge(q, p, measured).verdict;
      // 0.1 % inside and outside the edge: clear of rounding, which is far smaller.
      const pairs = factor
        ? [
            [m * factor * 0.999, m * factor * 1.001],
            [m / (factor * 0.999), m / (factor * 1.001)],
          ]
        : [
            [m + within * 0.99, m + within * 1.01],
            [m - within * 0.99, m - within * 1.01],
          ];
      for (const [inside, outside] of pairs) {
        assert.equal(verdict(inside), 'close', `${q.id} at seed ${seed}: ${inside} against ${m}`);
        assert.equal(verdict(outside), 'off', `${q.id} at seed ${seed}: ${outside} against ${m}`);
      }
      assert.equal(judge(q, m, measured).value, m);
    }
  }
});

test('a choice question is judged on the measured numbers: the option they pick is close, every other off', () => {
  const { questions } = buildSet(QUESTION_IDS, 1, engine.schema);
  for (const q of questions.filter((x) => x.kind === 'choice')) {
    const measured = measure(q);
    const { answer } = judge(q, q.def.options[0].value, measured);
    assert.ok(
      q.def.options.some((o) => o.value === answer),
      q.id,
    );
    for (const o of q.def.options)
      assert.equal(
        judge(q, o.value, measured).verdict,
        o.value === answer ? 'close' : 'off',
        `${q.id}: ${o.value}`,
      );
  }
});

test('choice rules at the numbers they name: σ grows like √d_k, the median row’s Jacobian collapses', () => {
  const { questions } = buildSet(
    ['sigma-growth', 'saturation-gradient', 'mistake-normalizes'],
    1,
    engine.schema,
  );
  const answers = questions.map((q) => judge(q, null, measure(q)).answer);
  assert.deepEqual(answers, ['x4', 'collapses', 'peaked']);
});

test('a seed gives the same set every time; another seed another set', () => {
  const a = buildSet(QUESTION_IDS, 42, engine.schema).questions.map((q) => q.configs);
  const b = buildSet(QUESTION_IDS, 42, engine.schema).questions.map((q) => q.configs);
  const c = buildSet(QUESTION_IDS, 43, engine.schema).questions.map((q) => q.configs);
  assert.deepEqual(a, b);
  assert.notDeepEqual(a, c);
  // Every config of a question shares its sample seed: two settings are compared on the same q and k.
  for (const configs of a) assert.equal(new Set(configs.map((cfg) => cfg.seed)).size, 1);
});

test('a question whose setting the engine refuses is left out with a notice naming the field and range', () => {
  const narrow = engine.schema.map((f) => (f.name === 'dk' ? { ...f, max: 100 } : f));
  const { questions, notices } = buildSet(QUESTION_IDS, 1, narrow);
  assert.ok(questions.length > 0 && questions.length < QUESTION_IDS.length);
  for (const q of questions) for (const cfg of q.configs) assert.ok(cfg.dk <= 100, q.id);
  assert.ok(notices.length > 0);
  for (const n of notices) {
    assert.equal(n.field, 'question');
    assert.match(n.reason, /dk=\d+ is outside the engine's range \[1, 100\]/);
  }
});

test('rowSumError: the largest |row sum − 1| over the rows without inf or NaN', () => {
  const w = new Float32Array([0.5, 0.5, 0.25, 0.5, NaN, 1]);
  assert.equal(rowSumError(w.subarray(0, 4), 2), 0.25);
  assert.equal(rowSumError(new Float32Array([0.5, 0.5, NaN, 0.5]), 2), 0);
});

test('the job refuses a request without configs, and passes the engine’s error for a bad one', () => {
  assert.throws(() => workerJobs.predict(engine, { configs: [] }, () => {}), /configs must list 1 to 4/);
  const job = workerJobs.predict(engine, { session: 1, id: 1, configs: [{ dk: 0 }] }, () => {});
  assert.throws(() => job.next(), /dk/);
});
