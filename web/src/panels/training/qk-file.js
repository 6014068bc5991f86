// The queries and keys of every copy of a training run at one step as a .safetensors file: tensors
// `<copy>.q` and `<copy>.k` of shape (T, d_k) (the model has one head, so pairHeads makes one
// layer of each copy) and a `__metadata__` that says which run they come from. The training
// panel's download (from the q and k its Worker sends) and the page's trained sample
// (build-scripts/lib/make-trained-sample.mjs) are both this file. No DOM.
import { writeSafetensors } from '../../tensors/write-safetensors.js';
import { scaleLabel } from '../../state/choices.js';

export const qkFileName = (steps) => `attnscale-trained-step-${steps}.safetensors`;

/**
 * How a copy scales q·kᵀ: its scaling's label ('1/√d_k') or '× m' for a multiplier m. A default
 * copy is named after its scaling (engine.trainSchema).
 */
function scalingOf(config, copy, schema) {
  const scale =
    config.copies?.find((c) => c.name === copy)?.scale ?? (copy === 'custom' ? config.scale : copy);
  return typeof scale === 'number' ? `× ${scale}` : scaleLabel(scale, schema);
}

/**
 * `config`: the trainer's config (trainer.config); `steps`: the step the q and k are of; `qk`:
 * { [copy]: trainer.qk(copy) } in the trainer's copy order; `schema`: the engine's (the scalings'
 * labels); `source`: where they come from, in words → the bytes of the .safetensors file.
 */
export function qkFile({
  config,
  steps,
  qk,
  schema,
  source = 'attnscale training panel: q and k of its fixed example',
}) {
  const tensors = {};
  const metadata = {
    source,
    seed: String(config.seed),
    steps: String(steps),
    copies: Object.keys(qk).join(','),
    config: JSON.stringify(config),
  };
  for (const [copy, { q, k, seqLen, dk, scale }] of Object.entries(qk)) {
    tensors[`${copy}.q`] = { dtype: 'F32', shape: [seqLen, dk], data: q };
    tensors[`${copy}.k`] = { dtype: 'F32', shape: [seqLen, dk], data: k };
    metadata[`${copy}.scale`] = String(scale);
    // QK-norm, a soft-cap and a length factor, where a copy has them, are in `config`.
    metadata[`${copy}.scaling`] = scalingOf(config, copy, schema);
  }
  return writeSafetensors(tensors, metadata);
}
