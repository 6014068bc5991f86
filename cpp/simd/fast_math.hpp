// exp, log, tanh and sin on simd::vf (and a log in double), built only from IEEE + - * / and
// integer bit moves, so each gives the same bits in every build (native AVX2, wasm SIMD128, wasm
// scalar). The measurement engine and the trainer (cpp/train/model/detmath.hpp) share them.
// xsimd::exp is avoided on purpose: under Emscripten its float->int step (_mm_cvttps_epi32) is
// lowered one lane at a time, and its results need not match across archs.
#pragma once

#include <cmath>
#include <cstddef>
#include <limits>

#include "simd/batch.hpp"

namespace attnscale::simd {

// 1.5 * 2^23: adding it to |x| < 2^22 leaves round-to-nearest(x) in the low mantissa bits.
inline constexpr float kRoundMagic = 12582912.0f;

// exp(x) with correct overflow (x > ln FLT_MAX -> inf), gradual underflow to subnormals and 0,
// and NaN passed through. Cody–Waite reduction x = n ln2 + r, |r| <= ln2/2, Cephes expf
// polynomial (~1 ulp), then 2^n applied as two exact power-of-two factors so that n in
// [-150, 128] reaches both the subnormal range and infinity with a single final rounding.
inline vf exp_fast(vf x) {
  const mf isNan = isnan(x);
  vf xc = vmin(vmax(x, vf(-104.0f)), vf(88.8f));
  vf t = xc * vf(1.44269504088896341f) + vf(kRoundMagic);
  vi n = as_i(t) - as_i(vf(kRoundMagic));
  vf nf = t - vf(kRoundMagic);
  vf r = xc - nf * vf(0.693359375f);
  r = r - nf * vf(-2.12194440e-4f);
  vf p = vf(1.9875691500e-4f);
  p = p * r + vf(1.3981999507e-3f);
  p = p * r + vf(8.3334519073e-3f);
  p = p * r + vf(4.1665795894e-2f);
  p = p * r + vf(1.6666665459e-1f);
  p = p * r + vf(5.0000001201e-1f);
  vf y = p * r * r + r + vf(1.0f);
  vi n1 = n >> 1;
  vi n2 = n - n1;
  vf s1 = as_f((n1 + vi(127)) << 23);
  vf s2 = as_f((n2 + vi(127)) << 23);
  y = (y * s1) * s2;
  return select(isNan, x, y);
}

// 2^x for x <= 0, the softmax's exp(z - max z) with z in units of log2 e (the forward folds
// log2 e into its logit scale, which saves exp's multiply and its two-step Cody–Waite reduction).
// t = x + (1.5·2^23 + 127) holds n + 127 in its low mantissa bits (n = round(x)), while the
// magic's own bits (0x4B400000) vanish in the shift left by 23; r = x − n in [-1/2, 1/2] is exact.
// 2^r: a degree-5 polynomial fitted to the relative error on that range (≤ 1.8e-7, ~2 ulp).
// Clamping x at -127 gives n >= -127, and n = -127 makes the factor +0: so results below
// 2^-126.5 are 0 (absolute error < 8.3e-39), those between are subnormal and correctly rounded
// products, and no compare or select is needed. NaN flows through. x > 0 is outside the domain
// (the result is wrong, not just inexact). ~16 vector ops against exp_fast's ~36.
inline vf exp2_nonpositive(vf x) {
  const vf magic(kRoundMagic + 127.0f);
  const vf xc = max_keep_nan(x, vf(-127.0f));
  const vf t = xc + magic;
  const vf r = xc - (t - magic);
  vf p = vf(1.3218672248e-3f);
  p = p * r + vf(9.6716983244e-3f);
  p = p * r + vf(5.5508930236e-2f);
  p = p * r + vf(2.4022237957e-1f);
  p = p * r + vf(6.9314688444e-1f);
  const vf y = p * r + vf(1.0f);
  return y * as_f(as_u(t) << 23);
}

// Natural log for normal positive x (x >= FLT_MIN, finite). Callers handle 0, subnormals,
// negatives and non-finite inputs themselves. Cephes logf: x = m 2^e with m in [√½, √2).
inline vf log_fast_normal(vf x) {
  vi bits = as_i(x);
  vi e = (bits >> 23) - vi(127);
  vf m = as_f((bits & vi(0x007fffff)) | vi(0x3f800000));  // [1, 2)
  mf big = m > vf(1.41421356f);
  m = select(big, m * vf(0.5f), m);
  e = e + select(to_mi(big), vi(1), vi(0));
  vf ef = to_float(e);
  vf f = m - vf(1.0f);
  vf z = f * f;
  vf p = vf(7.0376836292e-2f);
  p = p * f + vf(-1.1514610310e-1f);
  p = p * f + vf(1.1676998740e-1f);
  p = p * f + vf(-1.2420140846e-1f);
  p = p * f + vf(1.4249322787e-1f);
  p = p * f + vf(-1.6668057665e-1f);
  p = p * f + vf(2.0000714765e-1f);
  p = p * f + vf(-2.4999993993e-1f);
  p = p * f + vf(3.3333331174e-1f);
  vf y = p * f * z;
  y = y + ef * vf(-2.12194440e-4f);
  y = y - vf(0.5f) * z;
  return f + y + ef * vf(0.693359375f);
}

// sin(x) for |x| <= π/2: odd Taylor polynomial to x^11 (abs error < 1e-7 on that range).
inline vf sin_halfpi(vf x) {
  vf x2 = x * x;
  vf p = vf(-2.5052108385e-8f);
  p = p * x2 + vf(2.7557319224e-6f);
  p = p * x2 + vf(-1.9841269841e-4f);
  p = p * x2 + vf(8.3333333333e-3f);
  p = p * x2 + vf(-1.6666666667e-1f);
  return x + x * (p * x2);
}

// tanh per lane. |x| < 0.3: the odd Taylor series to x^13 (the first omitted term is below
// 0.4 ulp there); otherwise (1 - e) / (1 + e) with e = exp(-2|x|) <= 0.55, so the difference
// loses no precision (e below FLT_MIN gives exactly ±1). Sign copied from x; tanh(±inf) = ±1;
// NaN -> NaN.
inline vf tanh_fast(vf x) {
  const vf ax = abs(x);
  const vf e = exp_fast(vf(-2.0f) * ax);
  const vf far = (vf(1.0f) - e) / (vf(1.0f) + e);
  const vf signedFar = as_f(as_u(far) | (as_u(x) & vu(0x80000000u)));
  const vf x2 = x * x;
  vf p(3.5921280365e-3f);             // 21844 / 6081075
  p = p * x2 - vf(8.8632355299e-3f);  // 1382 / 155925
  p = p * x2 + vf(2.1869488536e-2f);  // 62 / 2835
  p = p * x2 - vf(5.3968253968e-2f);  // 17 / 315
  p = p * x2 + vf(1.3333333333e-1f);  // 2 / 15
  p = p * x2 - vf(3.3333333333e-1f);  // 1 / 3
  const vf near = x + x * (x2 * p);
  return select(ax < vf(0.3f), near, signedFar);
}

// Natural log in double, from frexp (exact) and the atanh series: |error| < 1e-16 relative. No
// libm log: glibc and Emscripten's musl need not round alike.
inline double log_double(double x) {
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
  for (double k = 21.0; k >= 1.0; k -= 2.0) s = s * u2 + 1.0 / k;
  return 2.0 * u * s + static_cast<double>(e) * 0.69314718055994530942;
}

// Applies a lane-wise vector function to n floats in place. The tail goes through a padded buffer,
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

}  // namespace attnscale::simd
