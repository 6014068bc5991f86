#include "kernels/logit_transform.hpp"

#include "simd/fast_math.hpp"

namespace attnscale {

LogitTransform logit_transform(const Config& c) {
  return {scale_factor(c), c.lengthScale, static_cast<float>(c.softcap)};
}

float length_factor(const LogitTransform& t, int keys) {
  if (t.lengthScale == 0) return 1.0f;
  return static_cast<float>(t.lengthScale * simd::log_double(static_cast<double>(keys)));
}

void transform_logits(const LogitTransform& t, float rowFactor, Format fmt, float* z,
                      std::size_t n) {
  const float scale = t.scale;
  for (std::size_t i = 0; i < n; ++i) z[i] = z[i] * scale;
  if (t.lengthScale != 0)
    for (std::size_t i = 0; i < n; ++i) z[i] = z[i] * rowFactor;
  if (t.softcap != 0) {
    const simd::vf c(t.softcap);
    simd::apply_vf(z, n, [c](simd::vf u) { return c * simd::tanh_fast(u / c); });
  }
  round_inplace(fmt, z, n);
}

void logit_slopes(const LogitTransform& t, float rowFactor, const float* rounded, float* slope,
                  std::size_t n, bool lengthInSlope) {
  const float ell = t.lengthScale != 0 && lengthInSlope ? rowFactor : 1.0f;
  if (t.softcap == 0) {
    for (std::size_t i = 0; i < n; ++i) slope[i] = ell;
    return;
  }
  const float scale = t.scale;
  for (std::size_t i = 0; i < n; ++i) {
    float u = rounded[i] * scale;
    if (t.lengthScale != 0) u = u * rowFactor;
    slope[i] = u;
  }
  const simd::vf c(t.softcap), one(1.0f), l(ell);
  simd::apply_vf(slope, n, [=](simd::vf u) {
    const simd::vf th = simd::tanh_fast(u / c);
    return l * (one - th * th);
  });
}

}  // namespace attnscale
