// QK-norm: each query and key row normalized over its d components before q·k.
//   rms:   x̂ = x / √(mean(x²) + ε)
//   layer: x̂ = (x − mean x) / √(mean((x − mean x)²) + ε)
// with ε = kQkNormEps, no gain and no bias (the trainer's copies multiply x̂ by a learnable gain).
// Sums run in index order, so every build gives the same bits. Their precision is the `Sums`
// policy's: the engine sums in double and divides by d; the trainer sums in float and multiplies
// by 1/d, which is what its recorded curves were computed with.
#pragma once

#include "config/logit_schemes.hpp"

namespace attnscale {

struct DoubleSums {
  using type = double;
  static double mean(double sum, int d) { return sum / d; }
};

struct FloatSums {
  using type = float;
  static float mean(float sum, int d) { return sum * (1.0f / static_cast<float>(d)); }
};

// Writes x̂ (fp32) to out and returns 1/√(… + ε), which the backward needs.
template <class Sums = DoubleSums>
float normalize_row(QkNorm norm, const float* x, int d, float* out);

// ∂L/∂x from g = ∂L/∂x̂, in place: the normalization's Jacobian is symmetric,
//   rms:   J = inv · (I − x̂x̂ᵀ/d)           layer: J = inv · (I − 11ᵀ/d − x̂x̂ᵀ/d)
// (exact with ε: x̂ already carries it).
template <class Sums = DoubleSums>
void normalize_row_backward(QkNorm norm, const float* xhat, float inv, int d, float* g);

// The plain double-precision reference of each (for the reference runs of the engine and of the
// trainer): out may be x, and g is changed in place.
double normalize_row_reference(QkNorm norm, const double* x, int d, double* out);
void normalize_row_backward_reference(QkNorm norm, const double* xhat, double inv, int d,
                                      double* g);

}  // namespace attnscale
