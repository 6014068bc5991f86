// What a panel built after the start is given (web/src/app/panel-delivery.js): before the app is
// in place, everything its predecessors were given; after it, the latest run with its gradients
// and the current sweep since its reset, nothing older. And the address's parameters a panel not
// built yet keeps there (web/src/app/config-changes.js panelParams).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { panelDelivery } from '../../../web/src/app/panel-delivery.js';
import { panelParams } from '../../../web/src/app/config-changes.js';

/** A panel's API that records every call it gets, as [method, ...args]. */
function recorder() {
  const calls = [];
  const api = new Proxy(
    {},
    {
      get:
        (_, method) =>
        (...args) =>
          calls.push([method, ...args]),
    },
  );
  return { api, calls };
}

test('a panel built before finish() gets everything sent so far, its own job messages included', () => {
  const d = panelDelivery();
  d.each('update', 'run 1');
  d.one('precision', 'jobMessage', 'variant 1');
  d.one('heatmap', 'jobMessage', 'contrast');
  d.each('update', 'run 2');
  const p = recorder();
  d.add('precision', { api: p.api });
  assert.deepEqual(p.calls, [
    ['update', 'run 1'],
    ['jobMessage', 'variant 1'],
    ['update', 'run 2'],
  ]);
});

test('a panel built after finish() gets the latest run, its gradients and the current sweep, in order', () => {
  const d = panelDelivery();
  d.finish();
  d.each('update', 'run 1');
  d.each('updateGradients', 'grads 1');
  d.each('sweepReset', 26);
  d.each('sweepPoints', 'a');
  d.each('sweepDone');
  d.each('update', 'run 2'); // its gradients are on their way: run 1's are no longer the current ones
  d.each('sweepReset', 26); // a new sweep: the old one's points are gone
  d.each('sweepPoints', 'b');
  d.each('redraw'); // a repaint of the panels built so far: nothing for a later one
  d.each('sweepPoints', 'c');
  d.each('updateGradients', 'grads 2');
  const p = recorder();
  d.add('sigma', { api: p.api });
  assert.deepEqual(p.calls, [
    ['update', 'run 2'],
    ['sweepReset', 26],
    ['sweepPoints', 'b'],
    ['sweepPoints', 'c'],
    ['updateGradients', 'grads 2'],
  ]);
});

test('a failed sweep is kept until the next reset', () => {
  const d = panelDelivery();
  d.finish();
  d.each('sweepReset', 4);
  d.each('sweepPoints', 'a');
  d.each('sweepFailed', 'out of memory');
  const p = recorder();
  d.add('entropy', { api: p.api });
  assert.deepEqual(p.calls, [
    ['sweepReset', 4],
    ['sweepPoints', 'a'],
    ['sweepFailed', 'out of memory'],
  ]);
});

test("a panel's parameters in the address, as they came; none for a panel without its own", () => {
  const q = '?dk=64&trainSeed=7&quiz=5&trainCopies=sqrt,none&scale=none&questions=why-sqrt,inference';
  assert.equal(panelParams('training', q), 'trainSeed=7&trainCopies=sqrt,none');
  assert.equal(panelParams('predict', q), 'quiz=5&questions=why-sqrt,inference');
  assert.equal(panelParams('spread', q), '');
  assert.equal(panelParams('training', ''), '');
  // A malformed escape is not the panel's; the rest still is.
  assert.equal(panelParams('training', 'train%E0Seed=1&trainSteps=20'), 'trainSteps=20');
});
