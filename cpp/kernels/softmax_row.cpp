#include "kernels/softmax_row.hpp"

#include <cmath>
#include <limits>

#include "simd/batch.hpp"
#include "simd/fast_math.hpp"

namespace attnscale {

namespace {
using simd::vf;
constexpr int W = static_cast<int>(simd::W);

float row_max(const float* z, int n) {
  int j = 0;
  float m = -std::numeric_limits<float>::infinity();
  if (n >= W) {
    vf acc = simd::loadu(z);
    for (j = W; j + W <= n; j += W) acc = simd::vmax(acc, simd::loadu(z + j));
    m = simd::reduce_max(acc);
  }
  for (; j < n; ++j) m = z[j] > m ? z[j] : m;
  return m;
}

int count_non_finite(const float* x, int n) {
  int count = 0;
  for (int j = 0; j < n; ++j) count += std::isfinite(x[j]) ? 0 : 1;
  return count;
}
}  // namespace

SoftmaxRowCounts softmax_row(const float* z, int n, bool subtractMax, Format fmt, float* p) {
  SoftmaxRowCounts counts;
  const float m = subtractMax ? row_max(z, n) : 0.0f;
  const vf mv(m);
  int j = 0;
  for (; j + W <= n; j += W) simd::storeu(p + j, simd::exp_fast(simd::loadu(z + j) - mv));
  for (; j < n; ++j) {
    alignas(64) float lane[W] = {};
    lane[0] = z[j];
    simd::storeu(lane, simd::exp_fast(simd::loadu(lane) - mv));
    p[j] = lane[0];
  }
  round_inplace(fmt, p, static_cast<std::size_t>(n));
  counts.expNonFinite = count_non_finite(p, n);

  vf acc(0.0f);
  j = 0;
  for (; j + W <= n; j += W) acc = acc + simd::loadu(p + j);
  float sum = simd::reduce_add(acc);
  for (; j < n; ++j) sum = sum + p[j];

  const vf sv(sum);
  j = 0;
  for (; j + W <= n; j += W) simd::storeu(p + j, simd::loadu(p + j) / sv);
  for (; j < n; ++j) p[j] = p[j] / sum;
  round_inplace(fmt, p, static_cast<std::size_t>(n));
  counts.weightNonFinite = count_non_finite(p, n);
  return counts;
}

double jacobian_norm_squared(const float* p, int n) {
  int argmax = 0;
  for (int j = 1; j < n; ++j)
    if (p[j] > p[argmax]) argmax = j;
  const double pmax = p[argmax];
  double rest = 0;  // R
  for (int j = 0; j < n; ++j)
    if (j != argmax) rest += static_cast<double>(p[j]) * p[j];
  double diag = 0, off = 2 * pmax * pmax * rest;
  for (int j = 0; j < n; ++j) {
    const double x = p[j], x2 = x * x;
    diag += x2 * (1 - x) * (1 - x);
    if (j != argmax) off += x2 * (rest - x2 > 0 ? rest - x2 : 0.0);
  }
  return diag + off;
}

RowStats weight_row_stats(const float* p, int n) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  float maxWeight = 0;
  for (int j = 0; j < n; ++j) {
    if (!std::isfinite(p[j])) return {nan, nan, nan};
    maxWeight = p[j] > maxWeight ? p[j] : maxWeight;
  }
  // −Σ p ln p; weights below FLT_MIN contribute < 1e-36 and are skipped (log_fast_normal's domain).
  const vf tiny(std::numeric_limits<float>::min());
  vf acc(0.0f);
  int j = 0;
  for (; j + W <= n; j += W) {
    vf x = simd::loadu(p + j);
    simd::mf ok = x >= tiny;
    vf safe = simd::select(ok, x, vf(1.0f));
    acc = acc + simd::select(ok, x * simd::log_fast_normal(safe), vf(0.0f));
  }
  double plogp = simd::reduce_add(acc);
  for (; j < n; ++j)
    if (p[j] >= std::numeric_limits<float>::min()) plogp += p[j] * std::log(p[j]);
  const double entropy = -plogp > 0 ? -plogp : 0.0;
  return {static_cast<float>(entropy), maxWeight,
          static_cast<float>(std::sqrt(jacobian_norm_squared(p, n)))};
}

}  // namespace attnscale
