// The drill's settings in the URL and on the element (web/src/panels/predict/drill-params.js): a
// seed, a chosen set, one question alone; bad values fall back to the defaults with a notice.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseDrillQuery, drillQuery } from '../../../../web/src/panels/predict/drill-params.js';
import { DEFAULT_SEED, QUESTION_IDS } from '../../../../web/src/panels/predict/questions.js';
import { noticeText } from '../../../../web/src/state/state.js';

test('no drill parameters: the default seed and every question, no notice, an empty query', () => {
  const r = parseDrillQuery('?dk=64');
  assert.deepEqual(r, { seed: DEFAULT_SEED, ids: [...QUESTION_IDS], notices: [] });
  assert.equal(drillQuery(r), '');
});

test('quiz, questions and question are read, and written back the same way', () => {
  const a = parseDrillQuery('quiz=42&questions=mistake-dk,why-sqrt');
  assert.deepEqual(a, { seed: 42, ids: ['mistake-dk', 'why-sqrt'], notices: [] });
  assert.equal(drillQuery(a), 'quiz=42&questions=mistake-dk,why-sqrt');
  const b = parseDrillQuery('question=inference&questions=why-sqrt&quiz=4294967295');
  assert.deepEqual(b, { seed: 4294967295, ids: ['inference'], notices: [] });
  assert.equal(drillQuery(b), 'quiz=4294967295&question=inference');
  assert.deepEqual(parseDrillQuery('questions=inference').ids, ['inference']);
});

test('a seed that is not a whole number in range: the default seed, and a notice that says why', () => {
  for (const bad of ['abc', '-1', '1.5', '4294967296', '', '1e3']) {
    const r = parseDrillQuery(`quiz=${encodeURIComponent(bad)}`);
    assert.equal(r.seed, DEFAULT_SEED, bad);
    assert.equal(r.notices.length, 1, bad);
    assert.match(
      noticeText(r.notices[0]),
      /^quiz=.* is not a whole number in \[0, 4294967295\]; using quiz=1\.$/,
    );
  }
});

test('an unknown question id: dropped with a notice; none left is the default set', () => {
  const one = parseDrillQuery('question=nope');
  assert.deepEqual(one.ids, [...QUESTION_IDS]);
  assert.match(
    noticeText(one.notices[0]),
    /^question=nope names no question of the drill \(sigma-growth, .*\); using question=every question\.$/,
  );
  const some = parseDrillQuery('questions=why-sqrt,nope,WHY-SQRT,mistake-dk');
  assert.deepEqual(some.ids, ['why-sqrt', 'mistake-dk']);
  assert.equal(some.notices[0].given, 'nope');
  assert.equal(parseDrillQuery('questions=').notices.length, 1);
  // A hostile value is cut short in the notice, and never becomes markup (the page shows text).
  const long = parseDrillQuery(`question=${encodeURIComponent('<img src=x>'.repeat(10))}`);
  assert.ok(long.notices[0].given.length <= 41);
});
