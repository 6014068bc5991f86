#include "stats/summary.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "simd/batch.hpp"

namespace attnscale {

namespace {
using simd::vf;
constexpr int W = static_cast<int>(simd::W);
}  // namespace

RowSums row_sums(const float* x, int n) {
  RowSums r;
  int j = 0;
  if (n >= W) {
    vf sum(0.0f), lo = simd::loadu(x), hi = lo;
    for (; j + W <= n; j += W) {
      const vf v = simd::loadu(x + j);
      sum = sum + v;
      lo = simd::vmin(lo, v);
      hi = simd::vmax(hi, v);
    }
    const float s = simd::reduce_add(sum);
    const float mn = -simd::reduce_max(vf(0.0f) - lo), mx = simd::reduce_max(hi);
    if (!std::isfinite(s) || !std::isfinite(mn) || !std::isfinite(mx))
      j = 0;
    else {
      r.sum = s;
      r.lo = mn;
      r.hi = mx;
      r.finite = static_cast<std::uint64_t>(j);
    }
  }
  for (; j < n; ++j) {
    const float v = x[j];
    if (!std::isfinite(v)) {
      ++r.nonFinite;
      continue;
    }
    r.sum += v;
    r.lo = std::min(r.lo, v);
    r.hi = std::max(r.hi, v);
    ++r.finite;
  }
  return r;
}

double row_squares(const float* x, int n, float mean, bool allFinite) {
  double out = 0;
  int j = 0;
  if (allFinite) {
    vf acc(0.0f);
    const vf m(mean);
    for (; j + W <= n; j += W) {
      const vf dv = simd::loadu(x + j) - m;
      acc = acc + dv * dv;
    }
    out = simd::reduce_add(acc);
  }
  for (; j < n; ++j)
    if (std::isfinite(x[j])) out += (static_cast<double>(x[j]) - mean) * (x[j] - mean);
  return out;
}

Moments visible_moments(const float* m, int seqLen, bool causal) {
  Moments out;
  double sum = 0;
  float lo = std::numeric_limits<float>::infinity(), hi = -lo;
  std::vector<char> rowFinite(seqLen);
  for (int i = 0; i < seqLen; ++i) {
    const RowSums r = row_sums(m + static_cast<long>(i) * seqLen, visible_keys(i, seqLen, causal));
    sum += r.sum;
    lo = std::min(lo, r.lo);
    hi = std::max(hi, r.hi);
    out.count += r.finite;
    out.nonFinite += r.nonFinite;
    rowFinite[i] = r.nonFinite == 0;
  }
  const double nan = std::numeric_limits<double>::quiet_NaN();
  if (out.count == 0) {
    out.mean = out.std = out.min = out.max = nan;
    return out;
  }
  out.mean = sum / static_cast<double>(out.count);
  // Second pass around the mean: no cancellation when |mean| >> std (e.g. component mean 5).
  double sumSq = 0;
  for (int i = 0; i < seqLen; ++i)
    sumSq += row_squares(m + static_cast<long>(i) * seqLen, visible_keys(i, seqLen, causal),
                         static_cast<float>(out.mean), rowFinite[i]);
  out.std = std::sqrt(sumSq / static_cast<double>(out.count));
  out.min = lo;
  out.max = hi;
  return out;
}

Histogram visible_histogram(const float* m, int seqLen, bool causal, const Moments& moments) {
  Histogram h;
  h.counts.assign(kHistogramBins, 0);
  h.edges.resize(kHistogramBins + 1);
  double lo = moments.min, hi = moments.max;
  if (moments.count == 0) {
    lo = -1;
    hi = 1;
  } else if (!(hi > lo)) {
    lo -= 0.5;
    hi += 0.5;
  }
  const double width = (hi - lo) / kHistogramBins;
  for (int b = 0; b <= kHistogramBins; ++b) h.edges[b] = lo + width * b;
  h.edges[kHistogramBins] = hi;
  if (moments.count == 0) return h;
  const float lof = static_cast<float>(lo), inv = static_cast<float>(kHistogramBins / (hi - lo));
  alignas(64) std::int32_t bins[W];
  const vf vlo(lof), vinv(inv), top(kHistogramBins - 1), bottom(0.0f), half(0.5f),
      magic(1.5f * 8388608.0f);
  for (int i = 0; i < seqLen; ++i) {
    const float* row = m + static_cast<long>(i) * seqLen;
    const int n = visible_keys(i, seqLen, causal);
    int j = 0;
    // Rows free of inf/NaN (all of them, usually) take the vector path: floor((x − lo)/width) as
    // round-to-nearest of (x − lo)/width − ½ through the 1.5·2^23 trick, clamped to the bins.
    const bool finiteRow = row_sums(row, n).nonFinite == 0;
    if (finiteRow)
      for (; j + W <= n; j += W) {
        vf t = (simd::loadu(row + j) - vlo) * vinv - half;
        t = simd::vmin(simd::vmax(t, bottom), top);
        simd::storeu(bins, simd::as_i(t + magic) - simd::as_i(magic));
        for (int l = 0; l < W; ++l) ++h.counts[bins[l]];
      }
    for (; j < n; ++j) {
      const float x = row[j];
      if (!std::isfinite(x)) continue;
      const int b = static_cast<int>((x - lof) * inv);
      ++h.counts[std::clamp(b, 0, kHistogramBins - 1)];
    }
  }
  return h;
}

double median_of_finite(std::vector<float> values) {
  values.erase(
      std::remove_if(values.begin(), values.end(), [](float v) { return !std::isfinite(v); }),
      values.end());
  if (values.empty()) return std::numeric_limits<double>::quiet_NaN();
  const std::size_t mid = values.size() / 2;
  std::nth_element(values.begin(), values.begin() + mid, values.end());
  double upper = values[mid];
  if (values.size() % 2 == 1) return upper;
  double lower = *std::max_element(values.begin(), values.begin() + mid);
  return 0.5 * (lower + upper);
}

}  // namespace attnscale
