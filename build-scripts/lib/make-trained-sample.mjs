// The page's trained sample, run by build.sh between the wasm build and Vite: the q and k of the
// training panel's fixed example after the panel's own default run, in Node with the wasm engine,
// as web/public/samples/trained-sample.safetensors (Vite copies web/public/ into dist/, so it is
// served as samples/trained-sample.safetensors next to index.html).
// The run is the one the panel starts on the page as it opens: trainerConfig (panels/training/train-state.js)
// of the page's default config and the panel's default settings (from the engine's training
// schema), the three default copies, seed 1, DEFAULT_STOP_AT (500) steps, where Play pauses. The
// file is deterministic; when its inputs (the wasm builds and the modules that make it) are
// unchanged since the last run, the 500 steps are not run again.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createEngine } from '../../web/src/engine/engine.js';
import {
  DEFAULT_STOP_AT,
  copiesField,
  copiesOf,
  defaultSettings,
  trainerConfig,
} from '../../web/src/panels/training/train-state.js';
import { qkFile } from '../../web/src/panels/training/qk-file.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const SAMPLE = join(root, 'web/public/samples/trained-sample.safetensors');
const STAMP = join(root, 'build/trained-sample.sha256');
const SEED = 1;
const STEPS = DEFAULT_STOP_AT;
const CHUNK = 10;

/** What the file depends on: the engine's builds and the code of every module that writes it. */
function inputsHash() {
  const js = (dir) =>
    readdirSync(join(root, dir))
      .filter((f) => f.endsWith('.js'))
      .map((f) => join(dir, f));
  const files = [
    'web/generated/attnscale-simd.wasm',
    'web/generated/attnscale-scalar.wasm',
    'build-scripts/lib/make-trained-sample.mjs',
    'web/src/panels/training/qk-file.js',
    'web/src/ui/format.js',
    ...js('web/src/engine'),
    ...js('web/src/state'),
    ...js('web/src/tensors'),
  ];
  const hash = createHash('sha256');
  for (const f of files.sort()) hash.update(f).update(readFileSync(join(root, f)));
  return hash.digest('hex');
}

/** The sample's bytes, and the run's config and time. */
async function makeTrainedSample() {
  const engine = await createEngine();
  const schema = engine.trainSchema;
  const { cfg } = trainerConfig(engine.defaults(), { ...defaultSettings(schema), seed: SEED }, schema);
  const copies = copiesOf(cfg, schema);
  if (copies.join() !== copiesField(schema).default.join())
    throw new Error(`the default run trains ${copies}`);
  const trainer = engine.train(cfg);
  const t0 = performance.now();
  // In chunks, as the panel steps: V8 runs a wasm call that is already under way in its baseline
  // code, so one call of 500 steps would never reach the optimized code (the bits are the same).
  for (let done = 0; done < STEPS; done += CHUNK) trainer.step(Math.min(CHUNK, STEPS - done));
  const ms = performance.now() - t0;
  const bytes = qkFile({
    config: trainer.config,
    steps: trainer.steps,
    qk: Object.fromEntries(copies.map((c) => [c, trainer.qk(c)])),
    schema: engine.schema,
    source:
      'attnscale trained sample: q and k of the training panel’s fixed example after its default run ' +
      '(the page’s default settings, the panel’s default settings, Play until it pauses)',
  });
  trainer.delete();
  engine.delete();
  return { bytes, config: cfg, ms };
}

const hash = inputsHash();
const fresh = existsSync(SAMPLE) && existsSync(STAMP) && readFileSync(STAMP, 'utf8') === hash;
if (fresh) {
  console.log('[build] trained sample: up to date (web/public/samples/trained-sample.safetensors)');
} else {
  const { bytes, config, ms } = await makeTrainedSample();
  mkdirSync(dirname(SAMPLE), { recursive: true });
  writeFileSync(SAMPLE, bytes);
  mkdirSync(dirname(STAMP), { recursive: true });
  writeFileSync(STAMP, hash);
  console.log(
    `[build] trained sample: web/public/samples/trained-sample.safetensors (${bytes.length} bytes; ` +
      `d_k ${config.dk}, T ${config.seqLen}, seed ${config.seed}, ${STEPS} steps in ${(ms / 1000).toFixed(1)} s)`,
  );
}
