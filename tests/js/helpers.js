// Shared by the node --test suites: both engine builds, loaded once per process.
import { createEngine } from '../../web/src/engine/engine.js';

let engines;
export async function bothEngines() {
  engines ??= Promise.all([createEngine({ simd: true }), createEngine({ simd: false })]);
  const [simd, scalar] = await engines;
  return { simd, scalar };
}

export const STORY = { dk: 128, seqLen: 256 };
