// Deterministic transcendental functions for the trainer.
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

namespace attnscale::train {

// e^x per lane (Cephes expf range reduction + degree-6 polynomial), max error ~2 ulp.
// x > 88.376 -> +inf; x < -87.337 -> 0 (no subnormal results); NaN -> NaN.
inline simd::vf exp_vf(simd::vf x) {
  using simd::vf;
  using simd::vu;
  const vf hi(88.3762626647949f);
  const vf lo(-87.3365447504019f);
  vf xc = simd::select(x < lo, lo, x);  // clamp keeps the integer exponent in range; NaN passes
  xc = simd::select(xc > hi, hi, xc);
  const vf magic(12582912.0f);  // 1.5 * 2^23: adding it rounds to the nearest integer
  const vf tm = xc * vf(1.44269504088896341f) + magic;
  const vf n = tm - magic;
  vf r = xc - n * vf(0.693359375f);
  r = r - n * vf(-2.12194440e-4f);
  vf p(1.9875691500e-4f);
  p = p * r + vf(1.3981999507e-3f);
  p = p * r + vf(8.3334519073e-3f);
  p = p * r + vf(4.1665795894e-2f);
  p = p * r + vf(1.6666665459e-1f);
  p = p * r + vf(5.0000001201e-1f);
  vf y = p * r * r + r + vf(1.0f);
  // 2^n built in two halves (n in [-126, 128] after the clamp) so each exponent field is normal.
  const vu nu = simd::as_u(tm) - simd::as_u(magic);
  const vu n1 = simd::as_u(simd::as_i(nu) >> 1);
  const vu n2 = nu - n1;
  y = y * simd::as_f((n1 + vu(127u)) << 23);
  y = y * simd::as_f((n2 + vu(127u)) << 23);
  y = simd::select(x > hi, vf(std::numeric_limits<float>::infinity()), y);
  y = simd::select(x < lo, vf(0.0f), y);
  return y;
}

// Natural log per lane for positive normal x (Cephes logf), max error ~2 ulp. Lanes with x <= 0,
// subnormal, inf or NaN give unspecified values: callers mask them.
inline simd::vf log_vf(simd::vf x) {
  using simd::vf;
  using simd::vi;
  const vi bits = simd::as_i(x);
  const vi e = (bits >> 23) - vi(126);
  vf m = simd::as_f((bits & vi(0x007fffff)) | vi(0x3f000000));  // mantissa in [0.5, 1)
  const simd::mf small = m < vf(0.707106781186547524f);
  const vf ef = simd::to_float(e) - simd::select(small, vf(1.0f), vf(0.0f));
  m = simd::select(small, m + m, m) - vf(1.0f);
  const vf z = m * m;
  vf y(7.0376836292e-2f);
  y = y * m - vf(1.1514610310e-1f);
  y = y * m + vf(1.1676998740e-1f);
  y = y * m - vf(1.2420140846e-1f);
  y = y * m + vf(1.4249322787e-1f);
  y = y * m - vf(1.6668057665e-1f);
  y = y * m + vf(2.0000714765e-1f);
  y = y * m - vf(2.4999993993e-1f);
  y = y * m + vf(3.3333331174e-1f);
  y = y * m * z;
  y = y + ef * vf(-2.12194440e-4f);
  y = y - vf(0.5f) * z;
  vf out = m + y;
  out = out + ef * vf(0.693359375f);
  return out;
}

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
