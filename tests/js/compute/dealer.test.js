// The one dealer of a job's parts to the Workers (web/src/compute/dealer.js), alone and as the
// engine client's session.deal over fake Workers: the parts go out in order, a part to each Worker
// first; the next goes to whichever Worker reports one done; the results reach the page as they
// finish; a cancel stops the dealing everywhere; a failing part is reported once.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createDealer } from '../../../web/src/compute/dealer.js';
import { sweepTasks } from '../../../web/src/compute/sweep-tasks.js';
import { fakeClient } from './fake-worker.js';

/** After the promises resolved now have run their callbacks. */
const tick = () =>
  new Promise((resolve) => {
    setTimeout(resolve);
  });

const DKS = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096];

test('parts go out in order, one to each slot in turn, then one more to each slot that may hold two', () => {
  const sent = [];
  const d = createDealer({
    parts: ['a', 'b', 'c', 'd', 'e', 'f', 'g'],
    slots: 3,
    holds: () => 2,
    send: (slot, part, index) => sent.push([slot, part, index]),
  });
  assert.deepEqual(sent, [
    [0, 'a', 0],
    [1, 'b', 1],
    [2, 'c', 2],
    [0, 'd', 3],
    [1, 'e', 4],
    [2, 'f', 5],
  ]);
  // Slot 2 reports first: the next part is its own.
  assert.equal(d.done(2), false);
  assert.deepEqual(sent.at(-1), [2, 'g', 6]);
  assert.equal(d.left, 6);
  for (const i of [0, 1, 3, 4, 5]) assert.equal(d.done(i), false);
  assert.equal(d.done(6), true, 'the last part done finishes the deal');
  assert.equal(d.done(6), false, 'a part reported twice is ignored');
  assert.equal(d.done(99), false, 'a part never given is ignored');
});

test('cancel: no part is sent after it, and the parts held still count as done when they report', () => {
  const sent = [];
  const d = createDealer({ parts: [1, 2, 3, 4], slots: 2, send: (slot, part) => sent.push(part) });
  assert.deepEqual(sent, [1, 2]);
  d.cancel();
  assert.equal(d.done(0), false);
  assert.deepEqual(sent, [1, 2]);
  assert.equal(d.left, 3);
});

test('no parts: nothing is sent; more slots than parts: the extra slots get none', () => {
  const sent = [];
  assert.equal(createDealer({ parts: [], slots: 3, send: () => sent.push(1) }).left, 0);
  createDealer({ parts: ['x'], slots: 3, holds: () => 2, send: (slot) => sent.push(slot) });
  assert.deepEqual(sent, [0]);
});

test("a sweep's tasks: up to two estimates or one exact task per Worker, the next to whichever reports first, every task once", () => {
  for (const slots of [1, 2, 3, 5, 7, 13, 20, 40]) {
    const sent = [];
    const holding = new Map(); // index → [slot, task]
    const held = (slot) => [...holding.values()].filter(([s]) => s === slot).map(([, t]) => t);
    const tasks = sweepTasks(DKS, { slots: 12, estimateRows: 128 });
    const d = createDealer({
      parts: tasks,
      slots,
      holds: (task) => (task.estimateRows ? 2 : 1),
      send: (slot, task, index) => {
        const before = held(slot);
        if (task.estimateRows) assert.ok(before.length < 2, `slot ${slot} got a third estimate`);
        else assert.equal(before.length, 0, `slot ${slot} got an exact task while it held another task`);
        holding.set(index, [slot, task]);
        sent.push(task);
      },
    });
    // At first: two estimates a Worker while they last; a Worker with none gets an exact task.
    const n = tasks.length / 2;
    const first = slots <= n ? Math.min(2 * slots, n) : Math.min(slots, 2 * n);
    assert.equal(holding.size, first);
    let finished = false;
    // Workers finish in a scrambled order: the task with the smallest d_k first.
    while (holding.size) {
      const [index] = [...holding].sort((a, b) => a[1][1].dks[0] - b[1][1].dks[0])[0];
      holding.delete(index);
      assert.equal(finished, false);
      finished = d.done(index);
    }
    assert.equal(finished, true);
    assert.equal(d.left, 0);
    assert.equal(d.done(0), false, 'a task reported twice is ignored');
    assert.deepEqual(sent, tasks, `${slots} slots: the tasks go out in queue order`);
  }
});

/** A client over a foreground Worker and one sweep Worker, and a session recording what reaches the page. */
function setup() {
  const { client, fg, background } = fakeClient();
  const seen = [];
  const session = client.openSession({
    layerRow: (m) => seen.push(['row', m.part, m.value]),
    onError: (m) => seen.push(['error', m.kind, m.message]),
  });
  const partsOf = (w) => w.sent.filter((m) => m.type === 'layers');
  /** Worker `w` answers part message `m`: a row, then the part's done message. */
  const answer = (w, m, value = m.part * 10) => {
    w.answer({ type: 'layerRow', job: 'layers', session: session.id, id: m.id, part: m.part, value });
    w.answer({ type: 'layersDone', job: 'layers', session: session.id, id: m.id, part: m.part });
  };
  return { fg, background, session, seen, partsOf, answer };
}

