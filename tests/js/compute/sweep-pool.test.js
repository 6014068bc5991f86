// The background Workers of the engine client (web/src/compute/sweep-pool.js): started by the page while it
// loads (start()) or by the first job posted, with nothing posted before that lost or reordered.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createSweepPool } from '../../../web/src/compute/sweep-pool.js';

/** Worker-shaped fakes that record what they were sent. */
function fakes() {
  const made = [];
  const create = () => {
    const w = {
      sent: [],
      listeners: [],
      postMessage(m) {
        this.sent.push(m);
      },
      addEventListener(type, fn) {
        this.listeners.push([type, fn]);
      },
    };
    made.push(w);
    return w;
  };
  return { made, create };
}

test('no Worker until start() or the first job; start() is idempotent', () => {
  const { made, create } = fakes();
  const pool = createSweepPool({ create, count: 2, route() {}, onFail() {} });
  assert.equal(made.length, 0);
  assert.deepEqual(pool.workers, []);
  pool.start();
  pool.start();
  assert.equal(made.length, 2);
  assert.equal(pool.workers.length, 2);
});

test('the first job starts the Workers and reaches them at once', () => {
  const { made, create } = fakes();
  const pool = createSweepPool({ create, count: 2, route() {}, onFail() {} });
  assert.equal(pool.size, 2);
  pool.post(1, { type: 'sweep', id: 1, dks: [4096], part: 0 });
  assert.equal(made.length, 2);
  assert.deepEqual(
    made.map((w) => w.sent.map((m) => m.dks)),
    [[], [[4096]]],
  );
  pool.study({ type: 'variants', id: 2 }, -1);
  assert.equal(made[1].sent.at(-1).type, 'variants'); // { pool: -1 }: the last Worker
  assert.equal(pool.onMainThread, false);
});

test('a cancel broadcast before any Worker exists is delivered, in order, once they start', () => {
  const { made, create } = fakes();
  const pool = createSweepPool({ create, count: 2, route() {}, onFail() {} });
  pool.broadcast({ type: 'cancel', kind: 'sweep' });
  pool.post(0, { type: 'sweep', id: 3, dks: [8, 16] });
  pool.post(1, { type: 'sweep', id: 3, dks: [1] });
  assert.deepEqual(
    made.map((w) => w.sent.map((m) => m.type)),
    [
      ['cancel', 'sweep'],
      ['cancel', 'sweep'],
    ],
  );
});

test('with a shared Worker (no background factory) everything goes to it', () => {
  const shared = fakes().create();
  const pool = createSweepPool({ create: null, count: 3, shared, route() {}, onFail() {} });
  pool.start();
  assert.equal(pool.size, 1);
  pool.post(2, { type: 'sweep', id: 4, dks: [1, 2] });
  assert.deepEqual(
    shared.sent.map((m) => m.dks),
    [[1, 2]],
  );
});
