// Deterministic transcendental functions for the trainer, on top of the engine's own
// (simd/fast_math.hpp): the same exp and log, plus the trainer's tanh and double-precision log.
//
// Every function here is built from IEEE + - * / and integer bit operations only, so it returns the
// same bits natively (AVX2), in wasm SIMD128 and in the scalar wasm build: the vector versions are
// lane-wise (no horizontal step), the scalar ones use no libm. std::exp / std::log are avoided on
// purpose: glibc and Emscripten's musl round differently, which would break bit-identical curves.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>

#include "simd/batch.hpp"
#include "simd/fast_math.hpp"

namespace attnscale::train {

// e^x per lane: simd::exp_fast with results below FLT_MIN flushed to 0 (x < -87.3365), as the
// trainer has always computed it: its curves and golden values stay the same bits. Max error
// ~2 ulp; x > ln FLT_MAX -> +inf; NaN -> NaN.
inline simd::vf exp_vf(simd::vf x) {
  return simd::select(x < simd::vf(-87.3365447504019f), simd::vf(0.0f), simd::exp_fast(x));
}

// Natural log per lane for positive normal x: simd::log_fast_normal. Lanes with x <= 0,
// subnormal, inf or NaN give unspecified values: callers mask them.
inline simd::vf log_vf(simd::vf x) { return simd::log_fast_normal(x); }

// tanh per lane. |x| < 0.3: the odd Taylor series to x^13 (the first omitted term is below
// 0.4 ulp there); otherwise (1 - e) / (1 + e) with e = exp_vf(-2|x|) <= 0.55, so the difference
// loses no precision. Sign copied from x; tanh(+-inf) = +-1; NaN -> NaN.
inline simd::vf tanh_vf(simd::vf x) {
  using simd::vf;
  using simd::vu;
  const vf ax = simd::abs(x);
  const vf e = exp_vf(vf(-2.0f) * ax);
  const vf far = (vf(1.0f) - e) / (vf(1.0f) + e);
  const vf signedFar = simd::as_f(simd::as_u(far) | (simd::as_u(x) & vu(0x80000000u)));
  const vf x2 = x * x;
  vf p(3.5921280365e-3f);             // 21844 / 6081075
  p = p * x2 - vf(8.8632355299e-3f);  // 1382 / 155925
  p = p * x2 + vf(2.1869488536e-2f);  // 62 / 2835
  p = p * x2 - vf(5.3968253968e-2f);  // 17 / 315
  p = p * x2 + vf(1.3333333333e-1f);  // 2 / 15
  p = p * x2 - vf(3.3333333333e-1f);  // 1 / 3
  const vf near = x + x * (x2 * p);
  return simd::select(ax < vf(0.3f), near, signedFar);
}

// Natural log in double, from frexp (exact) and the atanh series: |error| < 1e-16 relative.
inline double det_log(double x) {
  if (std::isnan(x) || x < 0.0) return std::numeric_limits<double>::quiet_NaN();
  if (x == 0.0) return -std::numeric_limits<double>::infinity();
  if (std::isinf(x)) return x;
  int e = 0;
  double m = std::frexp(x, &e);  // x = m * 2^e, m in [0.5, 1)
  if (m < 0.70710678118654752440) {
    m = m + m;
    e -= 1;
  }
  const double u = (m - 1.0) / (m + 1.0);  // |u| <= 0.1716
  const double u2 = u * u;
  double s = 1.0 / 23.0;
  s = s * u2 + 1.0 / 21.0;
  s = s * u2 + 1.0 / 19.0;
  s = s * u2 + 1.0 / 17.0;
  s = s * u2 + 1.0 / 15.0;
  s = s * u2 + 1.0 / 13.0;
  s = s * u2 + 1.0 / 11.0;
  s = s * u2 + 1.0 / 9.0;
  s = s * u2 + 1.0 / 7.0;
  s = s * u2 + 1.0 / 5.0;
  s = s * u2 + 1.0 / 3.0;
  s = s * u2 + 1.0;
  return 2.0 * u * s + static_cast<double>(e) * 0.69314718055994530942;
}

// Apply a lane-wise vector function to n floats in place. The tail goes through a padded buffer,
// so every element sees exactly the same operations whatever the vector width.
template <class F>
inline void apply_vf(float* x, std::size_t n, F f) {
  std::size_t i = 0;
  for (; i + simd::W <= n; i += simd::W) simd::storeu(x + i, f(simd::loadu(x + i)));
  if (i < n) {
    float buf[simd::W];
    for (std::size_t k = 0; k < simd::W; ++k) buf[k] = i + k < n ? x[i + k] : 0.0f;
    simd::storeu(buf, f(simd::loadu(buf)));
    for (std::size_t k = 0; i + k < n; ++k) x[i + k] = buf[k];
  }
}

}  // namespace attnscale::train
