// One query row of the softmax, with the format's rounding at each stage, and the row's
// statistics. The plain double-precision versions live in reference/.
#pragma once

#include "precision/format.hpp"

namespace attnscale {

struct SoftmaxRowCounts {
  int expNonFinite = 0;
  int weightNonFinite = 0;
};

// How a softmax row adds up its exps and what it makes of one below FLT_MIN (exp(x), x < −87.34).
// The engine's sums them in W lanes, then across the lanes, and keeps the subnormal exps. The
// trainer's sums them in index order and flushes those exps to 0: its recorded curves were
// computed so.
struct LaneSums {
  static constexpr bool inIndexOrder = false, flushSubnormalExps = false;
};
struct IndexOrderSums {
  static constexpr bool inIndexOrder = true, flushSubnormalExps = true;
};

// p[j] = round(round(exp(z[j] − m)) / ℓ) for j < n, with m = max(z) when subtractMax (else 0)
// and ℓ the fp32 sum of the rounded exps. p may be z.
template <class Sums = LaneSums>
SoftmaxRowCounts softmax_row(const float* z, int n, bool subtractMax, Format fmt, float* p);

// The softmax's backward for one row, ds = ∂L/∂n from dp = ∂L/∂p (ds may be dp): with
// r = Σ p_j dp_j in index order, ds_j = p_j (dp_j − r), times slope_j (∂z/∂n beyond the scale;
// null: 1), times scale, times `after` (a factor of ∂z/∂n that the trainer applies after the
// scale; 1: none). Every factor in that order, so each caller keeps its bits.
void softmax_backward_row(const float* p, const float* dp, int n, const float* slope, float scale,
                          float after, float* ds);

struct RowStats {
  float entropy;       // −Σ p ln p, nats
  float maxWeight;     // max p
  float jacobianNorm;  // ‖diag(p) − ppᵀ‖_F
};

// NaN fields when any weight of the row is not finite.
RowStats weight_row_stats(const float* p, int n);

// −Σ p ln p of one row in double, over the float terms −p·ln p (0 where p <= FLT_MIN; NaN weights
// give NaN) summed in index order: the trainer's entropy metric. tmp holds >= n + W floats.
// weight_row_stats' entropy sums float lanes and takes the largest weight apart: the same value
// to about 1e-9, not the same bits, and the trainer's recorded metrics are these.
double entropy_in_index_order(const float* p, int n, float* tmp);

// ‖diag(p) − ppᵀ‖²_F = Σp² − 2Σp³ + (Σp²)², evaluated as a sum of non-negative terms so that a
// nearly one-hot row (where the closed form cancels to ~1e-7 in float) keeps its tiny value:
//   Σ p_i²(1 − p_i)²  +  2 p_max² R  +  Σ_{i≠max} p_i² (R − p_i²),   R = Σ_{j≠max} p_j².
double jacobian_norm_squared(const float* p, int n);

}  // namespace attnscale
