// Types of attnscale/tensors (index.js): the tensor-file reader and the q/k pairing.
export * from './read-tensors.js';
export * from './pair-heads.js';
