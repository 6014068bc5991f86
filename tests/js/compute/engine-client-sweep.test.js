// How the engine client (web/src/compute/engine-client.js) deals a sweep to its Workers: the sweep
// Workers and the foreground one each get tasks (sweep-tasks.js), the foreground one with short
// slices; a Worker's next task follows its answer; the sweep is done once, when every task is;
// a newer sweep cancels the older one's tasks everywhere first.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fakeClient } from './fake-worker.js';

const DKS = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096];

function setup() {
  const { client, fg, background } = fakeClient();
  const seen = { points: [], done: 0 };
  const session = client.openSession({
    sweepPoints: (m) => seen.points.push([m.dk, m.estimate]),
    sweepDone: () => (seen.done += 1),
  });
  return { fg, background, session, seen };
}

const sweepsOf = (w) => w.sent.filter((m) => m.type === 'sweep');

/** Answers every task a Worker holds: its points, then its sweepDone; → the tasks answered. */
function finish(w, session, from) {
  const tasks = sweepsOf(w).slice(from);
  for (const m of tasks) {
    for (const dk of m.dks)
      w.answer({
        type: 'sweepPoints',
        job: 'sweep',
        session,
        id: m.id,
        part: m.part,
        dk,
        estimate: !!m.estimateRows,
        points: {},
        sentAt: 0,
        startedAt: 0,
      });
    w.answer({ type: 'sweepDone', job: 'sweep', session, id: m.id, part: m.part });
  }
  return tasks.length;
}

test('a sweep at T = 2048 goes to the sweep Worker and the foreground one: estimates of every d_k, then exact points', () => {
  const { fg, background, session, seen } = setup();
  const id = session.sweep({ seqLen: 2048 }, DKS, ['none', 'sqrt', 'linear']);
  const [bg] = background;
  assert.ok(sweepsOf(bg).length >= 1 && sweepsOf(fg).length >= 1, 'both Workers got work at once');
  for (const m of sweepsOf(fg)) assert.equal(m.sliceMs, 6);
  for (const m of sweepsOf(bg)) assert.equal(m.sliceMs, undefined);
  // Drain: each Worker answers what it holds, in turn, until nothing new comes.
  const answered = new Map([
    [fg, 0],
    [bg, 0],
  ]);
  for (let guard = 0; guard < 100; guard++) {
    let progress = 0;
    for (const w of [bg, fg]) {
      const n = finish(w, session.id, answered.get(w));
      answered.set(w, answered.get(w) + n);
      progress += n;
    }
    if (!progress) break;
  }
  const all = [...sweepsOf(fg), ...sweepsOf(bg)];
  assert.ok(all.every((m) => m.id === id));
  const estimated = all.filter((m) => m.estimateRows === 128).flatMap((m) => m.dks);
  const exact = all.filter((m) => !m.estimateRows).flatMap((m) => m.dks);
  assert.deepEqual(
    [...estimated].sort((a, b) => a - b),
    DKS,
  );
  assert.deepEqual(
    [...exact].sort((a, b) => a - b),
    DKS,
  );
  assert.equal(seen.done, 1);
  assert.equal(seen.points.length, 2 * DKS.length);
  // Every estimate reached the page before the first exact point.
  const firstExact = seen.points.findIndex(([, e]) => !e);
  assert.equal(firstExact, DKS.length);
});

test('a sweep at T = 256 is exact only; a newer sweep cancels the older one on every Worker first', () => {
  const { fg, background, session } = setup();
  session.sweep({ seqLen: 256 }, DKS, ['sqrt']);
  const [bg] = background;
  assert.ok([...sweepsOf(fg), ...sweepsOf(bg)].every((m) => m.estimateRows === 0));
  const before = { fg: fg.sent.length, bg: bg.sent.length };
  const id2 = session.sweep({ seqLen: 300 }, DKS, ['sqrt']);
  for (const [w, n] of [
    [fg, before.fg],
    [bg, before.bg],
  ]) {
    const after = w.sent.slice(n);
    assert.deepEqual(after[0], { type: 'cancel', session: session.id, kind: 'sweep' }, w.name);
    assert.ok(
      after.slice(1).every((m) => m.type === 'sweep' && m.id === id2),
      w.name,
    );
  }
});
