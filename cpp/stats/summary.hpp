// Summaries of the visible part of a T×T logit matrix (row i sees keys [0, visible(i))).
#pragma once

#include <cstdint>
#include <vector>

namespace attnscale {

inline int visible_keys(int row, int seqLen, bool causal) { return causal ? row + 1 : seqLen; }

struct Moments {
  std::uint64_t count = 0;      // finite visible entries
  std::uint64_t nonFinite = 0;  // inf or NaN visible entries
  double mean = 0, std = 0, min = 0, max = 0;
};

struct Histogram {
  std::vector<double> edges;          // bins + 1
  std::vector<std::uint32_t> counts;  // bins
};

inline constexpr int kHistogramBins = 64;

// Mean, population std, min and max of the finite visible entries; NaN fields when none.
Moments visible_moments(const float* m, int seqLen, bool causal);

// kHistogramBins equal bins over [min, max] of the finite visible entries (a unit-wide range
// around the value when all are equal; empty counts when none is finite).
Histogram visible_histogram(const float* m, int seqLen, bool causal, const Moments& moments);

// Median of the finite values (NaN when none).
double median_of_finite(std::vector<float> values);

}  // namespace attnscale
