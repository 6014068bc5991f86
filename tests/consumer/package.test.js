// The npm package as users install it: `npm pack` after the build, the tarball installed
// into an empty folder, then (1) what the tarball holds, (2) a Node consumer, (3) a TypeScript
// consumer under --strict with both `bundler` and `node16` resolution, whose deliberately wrong
// calls must fail. Needs `npm run build` first (the package ships build outputs).
import { before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { copyFile, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { repoRoot } from '../e2e/support/serve-dist.js';
import { packAndInstall } from './package-install.js';
import { moduleClosure } from './component-closure.js';
import { test } from '../e2e/support/browser.js';

const run = promisify(execFile);
const FIXTURES = fileURLToPath(new URL('./fixtures/', import.meta.url));
const TSC = join(repoRoot, 'node_modules', '.bin', 'tsc');

let pkg;
before(async () => {
  pkg = await packAndInstall();
});
after(async () => {
  await pkg?.dispose();
});

describe('npm package', () => {
  test('the tarball ships the engine, both wasm builds, the built component and its assets, the tensor reader, types, the site-engine integrations, README, LICENSE; nothing else', async (t) => {
    const files = pkg.pack.files.map((f) => f.path).sort();
    t.diagnostic(
      `tarball ${pkg.pack.filename}: ${pkg.pack.size} B packed, ${pkg.pack.unpackedSize} B unpacked, ${pkg.pack.entryCount} files`,
    );
    t.diagnostic(`files: ${files.join(', ')}`);
    for (const f of [
      'package.json',
      'README.md',
      'LICENSE',
      'web/src/engine/engine.js',
      'web/src/engine/support.js',
      'web/src/engine/sweep-jobs.js',
      'web/src/engine/engine.d.ts',
      'web/src/engine/engine-train.d.ts',
      'web/src/engine/sweep-jobs.d.ts',
      'web/src/embed/attn-scale-demo.d.ts',
      'web/src/tensors/index.js',
      'web/src/tensors/index.d.ts',
      'dist/attn-scale-demo.js',
      'web/generated/attnscale-simd.mjs',
      'web/generated/attnscale-simd.wasm',
      'web/generated/attnscale-scalar.mjs',
      'web/generated/attnscale-scalar.wasm',
    ]) {
      assert.ok(files.includes(f), `${f} is missing from the tarball`);
    }
    // The component as built: exactly the files its module graph can fetch (both wasm builds).
    const closure = (await moduleClosure(join(repoRoot, 'dist'), 'attn-scale-demo.js')).map(
      (f) => `dist/${f}`,
    );
    assert.ok(
      closure.filter((f) => f.endsWith('.wasm')).length === 2,
      `the component reaches both wasm builds: ${closure}`,
    );
    assert.deepEqual(
      files.filter((f) => f.startsWith('dist/')),
      closure,
      'shipped dist/ files = what the component loads',
    );
    // engine.js's own graph (besides wasm-feature-detect, a dependency): all shipped.
    const engineGraph = (await moduleClosure(join(repoRoot, 'web', 'src'), 'engine/engine.js')).map((f) =>
      join('web/src', f),
    );
    assert.equal(engineGraph.length, 7, engineGraph.join(', '));
    for (const f of engineGraph)
      assert.ok(files.includes(f), `${f} (imported by engine.js) is missing from the tarball`);
    // The tensor reader's graph, and a declaration beside each of its modules that index.d.ts re-exports.
    const tensorsGraph = (await moduleClosure(join(repoRoot, 'web', 'src'), 'tensors/index.js')).map((f) =>
      join('web/src', f),
    );
    for (const f of tensorsGraph)
      assert.ok(files.includes(f), `${f} (imported by tensors/index.js) is missing from the tarball`);
    for (const f of ['read-tensors.d.ts', 'pair-heads.d.ts', 'write-safetensors.d.ts'])
      assert.ok(files.includes(`web/src/tensors/${f}`), `web/src/tensors/${f} is missing from the tarball`);
    // The site-engine integrations (docs/publishing.md) are templates, Hugo's and Jekyll's in .html.
    const integrations = files.filter((f) => f.startsWith('web/integrations/'));
    for (const f of [
      'web/integrations/hugo/layouts/shortcodes/attnscale.html',
      'web/integrations/jekyll/_includes/attnscale.html',
      'web/integrations/vitepress/attnscale.mjs',
      'web/integrations/astro/AttnScale.astro',
    ])
      assert.ok(integrations.includes(f), `${f} is missing from the tarball`);
    const unexpected = files.filter(
      (f) =>
        !integrations.includes(f) &&
        (/^(tests|cpp|build|build-scripts|node_modules|\.github|\.ci)\//.test(f) ||
          /\.(html|css|woff2|cpp|hpp)$/.test(f) ||
          f.includes('corpus')),
    );
    assert.deepEqual(unexpected, [], 'no tests, C++ sources, fuzz corpus, page or offline file');
    // A coarse guard besides the exact lists above: the component's chunks (one per panel, each
    // loaded when mounted; one per panel's Worker job, loaded on its first request; the PNG, CSV, SVG
    // and GIF writers, loaded on first click), the engine's files and the tensor reader's, about 95 in
    // all with the drill's panel and job and the heatmap's contrast job.
    const counted = pkg.pack.entryCount - integrations.length;
    assert.ok(counted < 105, `file count ${counted} (without the ${integrations.length} integration files)`);
  });

  test('package.json: public, exports with a types condition for every entry, metadata', async () => {
    const meta = (await import(join(pkg.packageDir, 'package.json'), { with: { type: 'json' } })).default;
    assert.equal(meta.private, undefined);
    for (const [entry, target] of Object.entries(meta.exports)) {
      if (entry === './package.json') continue;
      assert.ok(target.types && target.default, `exports['${entry}'] has types and default`);
    }
    assert.equal(meta.exports['.'].default, meta.main);
    assert.equal(meta.exports['.'].types, meta.types);
    assert.equal(meta.exports['./component'].default, './dist/attn-scale-demo.js');
    assert.equal(meta.exports['./tensors'].default, './web/src/tensors/index.js');
    for (const field of ['repository', 'homepage', 'sideEffects', 'engines', 'license'])
      assert.ok(meta[field], field);
  });

  test('Node imports `attnscale` from the installed tarball and runs { dk: 128, scale: "none" }', async () => {
    for (const f of ['node-consumer.mjs', 'ts-literal.js'])
      await copyFile(join(FIXTURES, f), join(pkg.consumer, f));
    const { stdout } = await run(process.execPath, ['node-consumer.mjs'], { cwd: pkg.consumer });
    const out = JSON.parse(stdout);
    assert.equal(out.info.simd, true);
    assert.equal(out.scalarInfo.arch, 'scalar');
    // σ of q·k for i.i.d. N(0, 1) components is √128 ≈ 11.31; seed 1 at T = 256 measures 11.358.
    // 0.1 allows any last-bit change of the kernels, not a different distribution.
    assert.ok(Math.abs(out.rawLogitStd - 11.358) < 0.1, `rawLogitStd ${out.rawLogitStd}`);
    assert.equal(out.config.scale, 'none');
    // attnscale/tensors read the two-tensor safetensors file the consumer wrote in memory.
    assert.deepEqual(out.tensors, {
      'layers.0.q': { dtype: 'F32', shape: [2, 3], data: [0, 1, 2, 3, 4, 5] },
      'layers.0.k': { dtype: 'F16', shape: [1, 2], data: [1, -2] },
    });
  });

  test("TypeScript --strict: a correct consumer and the engine's real outputs type-check; wrong calls fail", async () => {
    for (const f of ['good.ts', 'bad.ts', 'tsconfig.json'])
      await copyFile(join(FIXTURES, f), join(pkg.consumer, f));
    // actual.ts (written by the Node consumer above) holds real results typed with the declarations.
    const tsc = (project) =>
      run(TSC, ['-p', project, '--pretty', 'false'], { cwd: pkg.consumer }).then(
        ({ stdout }) => ({ code: 0, out: stdout }),
        (err) => ({ code: err.code, out: `${err.stdout}${err.stderr}` }),
      );
    for (const resolution of ['bundler', 'node16']) {
      const module = resolution === 'bundler' ? 'esnext' : 'node16';
      const config = (files) =>
        JSON.stringify({
          extends: './tsconfig.json',
          compilerOptions: { module, moduleResolution: resolution },
          files,
        });
      await writeFile(
        join(pkg.consumer, `tsconfig.good.${resolution}.json`),
        config(['good.ts', 'actual.ts']),
      );
      await writeFile(join(pkg.consumer, `tsconfig.bad.${resolution}.json`), config(['bad.ts']));
      const good = await tsc(`tsconfig.good.${resolution}.json`);
      assert.equal(good.code, 0, `${resolution}: good.ts and actual.ts must type-check:\n${good.out}`);
      const bad = await tsc(`tsconfig.bad.${resolution}.json`);
      assert.notEqual(bad.code, 0, `${resolution}: bad.ts must fail`);
      const source = (await readFile(join(FIXTURES, 'bad.ts'), 'utf8')).split('\n');
      const expected = source.flatMap((line, i) => {
        const m = line.match(/\/\/ expect (TS\d+)/);
        return m ? [`${i + 1} ${m[1]}`] : [];
      });
      const got = [...bad.out.matchAll(/^bad\.ts\((\d+),\d+\): error (TS\d+)/gm)].map(
        (m) => `${m[1]} ${m[2]}`,
      );
      assert.ok(expected.length >= 10);
      assert.deepEqual(got, expected, `${resolution}: tsc's errors on bad.ts:\n${bad.out}`);
    }
  });
});
