// attnscale/tensors: read a model's own q/k tensors from .npy or .safetensors files and pair them by
// layer; write F32 tensors as .safetensors.
export { readTensorFile, readTensors } from './read-tensors.js';
export { DK_RANGE, SEQ_LEN_RANGE, keyHeadFor, pairHeads } from './pair-heads.js';
export { writeSafetensors } from './write-safetensors.js';
