// The package as its users get it: `npm pack` of this checkout (after `npm run build`) installed
// from the tarball into an empty folder. Only the npm registry (or npm's cache) is reached: the
// package's one dependency is wasm-feature-detect.
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { repoRoot } from '../e2e/support/serve-dist.js';

const run = promisify(execFile);
// Under `npm test` the environment carries npm's own settings for this checkout (npm_config_local_prefix
// among them), which would make `npm install` write into the repository: start each npm clean.
const cleanEnv = Object.fromEntries(
  Object.entries(process.env).filter(([k]) => !/^npm_|^INIT_CWD$/i.test(k)),
);
const npm = (args, cwd) =>
  run('npm', args, { cwd, maxBuffer: 64 << 20, env: { ...cleanEnv, npm_config_update_notifier: 'false' } });

/**
 * packAndInstall() → { tmp, tarball, pack, consumer, packageDir, dispose() }. `pack` is npm's own
 * report (`npm pack --json`: size, unpackedSize, entryCount, files); `consumer` is a fresh folder
 * whose node_modules holds the installed package at `packageDir`.
 */
export async function packAndInstall() {
  const tmp = await mkdtemp(join(tmpdir(), 'attnscale-consumer-'));
  const packDir = join(tmp, 'pack');
  const consumer = join(tmp, 'consumer');
  await mkdir(packDir);
  await mkdir(consumer);
  const { stdout } = await npm(['pack', '--json', '--pack-destination', packDir], repoRoot);
  // npm prints the prepack script's banner before the JSON report.
  const [pack] = JSON.parse(stdout.slice(stdout.indexOf('[')));
  const tarball = join(packDir, pack.filename);
  await writeFile(
    join(consumer, 'package.json'),
    JSON.stringify({ name: 'attnscale-consumer', private: true, type: 'module' }),
  );
  await npm(
    ['install', '--no-audit', '--no-fund', '--prefer-offline', '--prefix', consumer, tarball],
    consumer,
  );
  return {
    tmp,
    tarball,
    pack,
    consumer,
    packageDir: join(consumer, 'node_modules', 'attnscale'),
    dispose: () => rm(tmp, { recursive: true, force: true }),
  };
}
