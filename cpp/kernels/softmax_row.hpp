// One query row of the softmax, with the format's rounding at each stage, and the row's
// statistics. The plain double-precision versions live in reference/.
#pragma once

#include "precision/format.hpp"

namespace attnscale {

struct SoftmaxRowCounts {
  int expNonFinite = 0;
  int weightNonFinite = 0;
};

// p[j] = round(round(exp(z[j] - m)) / ℓ) for j < n, with m = max(z) when subtractMax (else 0)
// and ℓ the fp32 sum of the rounded exps.
SoftmaxRowCounts softmax_row(const float* z, int n, bool subtractMax, Format fmt, float* p);

struct RowStats {
  float entropy;       // −Σ p ln p, nats
  float maxWeight;     // max p
  float jacobianNorm;  // ‖diag(p) − ppᵀ‖_F
};

// NaN fields when any weight of the row is not finite.
RowStats weight_row_stats(const float* p, int n);

// ‖diag(p) − ppᵀ‖²_F = Σp² − 2Σp³ + (Σp²)², evaluated as a sum of non-negative terms so that a
// nearly one-hot row (where the closed form cancels to ~1e-7 in float) keeps its tiny value:
//   Σ p_i²(1 − p_i)²  +  2 p_max² R  +  Σ_{i≠max} p_i² (R − p_i²),   R = Σ_{j≠max} p_j².
double jacobian_norm_squared(const float* p, int n);

}  // namespace attnscale