test('session.deal: the foreground Worker first, then the sweep Worker; each takes the next part when it reports one done', () => {
  const { fg, background, session, seen, partsOf, answer } = setup();
  const done = [];
  let finished = 0;
  const id = session.deal('layers', ['L0', 'L1', 'L2', 'L3', 'L4'], {
    message: (layer) => ({ layer }),
    partDone: (m) => done.push(m.part),
    finished: () => (finished += 1),
  });
  const [bg] = background;
  assert.equal(session.slots, 2);
  assert.deepEqual(
    partsOf(fg).map((m) => [m.layer, m.part, m.id, m.session]),
    [['L0', 0, id, session.id]],
  );
  assert.deepEqual(
    partsOf(bg).map((m) => m.layer),
    ['L1'],
  );
  // The sweep Worker is faster: it finishes its part, gets L2, finishes it, gets L3.
  answer(bg, partsOf(bg)[0]);
  answer(bg, partsOf(bg)[1]);
  assert.deepEqual(
    partsOf(bg).map((m) => m.layer),
    ['L1', 'L2', 'L3'],
  );
  answer(fg, partsOf(fg)[0]);
  assert.deepEqual(
    partsOf(fg).map((m) => m.layer),
    ['L0', 'L4'],
  );
  answer(fg, partsOf(fg)[1]);
  assert.equal(finished, 0);
  answer(bg, partsOf(bg)[2]);
  assert.equal(finished, 1);
  // The results reached the page as they finished, not in the parts' order.
  assert.deepEqual(
    seen.map(([, part]) => part),
    [1, 2, 0, 4, 3],
  );
  assert.deepEqual(done, [1, 2, 0, 4, 3]);
  assert.ok(seen.every(([type, part, value]) => type === 'row' && value === part * 10));
});

test('session.deal: a part whose message is a promise goes out when it resolves; null sends nothing', async () => {
  const { fg, background, session, partsOf } = setup();
  session.deal('layers', [0, 1, 2], {
    holds: () => 2,
    message: (layer) => (layer === 1 ? null : Promise.resolve({ layer })),
  });
  assert.equal(partsOf(fg).length + background.length, 0, 'nothing before the reads resolve');
  await tick();
  assert.deepEqual(
    partsOf(fg).map((m) => m.layer),
    [0, 2],
  );
  assert.equal(background.length, 0, 'the sweep Worker, whose part had no message, was sent nothing');
});

test("session.deal: a part whose message cannot be made is the job's error, reported once", async () => {
  const { fg, session, seen, partsOf } = setup();
  session.deal('layers', [0, 1, 2], {
    holds: () => 2,
    message: (layer) =>
      layer === 2 ? Promise.resolve({ layer }) : Promise.reject(new Error(`layer ${layer} unreadable`)),
  });
  await tick();
  assert.deepEqual(seen, [['error', 'layers', 'layer 0 unreadable']]);
  assert.deepEqual(
    partsOf(fg).map((m) => m.layer),
    [2],
  );
});

test('session.cancel stops the dealing on every Worker, and what the cancelled parts still send is dropped', async () => {
  const { fg, background, session, seen, partsOf, answer } = setup();
  let finished = 0;
  session.deal('layers', [0, 1, 2, 3, 4], {
    message: (layer) => ({ layer }),
    finished: () => (finished += 1),
  });
  const [bg] = background;
  session.cancel('layers');
  for (const w of [fg, bg])
    assert.deepEqual(w.sent.at(-1), { type: 'cancel', session: session.id, kind: 'layers' });
  answer(fg, partsOf(fg)[0]);
  answer(bg, partsOf(bg)[0]);
  assert.equal(partsOf(fg).length + partsOf(bg).length, 2, 'no part after the cancel');
  assert.deepEqual(seen, []);
  assert.equal(finished, 0);
  // A newer deal does not cancel the cancelled job again; one whose message was still being read
  // sends nothing once cancelled.
  const cancels = () => fg.sent.filter((m) => m.type === 'cancel').length;
  const before = cancels();
  let release;
  session.deal('layers', [7], {
    message: (layer) =>
      new Promise((r) => {
        release = () => r({ layer });
      }),
  });
  assert.equal(cancels(), before);
  session.cancel('layers');
  release();
  await tick();
  assert.equal(partsOf(fg).length, 1);
});

test('session.deal: a failing part is reported once; the other parts go on; a newer deal cancels an unfinished one first', () => {
  const { fg, background, session, seen, partsOf, answer } = setup();
  let finished = 0;
  const id = session.deal('layers', [0, 1, 2], {
    message: (layer) => ({ layer }),
    finished: () => (finished += 1),
  });
  const [bg] = background;
  const failure = {
    type: 'error',
    session: session.id,
    id,
    kind: 'layers',
    name: 'Error',
    message: 'out of memory',
  };
  fg.answer(failure);
  fg.answer(failure);
  assert.deepEqual(seen, [['error', 'layers', 'out of memory']]);
  answer(bg, partsOf(bg)[0]);
  assert.deepEqual(
    partsOf(bg).map((m) => m.layer),
    [1, 2],
    'the Worker whose part failed holds it; the other takes the rest',
  );
  answer(bg, partsOf(bg)[1]);
  assert.equal(finished, 0, 'not finished while the failed part is out');
  const before = fg.sent.length;
  const id2 = session.deal('layers', [5], { message: (layer) => ({ layer }) });
  assert.deepEqual(fg.sent[before], { type: 'cancel', session: session.id, kind: 'layers' });
  assert.equal(fg.sent.at(-1).id, id2);
});
