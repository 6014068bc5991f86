// The queries and keys of every copy of a trainer, at its current step, as one .safetensors file:
// tensors `<copy>.q` and `<copy>.k` of shape (T, d_k) (the model has one head, so pairHeads makes
// one layer of each copy) and a `__metadata__` that says which run they come from. The training
// panel's download (written in its Worker, training-job.js) and the page's trained sample
// (build-scripts/lib/make-trained-sample.mjs) are both this file. No DOM.
import { writeSafetensors } from '../../tensors/write-safetensors.js';

/** The copies a trainer trains, in its output order, from `trainer.config`. */
export function trainerCopies(config) {
  if (config.copies) return config.copies.map((c) => c.name);
  return ['none', 'sqrt', 'linear', ...(typeof config.scale === 'number' ? ['custom'] : [])];
}

export const qkFileName = (steps) => `attnscale-trained-step-${steps}.safetensors`;

const SCALE_WORDS = { none: 'none (× 1)', sqrt: '1/√d_k', linear: '1/d_k' };

/** How a copy forms its logits from q·kᵀ, in words: '1/√d_k = 0.125', '1/√d_k = 0.125, RMS QK-norm'. */
function scalingOf(config, name, scale) {
  const spec = config.copies?.find((c) => c.name === name) ?? {
    scale: name === 'custom' ? config.scale : name,
  };
  const words = [
    typeof spec.scale === 'number'
      ? `× ${spec.scale}`
      : spec.scale === 'none'
        ? SCALE_WORDS.none
        : `${SCALE_WORDS[spec.scale]} = ${scale}`,
  ];
  if (spec.qkNorm && spec.qkNorm !== 'none') words.push(`${spec.qkNorm === 'rms' ? 'RMS' : 'layer'} QK-norm`);
  if (spec.lengthScale > 0) words.push(`× ${spec.lengthScale} ln T`);
  if (spec.softcap > 0) words.push(`soft-cap ${spec.softcap}`);
  return words.join(', ');
}

/** The tensors and the metadata of the file, from a Trainer (engine.train). */
export function qkTensors(trainer) {
  const { config } = trainer;
  const copies = trainerCopies(config);
  const tensors = {};
  const metadata = {
    source: 'attnscale training panel: q and k of its fixed example',
    seed: String(config.seed),
    steps: String(trainer.steps),
    copies: copies.join(','),
    config: JSON.stringify(config),
  };
  for (const copy of copies) {
    const { q, k, seqLen, dk, scale } = trainer.qk(copy);
    tensors[`${copy}.q`] = { dtype: 'F32', shape: [seqLen, dk], data: q };
    tensors[`${copy}.k`] = { dtype: 'F32', shape: [seqLen, dk], data: k };
    metadata[`${copy}.scale`] = String(scale);
    metadata[`${copy}.scaling`] = scalingOf(config, copy, scale);
  }
  return { tensors, metadata };
}

/** The .safetensors file's bytes. */
export function qkFile(trainer) {
  const { tensors, metadata } = qkTensors(trainer);
  return writeSafetensors(tensors, metadata);
}
