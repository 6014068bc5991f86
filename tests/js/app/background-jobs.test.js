// When the app's background requests go (web/src/app/background-jobs.js): after the foreground
// result, once per change of what they depend on, and, where panels are built when the reader
// comes near, only once a panel that shows them is built: the d_k sweep for a panel that draws it,
// a panel's job for that panel.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createBackgroundJobs, panelJobs } from '../../../web/src/app/background-jobs.js';

// The fields a sweep's key reads, and two named scalings (the sweep measures each).
const schema = [
  { name: 'dk' },
  { name: 'seqLen' },
  { name: 'scale', choices: [{ value: 'none' }, { value: 'sqrt' }] },
  { name: 'precision' },
];
const dks = [1, 2, 4];

/** The background jobs of the page's panels `names`, with a session and a delivery that record. */
function setUp(names, waitForMount) {
  const sent = [];
  const session = {
    busy: false,
    sweep: (cfg, sweepDks, scales) => sent.push(['sweep', cfg.seqLen, sweepDks.length, scales.length]),
    job: (kind) => sent.push(['job', kind]),
  };
  const delivery = { each() {}, one() {} };
  const jobs = panelJobs(names);
  const background = createBackgroundJobs({
    session,
    schema,
    dks,
    names,
    jobs,
    delivery,
    counters: { sweepRequests: 0 },
    waitForMount,
  });
  return { sent, background, session };
}

const config = { dk: 64, seqLen: 256, scale: 'sqrt', precision: 'fp32' };

test('panels built at once: the sweep and the jobs go with the first result', () => {
  const { sent, background } = setUp(['spread', 'sigma', 'precision'], false);
  background.due();
  assert.equal(background.flush(config), true);
  assert.deepEqual(sent, [
    ['sweep', 256, 3, 2],
    ['job', 'variants'],
  ]);
});

test('panels built when near: no sweep until a panel that draws it is built', () => {
  const { sent, background } = setUp(['spread', 'sigma', 'precision'], true);
  background.due();
  background.flush(config);
  assert.deepEqual(sent, [], 'no panel is built yet');
  background.near('spread');
  background.flush(config);
  assert.deepEqual(sent, [], 'the logit spread draws no sweep');
  background.near('sigma');
  background.flush(config);
  assert.deepEqual(sent, [['sweep', 256, 3, 2]], 'σ is built: the sweep goes');
  background.near('precision');
  background.flush(config);
  assert.deepEqual(sent.at(-1), ['job', 'variants'], "the precision panel's job goes once it is built");
  const sweeps = () => sent.filter(([what]) => what === 'sweep').length;
  background.due();
  background.flush({ ...config, dk: 128 });
  assert.equal(sweeps(), 1, 'a change of d_k alone does not send the sweep again');
  background.due();
  background.flush({ ...config, seqLen: 512 });
  assert.deepEqual(sent.at(-2), ['sweep', 512, 3, 2], 'a change of T does');
});

test('a busy foreground Worker holds them back until it is free', () => {
  const { sent, background, session } = setUp(['sigma'], false);
  session.busy = true;
  background.due();
  assert.equal(background.flush(config), false);
  assert.deepEqual(sent, []);
  session.busy = false;
  assert.equal(background.flush(config), true);
  assert.deepEqual(sent, [['sweep', 256, 3, 2]]);
});
