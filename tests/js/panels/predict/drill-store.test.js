// The drill's score and last predictions (web/src/panels/predict/drill-store.js): kept per seed and
// question in localStorage, never a measured value; a browser that refuses storage keeps them for
// the visit; and the text summary a reader copies for a teacher (drill-summary.js).
import { test, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { drillStore } from '../../../../web/src/panels/predict/drill-store.js';
import { summaryText } from '../../../../web/src/panels/predict/drill-summary.js';

/** A localStorage stand-in: a Map, or one that refuses every call. */
function fakeStorage({ refuse = false } = {}) {
  const m = new Map();
  const no = () => {
    throw new Error('SecurityError: storage is disabled');
  };
  return {
    map: m,
    getItem: refuse ? no : (k) => m.get(k) ?? null,
    setItem: refuse ? no : (k, v) => m.set(k, String(v)),
    removeItem: refuse ? no : (k) => m.delete(k),
  };
}

beforeEach(() => {
  globalThis.localStorage = fakeStorage();
});

test('a prediction and its verdict, per seed and question, survive a new store (a reload)', () => {
  drillStore().put(7, 'mistake-dk', { prediction: 30, verdict: 'close' });
  const again = drillStore();
  assert.deepEqual(again.get(7, 'mistake-dk'), { prediction: 30, verdict: 'close' });
  assert.equal(again.get(8, 'mistake-dk'), undefined, 'another seed is another set');
  assert.deepEqual(JSON.parse(globalThis.localStorage.getItem('attnscale-predict')), {
    answers: { '7:mistake-dk': { prediction: 30, verdict: 'close' } },
  });
  again.clear();
  assert.equal(drillStore().get(7, 'mistake-dk'), undefined);
  assert.equal(globalThis.localStorage.getItem('attnscale-predict'), null);
});

test('refused or unreadable storage: kept for the visit, no error', () => {
  globalThis.localStorage = fakeStorage({ refuse: true });
  const s = drillStore();
  s.put(1, 'why-sqrt', { prediction: 0.03, verdict: 'close' });
  assert.deepEqual(s.get(1, 'why-sqrt'), { prediction: 0.03, verdict: 'close' });
  s.clear();
  globalThis.localStorage = fakeStorage();
  globalThis.localStorage.setItem('attnscale-predict', '{not json');
  assert.equal(drillStore().get(1, 'why-sqrt'), undefined);
});

test('the summary names the set, the score and each question’s last prediction', () => {
  const store = drillStore();
  store.put(3, 'a', { prediction: 0.123456, verdict: 'off' });
  store.put(3, 'b', { prediction: 'x4', verdict: 'close' });
  const cards = [
    { q: { id: 'a', title: 'Question A', kind: 'number' } },
    {
      q: {
        id: 'b',
        title: 'Question B',
        kind: 'choice',
        def: { options: [{ value: 'x4', label: 'About 4-fold' }] },
      },
    },
    { q: { id: 'c', title: 'Question C', kind: 'number' } },
  ];
  assert.equal(
    summaryText({ seed: 3, cards, store, score: '1 of 3 within tolerance' }),
    [
      'attnscale, Test yourself, set 3 (quiz=3)',
      'Score: 1 of 3 within tolerance',
      '1. Question A: predicted 0.1235, off',
      '2. Question B: predicted About 4-fold, close',
      '3. Question C: not checked yet',
    ].join('\n'),
  );
});
