// How the engine client delivers a run in two parts (web/src/compute/engine-client.js): the
// forward at once, the whole result when its backward arrives; a backward of a run the page no
// longer shows is dropped; a newer setting waits for the forward only.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createEngineClient } from '../../../web/src/compute/engine-client.js';
import { fakeWorker } from './fake-worker.js';

function setup() {
  const fg = fakeWorker();
  const client = createEngineClient(fg);
  const seen = [];
  const session = client.openSession({
    onRun: (result, cfg) => seen.push(['forward', cfg.dk, result.gradNormQ]),
    onRunGradients: (result, cfg) => seen.push(['whole', cfg.dk, result.gradNormQ, result.entropy]),
    onError: (m) => seen.push(['error', m.kind]),
  });
  const runs = () => fg.sent.filter((m) => m.type === 'run');
  const forward = (m, pending = true) =>
    fg.answer({
      type: 'run',
      session: session.id,
      id: m.id,
      cfg: m.cfg,
      result: { gradNormQ: pending ? NaN : 1, entropy: 2, backwardPending: pending },
    });
  const gradients = (m) =>
    fg.answer({
      type: 'runGradients',
      session: session.id,
      id: m.id,
      scalars: { gradNormQ: 0.5 },
      workerMs: 1,
    });
  return { fg, session, seen, runs, forward, gradients };
}

test('the forward is delivered at once and the whole result when its backward arrives', () => {
  const { fg, session, seen, runs, forward, gradients } = setup();
  session.run({ dk: 64 });
  const [m] = runs();
  forward(m);
  assert.deepEqual(seen, [['forward', 64, NaN]]);
  // The session's first result: the Worker may start the backward at once (later ones wait for
  // the page's next frame).
  assert.ok(fg.sent.some((x) => x.type === 'runShown' && x.id === m.id));
  gradients(m);
  assert.deepEqual(seen, [
    ['forward', 64, NaN],
    ['whole', 64, 0.5, 2],
  ]);
  gradients(m); // once only
  assert.equal(seen.length, 2);
});

test('the next setting is sent once the forward is in; the older backward is then dropped', () => {
  const { session, seen, runs, forward, gradients } = setup();
  session.run({ dk: 64 });
  session.run({ dk: 128 }); // waits for the first forward
  assert.equal(runs().length, 1);
  const [first] = runs();
  forward(first);
  assert.equal(runs().length, 2, 'sent after the forward, not after the backward');
  const second = runs()[1];
  forward(second);
  gradients(first); // the Worker had finished it before the newer run arrived: stale now
  gradients(second);
  assert.deepEqual(
    seen.map(([kind, dk]) => [kind, dk]),
    [
      ['forward', 64],
      ['forward', 128],
      ['whole', 128],
    ],
  );
});

test('a result whose backward came with it is whole at once; a failed backward is an error of kind gradients', () => {
  const { fg, session, seen, runs, forward } = setup();
  session.run({ dk: 4096, seqLen: 2048 });
  forward(runs()[0], false);
  assert.deepEqual(seen, [
    ['forward', 4096, 1],
    ['whole', 4096, 1, 2],
  ]);
  session.run({ dk: 8 });
  const m = runs()[1];
  forward(m);
  fg.answer({ type: 'error', session: session.id, id: m.id, kind: 'gradients', name: 'Error', message: 'x' });
  assert.deepEqual(seen.at(-1), ['error', 'gradients']);
});

test('a Worker of its own that fails is the failure of the kinds its sessions sent it, told to every session', () => {
  const fg = fakeWorker('fg');
  const made = [];
  const client = createEngineClient(fg, () => {
    const w = fakeWorker(`own${made.length}`);
    made.push(w);
    return w;
  });
  const seen = [];
  const own = client.openSession({ onError: (m) => seen.push(['own', m.kind]) }, { ownWorker: true });
  client.openSession({ onError: (m) => seen.push(['page', m.kind]) });
  own.request('steps', { n: 1 });
  assert.equal(made.length, 1, 'the Worker of its own starts with its first request');
  made[0].answer({ type: 'fatal', message: 'the engine could not start' });
  assert.deepEqual(seen, [
    ['own', 'steps'],
    ['page', 'steps'],
  ]);
});
