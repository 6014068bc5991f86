// Summaries of the visible part of a T×T logit matrix (row i sees keys [0, visible(i))).
#pragma once

#include <cstdint>
#include <limits>
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

// Sum, min, max and counts of one row's n values. The vector path is exact for rows with no
// inf/NaN (then the float sum of ≤ 2048 values is finite); a row with any is redone by the scalar
// loop.
struct RowSums {
  double sum = 0;
  float lo = std::numeric_limits<float>::infinity();
  float hi = -std::numeric_limits<float>::infinity();
  std::uint64_t finite = 0, nonFinite = 0;
};
RowSums row_sums(const float* x, int n);

// Σ (x − mean)² over the finite entries of one row (allFinite: the row has no inf/NaN, so the
// vector path applies).
double row_squares(const float* x, int n, float mean, bool allFinite);

// Mean, population std, min and max of the finite visible entries; NaN fields when none.
Moments visible_moments(const float* m, int seqLen, bool causal);

// kHistogramBins equal bins over [min, max] of the finite visible entries (a unit-wide range
// around the value when all are equal; empty counts when none is finite).
Histogram visible_histogram(const float* m, int seqLen, bool causal, const Moments& moments);

// Median of the finite values (NaN when none).
double median_of_finite(std::vector<float> values);

}  // namespace attnscale
