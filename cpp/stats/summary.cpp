#include "stats/summary.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace attnscale {

Moments visible_moments(const float* m, int seqLen, bool causal) {
  Moments out;
  double sum = 0, sumSq = 0;
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (int i = 0; i < seqLen; ++i) {
    const float* row = m + static_cast<long>(i) * seqLen;
    const int n = visible_keys(i, seqLen, causal);
    double rowSum = 0;
    for (int j = 0; j < n; ++j) {
      const double x = row[j];
      if (!std::isfinite(x)) {
        ++out.nonFinite;
        continue;
      }
      rowSum += x;
      lo = std::min(lo, x);
      hi = std::max(hi, x);
      ++out.count;
    }
    sum += rowSum;
  }
  const double nan = std::numeric_limits<double>::quiet_NaN();
  if (out.count == 0) {
    out.mean = out.std = out.min = out.max = nan;
    return out;
  }
  out.mean = sum / static_cast<double>(out.count);
  // Second pass around the mean: no cancellation when |mean| >> std (e.g. mean = 5 components).
  for (int i = 0; i < seqLen; ++i) {
    const float* row = m + static_cast<long>(i) * seqLen;
    const int n = visible_keys(i, seqLen, causal);
    for (int j = 0; j < n; ++j) {
      const double x = row[j];
      if (std::isfinite(x)) sumSq += (x - out.mean) * (x - out.mean);
    }
  }
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
  for (int i = 0; i < seqLen; ++i) {
    const float* row = m + static_cast<long>(i) * seqLen;
    const int n = visible_keys(i, seqLen, causal);
    for (int j = 0; j < n; ++j) {
      const double x = row[j];
      if (!std::isfinite(x)) continue;
      int b = static_cast<int>((x - lo) / width);
      b = std::clamp(b, 0, kHistogramBins - 1);
      ++h.counts[b];
    }
  }
  return h;
}

double median_of_finite(std::vector<float> values) {
  values.erase(std::remove_if(values.begin(), values.end(), [](float v) { return !std::isfinite(v); }),
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
