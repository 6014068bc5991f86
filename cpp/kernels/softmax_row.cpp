#include "kernels/softmax_row.hpp"

#include <algorithm>
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
  // x − x is NaN exactly for inf and NaN; per-lane counts (<= n / W) are exact in float.
  vf acc(0.0f);
  const vf one(1.0f), zero(0.0f);
  int j = 0;
  for (; j + W <= n; j += W) {
    const vf v = simd::loadu(x + j);
    acc = acc + simd::select(simd::isnan(v - v), one, zero);
  }
  int count = static_cast<int>(simd::reduce_add(acc));
  for (; j < n; ++j) count += std::isfinite(x[j]) ? 0 : 1;
  return count;
}
}  // namespace

template <class Sums>
SoftmaxRowCounts softmax_row(const float* z, int n, bool subtractMax, Format fmt, float* p) {
  SoftmaxRowCounts counts;
  const float m = subtractMax ? row_max(z, n) : 0.0f;
  const vf mv(m);
  const auto exp = [mv](vf x) {
    const vf d = x - mv;
    if constexpr (Sums::flushSubnormalExps)  // ln FLT_MIN: below it exp(d) is subnormal
      return simd::select(d < vf(-87.3365447504019f), vf(0.0f), simd::exp_fast(d));
    else
      return simd::exp_fast(d);
  };
  int j = 0;
  for (; j + W <= n; j += W) simd::storeu(p + j, exp(simd::loadu(z + j)));
  for (; j < n; ++j) {
    alignas(64) float lane[W] = {};
    lane[0] = z[j];
    simd::storeu(lane, exp(simd::loadu(lane)));
    p[j] = lane[0];
  }
  round_inplace(fmt, p, static_cast<std::size_t>(n));
  counts.expNonFinite = count_non_finite(p, n);

  float sum = 0.0f;
  j = 0;
  if constexpr (!Sums::inIndexOrder) {
    vf acc(0.0f);
    for (; j + W <= n; j += W) acc = acc + simd::loadu(p + j);
    sum = simd::reduce_add(acc);
  }
  for (; j < n; ++j) sum = sum + p[j];

  const vf sv(sum);
  j = 0;
  for (; j + W <= n; j += W) simd::storeu(p + j, simd::loadu(p + j) / sv);
  for (; j < n; ++j) p[j] = p[j] / sum;
  round_inplace(fmt, p, static_cast<std::size_t>(n));
  counts.weightNonFinite = count_non_finite(p, n);
  return counts;
}

template SoftmaxRowCounts softmax_row<LaneSums>(const float*, int, bool, Format, float*);
template SoftmaxRowCounts softmax_row<IndexOrderSums>(const float*, int, bool, Format, float*);

void softmax_backward_row(const float* p, const float* dp, int n, const float* slope, float scale,
                          float after, float* ds) {
  float r = 0;
  for (int j = 0; j < n; ++j) r = r + p[j] * dp[j];
  if (!slope && after == 1.0f) {
    const vf rv(r), sv(scale);
    int j = 0;
    for (; j + W <= n; j += W)
      simd::storeu(ds + j, simd::loadu(p + j) * (simd::loadu(dp + j) - rv) * sv);
    for (; j < n; ++j) ds[j] = p[j] * (dp[j] - r) * scale;
    return;
  }
  for (int j = 0; j < n; ++j) {
    float v = p[j] * (dp[j] - r);
    if (slope) v = v * slope[j];
    v = v * scale;
    if (after != 1.0f) v = v * after;
    ds[j] = v;
  }
}

double entropy_in_index_order(const float* p, int n, float* tmp) {
  std::copy_n(p, n, tmp);
  simd::apply_vf(tmp, static_cast<std::size_t>(n), [](vf x) {
    const vf h = -(x * simd::log_fast_normal(x));
    return simd::select(x <= vf(std::numeric_limits<float>::min()), vf(0.0f), h);
  });
  double h = 0.0;
  for (int j = 0; j < n; ++j) h += static_cast<double>(tmp[j]);
  return h;
}

