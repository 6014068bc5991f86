// The attention's metrics of a step (attention_tally.hpp).
#include "train/model/attention_tally.hpp"

#include <cmath>
#include <cstddef>

#include "kernels/softmax_row.hpp"
#include "simd/batch.hpp"

namespace attnscale::train {

namespace {

// Whether any element exceeds t (NaN never does).
bool any_above(const float* x, int n, float t) {
  constexpr int W = static_cast<int>(simd::W);
  const simd::vf tv(t);
  int j = 0;
  for (; j + W <= n; j += W)
    if (simd::any(simd::loadu(x + j) > tv)) return true;
  for (; j < n; ++j)
    if (x[j] > t) return true;
  return false;
}

double nan_max(double m, double x) { return std::isnan(m) || x <= m ? m : x; }
double nan_min(double m, double x) { return std::isnan(m) || x >= m ? m : x; }

}  // namespace

void tally_logits(const float* S, int T, AttentionTally& t) {
  for (int i = 0; i < T; ++i) {
    const float* z = S + static_cast<std::size_t>(i) * T;
    double sum = 0.0;
    for (int j = 0; j < T; ++j) {
      sum += static_cast<double>(z[j]);
      t.maxAbsLogit = nan_max(t.maxAbsLogit, std::fabs(static_cast<double>(z[j])));
    }
    const double mean = sum / T;
    double squares = 0.0;
    for (int j = 0; j < T; ++j) {
      const double d = static_cast<double>(z[j]) - mean;
      squares += d * d;
    }
    t.maxCentredNorm = nan_max(t.maxCentredNorm, std::sqrt(squares));
  }
}

double max_row_norm2(const float* x, int T, int dk, double m) {
  for (int t = 0; t < T; ++t) {
    double ss = 0.0;
    for (int c = 0; c < dk; ++c) {
      const double v = static_cast<double>(x[static_cast<std::size_t>(t) * dk + c]);
      ss += v * v;
    }
    m = nan_max(m, ss);
  }
  return m;
}

void tally_weights(const float* P, int T, float* tmp, AttentionTally& t) {
  for (int i = 0; i < T; ++i) {
    const float* row = P + static_cast<std::size_t>(i) * T;
    if (any_above(row, T, 0.99f)) ++t.saturated;  // largest weight > 0.99
    const double h = entropy_in_index_order(row, T, tmp);
    t.entropySum += h;
    t.minRowEntropy = nan_min(t.minRowEntropy, h);
  }
}

}  // namespace attnscale::train
