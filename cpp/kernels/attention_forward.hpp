// The plain attention forward O = softmax(Q Kᵀ · s) V for embedders and the benchmarks.
// Query rows go in blocks: a block's logits (rows × T) stay in cache between QKᵀ, the fused
// scale + max + exp + sum + divide, and PV, so no T×T matrix is ever written.
#pragma once

#include <vector>

#include "precision/format.hpp"

namespace attnscale {

struct ForwardShape {
  int seqLen;
  int dk;
  float scale;
  bool subtractMax;
  bool causal;
  Format format;
};

class AttentionForward {
 public:
  // q, k, v, o: seqLen × dk, row-major. Buffers are reused across calls.
  void run(const ForwardShape& shape, const float* q, const float* k, const float* v, float* o);

 private:
  std::vector<float> kt_, block_, qr_, kr_, vr_;
};

// Scalar double-precision reference of the same (fp32 inputs, no rounding).
void attention_forward_reference(const ForwardShape& shape, const float* q, const float* k,
                                 const float* v, double* o);

}  // namespace attnscale
