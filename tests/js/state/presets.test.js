// The page's presets: the walk-through has one step per chapter of the argument (at most seven),
// every group the page's HTML names has its buttons and every group is placed once, the build writes
// the same buttons the data describes, and each preset is a setting the engine accepts unchanged.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createEngine } from '../../../web/src/engine/engine.js';
import { PRESETS, presetsOf } from '../../../web/src/state/presets.js';
import { presetGroupHtml } from '../../../build-scripts/lib/static-presets.js';

const html = readFileSync(new URL('../../../web/index.html', import.meta.url), 'utf8');
const placed = [...html.matchAll(/data-presets="([a-z-]+)"/g)].map((m) => m[1]);
const chapters = [...html.matchAll(/<h2 id="[a-z-]+-title">(\d+)\. /g)].map((m) => Number(m[1]));

test('the walk-through: one step per numbered chapter, at most seven', () => {
  const story = presetsOf('story');
  assert.ok(story.length <= 7, `${story.length} steps`);
  assert.equal(story.length, chapters.length, `${story.length} steps for chapters ${chapters.join(', ')}`);
});

test('every group is placed once in the page, and every placed group has presets', () => {
  const groups = [...new Set(PRESETS.map((p) => p.group))];
  assert.deepEqual([...placed].sort(), [...groups].sort());
  assert.equal(new Set(placed).size, placed.length, 'no group placed twice');
  assert.equal(new Set(PRESETS.map((p) => p.id)).size, PRESETS.length, 'ids are unique');
});

test('the build writes each group as buttons: numbered in the story, with an empty live note', () => {
  const story = presetGroupHtml('story');
  for (const [i, p] of presetsOf('story').entries())
    assert.ok(story.includes(`data-preset="${p.id}"><span class="preset-num">${i + 1}</span>`), p.id);
  assert.ok(story.startsWith('<ol class="preset-list scroll-x">'));
  assert.match(story, /<p class="preset-note" aria-live="polite"><\/p>$/);
  const qk = presetGroupHtml('qk-norm');
  assert.ok(qk.startsWith('<ul class="preset-list">') && !qk.includes('preset-num'));
  assert.throws(() => presetGroupHtml('nowhere'), /preset group "nowhere"/);
});

test('every preset is a setting the engine takes as it is', async () => {
  const engine = await createEngine();
  for (const p of PRESETS) {
    const full = engine.validate(p.set);
    for (const [k, v] of Object.entries(p.set)) assert.deepEqual(full[k], v, `${p.id}: ${k}`);
  }
});
