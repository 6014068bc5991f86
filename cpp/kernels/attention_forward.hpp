// The plain attention forward O = softmax(Q Kᵀ · s) V for embedders and the benchmarks.
//
// fp32 (the fast path): K (as Kᵀ) and V are packed once per call into column panels
// (gemm/panel_gemm.hpp). Query rows then go in blocks of 16; for each block:
//   1. logits: Q_block · Kᵀ in 2-row × 4-vector register tiles, one Kᵀ panel at a time (the panel
//      is reused by every row pair of the block); the tile's epilogue multiplies by s (by s·log2 e
//      with max subtraction, so that step 2 computes 2^(z − m)), stores the
//      block's logits (16 × T floats, cache-resident: no T×T matrix is ever written) and folds
//      the row maxima;
//   2. softmax, one pass per row: p = exp(z − m) (simd::exp2_nonpositive, four vectors in flight)
//      and the sum ℓ in the same loop; p stays unnormalized;
//   3. output: P_block · V over V panels; the tile's epilogue multiplies by 1/ℓ and stores O.
// Buffers are members, reused across calls (no allocation once the largest shape was seen).
// A row whose logits or sum are not finite goes through softmax_row instead, so NaN and inf
// propagate as in the reference.
//
// Other formats (bf16, fp16, fp8) round at every stage and keep the original blocked path on the
// bit-exact gemm_accumulate.
#pragma once

#include <vector>

#include "config/logit_schemes.hpp"
#include "precision/format.hpp"

namespace attnscale {

struct ForwardShape {
  int seqLen;
  int dk;
  float scale;
  bool subtractMax;
  bool causal;
  Format format;
  // Beyond the scale (kernels/logit_transform.hpp, kernels/qk_norm.hpp): with any of these on,
  // q and k rows are normalized first and the rounded path below is taken.
  QkNorm qkNorm = QkNorm::none;
  double lengthScale = 0;
  float softcap = 0;
};

class AttentionForward {
 public:
  // q, k, v, o: seqLen × dk, row-major. Buffers are reused across calls.
  void run(const ForwardShape& shape, const float* q, const float* k, const float* v, float* o);

 private:
  void run_fp32(const ForwardShape& shape, const float* q, const float* k, const float* v,
                float* o);
  void run_rounded(const ForwardShape& shape, const float* q, const float* k, const float* v,
                   float* o);

  std::vector<float> kt_, block_, qr_, kr_, vr_;           // run_rounded
  std::vector<float> qn_, kn_;                             // q̂, k̂ with QK-norm
  std::vector<float> kPanels_, vPanels_, z_, p_, invSum_;  // run_fp32
};

// Scalar double-precision reference of the same (fp32 inputs, no rounding; QK-norm, length scale
// and soft-cap in double).
void attention_forward_reference(const ForwardShape& shape, const float* q, const float* k,
                                 const float* v, double* o);

}  // namespace attnscale