namespace {

struct RowPeak {
  int argmax = 0;
  float pmax = 0;
  bool finite = true;
};

RowPeak row_peak(const float* p, int n) {
  RowPeak r;
  if (count_non_finite(p, n) == 0) {
    // All finite: the largest weight by vector max, then its first index (as the scalar scan).
    r.pmax = std::max(0.0f, row_max(p, n));
    if (r.pmax > 0)
      while (p[r.argmax] != r.pmax) ++r.argmax;
    return r;
  }
  for (int j = 0; j < n; ++j) {
    if (!std::isfinite(p[j])) r.finite = false;
    if (p[j] > r.pmax) {
      r.pmax = p[j];
      r.argmax = j;
    }
  }
  return r;
}

// Σ_{j in [from, to)} p_j², float lanes then double.
double sum_squares(const float* p, int from, int to) {
  vf acc(0.0f);
  int j = from;
  for (; j + W <= to; j += W) {
    const vf x = simd::loadu(p + j);
    acc = acc + x * x;
  }
  double out = simd::reduce_add(acc);
  for (; j < to; ++j) out += static_cast<double>(p[j]) * p[j];
  return out;
}

struct JacobianTerms {
  double diag = 0;   // Σ p_i²(1 − p_i)²
  double cross = 0;  // Σ_{i≠max} p_i² max(R − p_i², 0)
  double plogp = 0;  // Σ p ln p
};

// One pass over [from, to), which must not contain the argmax. Every accumulated term is ≥ 0 (or
// ≤ 0 for p ln p), so float lanes lose only relative precision, never to cancellation.
void accumulate_terms(const float* p, int from, int to, float rest, JacobianTerms& t) {
  const vf one(1.0f), zero(0.0f), R(rest), tiny(std::numeric_limits<float>::min());
  vf diag(0.0f), cross(0.0f), plogp(0.0f);
  int j = from;
  for (; j + W <= to; j += W) {
    const vf x = simd::loadu(p + j);
    const vf x2 = x * x, q = one - x;
    diag = diag + x2 * (q * q);
    cross = cross + x2 * simd::vmax(R - x2, zero);
    // p ln p; weights below FLT_MIN add < 1e-36 and are outside log_fast_normal's domain.
    const simd::mf ok = x >= tiny;
    plogp = plogp + simd::select(ok, x * simd::log_fast_normal(simd::select(ok, x, one)), zero);
  }
  t.diag += simd::reduce_add(diag);
  t.cross += simd::reduce_add(cross);
  t.plogp += simd::reduce_add(plogp);
  for (; j < to; ++j) {
    const double x = p[j], x2 = x * x;
    t.diag += x2 * (1 - x) * (1 - x);
    t.cross += x2 * std::max(static_cast<double>(rest) - x2, 0.0);
    if (p[j] >= std::numeric_limits<float>::min()) t.plogp += x * std::log(x);
  }
}

JacobianTerms row_terms(const float* p, int n, const RowPeak& peak, double& rest) {
  rest = sum_squares(p, 0, peak.argmax) + sum_squares(p, peak.argmax + 1, n);
  JacobianTerms t;
  accumulate_terms(p, 0, peak.argmax, static_cast<float>(rest), t);
  accumulate_terms(p, peak.argmax + 1, n, static_cast<float>(rest), t);
  const double m = peak.pmax;
  t.diag += m * m * (1 - m) * (1 - m);
  if (m > 0) t.plogp += m * std::log(m);
  return t;
}

double norm_squared(const JacobianTerms& t, double pmax, double rest) {
  return t.diag + 2 * pmax * pmax * rest + t.cross;
}

}  // namespace

double jacobian_norm_squared(const float* p, int n) {
  const RowPeak peak = row_peak(p, n);
  double rest = 0;
  const JacobianTerms t = row_terms(p, n, peak, rest);
  return norm_squared(t, peak.pmax, rest);
}

RowStats weight_row_stats(const float* p, int n) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const RowPeak peak = row_peak(p, n);
  if (!peak.finite) return {nan, nan, nan};
  double rest = 0;
  const JacobianTerms t = row_terms(p, n, peak, rest);
  const double entropy = -t.plogp > 0 ? -t.plogp : 0.0;
  return {static_cast<float>(entropy), peak.pmax,
          static_cast<float>(std::sqrt(norm_squared(t, peak.pmax, rest)))};
}

}  // namespace attnscale
