// The floors of web/src (.dependency-cruiser.cjs FLOORS): every folder of web/src stands on one,
// and the rules that `npm run lint` runs fail an import that points up a floor, but for the one
// allowed by name. The rules are run by dependency-cruiser over a small tree of files written for
// the test, each importing one other.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cruise } from 'dependency-cruiser';

const repoRoot = fileURLToPath(new URL('../../..', import.meta.url));
const config = createRequire(import.meta.url)(join(repoRoot, '.dependency-cruiser.cjs'));

/** The rules' names that flag `from` importing `to` (paths under web/src/), in a tree of just these two files. */
async function violations(from, to) {
  const dir = mkdtempSync(join(tmpdir(), 'floors-'));
  try {
    for (const f of [from, to]) mkdirSync(join(dir, 'web/src', dirname(f)), { recursive: true });
    const spec = relative(dirname(join('/', from)), join('/', to));
    writeFileSync(join(dir, 'web/src', from), `import '${spec.startsWith('.') ? spec : `./${spec}`}';\n`);
    writeFileSync(join(dir, 'web/src', to), 'export const x = 1;\n');
    const { output } = await cruise(['web/src'], {
      ruleSet: { forbidden: config.forbidden },
      validate: true,
      baseDir: dir,
      moduleSystems: ['es6'],
    });
    return output.summary.violations.map((v) => v.rule.name);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('every folder of web/src, and every file at its root, stands on one floor', () => {
  const src = join(repoRoot, 'web/src');
  const probes = readdirSync(src).map((name) =>
    statSync(join(src, name)).isDirectory() ? `web/src/${name}/probe.js` : `web/src/${name}`,
  );
  const floorsOf = (path) =>
    config.floors.filter((f) => f.paths.some((p) => new RegExp(p).test(path))).map((f) => f.name);
  const misplaced = probes
    .filter((p) => !/\.(svg|png|ico)$/.test(p))
    .map((p) => [p, floorsOf(p)])
    .filter(([, floors]) => floors.length !== 1);
  assert.deepEqual(misplaced, [], 'add the folder to one floor of FLOORS in .dependency-cruiser.cjs');
  // The files that a floor takes from another folder stand on that floor alone.
  for (const p of ['web/src/ui/format.js', 'web/src/ui/dom.js']) assert.equal(floorsOf(p).length, 1, p);
});

test('an import up a floor fails, naming the floor', async () => {
  for (const [from, to, floor] of [
    ['state/choices.js', 'ui/dom.js', 'ground'],
    ['pure/helper.js', 'engine/engine.js', 'ground'],
    ['ui/dom.js', 'charts/study.js', 'ui'],
    ['compute/worker.js', 'export/png-export.js', 'compute'],
    ['charts/sweep-chart.js', 'export/svg-export.js', 'charts'],
    ['charts/uplot-chart.js', 'frame/panel-frame.js', 'charts'],
    ['export/svg-export.js', 'frame/panel-frame.js', 'export'],
    ['frame/panel-frame.js', 'panels/index.js', 'frame'],
    ['panels/sigma/sigma.js', 'app/app.js', 'panels'],
    ['app/app.js', 'page/embed-dialog.js', 'app'],
    ['app/app.js', 'page/page.js', 'app'],
    ['app/app.js', 'embed/embed.js', 'app'],
  ])
    assert.ok(
      (await violations(from, to)).includes(`no-import-above-${floor}`),
      `${from} → ${to} is not flagged as leaving the ${floor} floor`,
    );
});

test('an import down a floor, or one allowed by name, passes the floors', async () => {
  for (const [from, to] of [
    ['state/choices.js', 'ui/format.js'],
    ['frame/sweep-panel.js', 'state/choices.js'],
    ['export/gif-export.js', 'compute/worker-client.js'],
    ['export/png-export.js', 'charts/uplot-chart.js'],
    ['frame/panel-frame.js', 'export/gif-export.js'],
    ['panels/report/report.js', 'export/csv-export.js'],
    ['panels/report/report-job.js', 'pure/downsample-attention.js'],
    ['page/page.js', 'page/embed-dialog.js'],
    ['page/embed-dialog.js', 'embed/embed-snippets.js'],
    ['offline/main.js', 'page/main.js'],
    ['embed/embed.js', 'app/app.js'],
    // Allowed by name: the Workers' registry of the panels' jobs.
    ['compute/job-kinds.js', 'panels/jobs.js'],
  ]) {
    const names = await violations(from, to);
    assert.ok(!names.some((n) => n.startsWith('no-import-above-')), `${from} → ${to}: ${names}`);
  }
});
