// Deterministic transcendental functions for the trainer, on top of the engine's own
// (simd/fast_math.hpp) under the names the trainer's code uses.
//
// Every function here is built from IEEE + - * / and integer bit operations only, so it returns the
// same bits natively (AVX2), in wasm SIMD128 and in the scalar wasm build: the vector versions are
// lane-wise (no horizontal step), the scalar ones use no libm. std::exp / std::log are avoided on
// purpose: glibc and Emscripten's musl round differently, which would break bit-identical curves.
#pragma once

#include "simd/batch.hpp"
#include "simd/fast_math.hpp"

namespace attnscale::train {

using simd::apply_vf;

// e^x per lane: simd::exp_fast with results below FLT_MIN flushed to 0 (x < -87.3365), as the
// trainer has always computed it: its curves and golden values stay the same bits. Max error
// ~2 ulp; x > ln FLT_MAX -> +inf; NaN -> NaN.
inline simd::vf exp_vf(simd::vf x) {
  return simd::select(x < simd::vf(-87.3365447504019f), simd::vf(0.0f), simd::exp_fast(x));
}

// The natural log in double: the engine's (simd/fast_math.hpp).
inline double det_log(double x) { return simd::log_double(x); }

// cos(pi p) for p in [0, 1], in double (the learning-rate schedule's cosine): sin(u) at
// u = pi (1/2 - p), |u| <= pi/2, by its odd Taylor polynomial to u^25 in nested form (the first
// omitted term is below 1e-23). IEEE + - * / only: the same bits in every build.
inline double det_cos_pi(double p) {
  const double u = 3.14159265358979323846 * (0.5 - p);
  const double u2 = u * u;
  double s = 1.0;
  for (int k = 12; k >= 1; --k) s = 1.0 - s * u2 / ((2.0 * k) * (2.0 * k + 1.0));
  return u * s;
}

}  // namespace attnscale::train
