// What happens to a logit between q̂·k̂ and the softmax, in fp32:
//   z = round( cap( round(n) · scale · ℓ_i ) ),   ℓ_i = s · ln n_i,   cap(u) = c · tanh(u / c),
// n the (normalized) dot product, n_i the keys row i sees. With s = 0 and c = 0 this is the plain
// z = round(round(n) · scale), bit for bit. tanh and ln are simd/fast_math.hpp's (no libm), so
// every build gives the same bits.
#pragma once

#include <cstddef>

#include "config/config.hpp"
#include "precision/format.hpp"

namespace attnscale {

struct LogitTransform {
  float scale = 1;
  double lengthScale = 0;  // s; 0: off
  float softcap = 0;       // c; 0: off
  bool identityBeyondScale() const { return lengthScale == 0 && softcap == 0; }
};

LogitTransform logit_transform(const Config& c);

// ℓ = s · ln(keys), as float (1 when s is 0: not applied then).
float length_factor(const LogitTransform& t, int keys);

// z[0, n) holds round(n) of one row (or of whole rows sharing `rowFactor`); makes it the final z.
void transform_logits(const LogitTransform& t, float rowFactor, Format fmt, float* z,
                      std::size_t n);

// ∂z/∂n / scale for one row, ignoring rounding: ℓ · (1 − tanh²(u/c)) (or ℓ, or 1), with
// u = round(n) · scale · ℓ recomputed from `rounded` (the row's round(n)); slope may be rounded.
// Without `lengthInSlope` the slope leaves ℓ out, for a caller that multiplies by ℓ after the
// scale (the trainer's order, softmax_backward_row's `after`).
void logit_slopes(const LogitTransform& t, float rowFactor, const float* rounded, float* slope,
                  std::size_t n, bool lengthInSlope = true);

}  // namespace attnscale
