// The streaming ("online") softmax of FlashAttention: keys are visited in blocks, keeping a
// running max m, a running sum ℓ and an output accumulator, each rescaled by exp(m_old − m_new)
// when the max grows (Milakov & Gimelshein, arXiv 1805.02867; Dao et al., arXiv 2205.14135 and
// 2307.08691). The exps are rounded to the format (as P̃ is cast before the PV product); m, ℓ and
// the accumulator stay fp32; the output is rounded at the end. Without max subtraction m stays 0
// and the plain sum streams.
#pragma once

#include <vector>

#include "precision/format.hpp"

namespace attnscale {

struct OnlineSoftmaxShape {
  int seqLen;
  int dv;  // columns of V and O
  bool causal;
  bool subtractMax;
  int blockSize;
};

// z: T×T scaled logits (row-major); v: T×dv (leading dimension ldv); o: T×dv (leading dimension
// dv).
void online_softmax_output(const OnlineSoftmaxShape& shape, Format fmt, const float* z,
                           const float* v, int ldv, float* o, std::vector<float>& scratch);

// The same for query rows [r0, r1) only (each row is independent): o points at row r0's output.
void online_softmax_rows(const OnlineSoftmaxShape& shape, Format fmt, const float* z,
                         const float* v, int ldv, int r0, int r1, float* o,
                         std::vector<float>& scratch);

}  // namespace attnscale
