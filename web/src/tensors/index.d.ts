// Types of attnscale/tensors (index.js): the tensor-file reader, the q/k pairing and the writer.
export * from './read-tensors.js';
export * from './pair-heads.js';
export * from './write-safetensors.js';
