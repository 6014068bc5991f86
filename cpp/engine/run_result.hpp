// What one `run` measures. RunStats holds every scalar; the sweep reports the same scalars per d_k.
#pragma once

#include <cstdint>
#include <vector>

#include "stats/summary.hpp"

namespace attnscale {

enum class Stage : int { none = -1, logits = 0, exp = 1, weights = 2, output = 3 };
const char* stage_name(Stage s);  // "logits", "exp", "weights", "output" or "" for none

struct NonFiniteCounts {
  std::uint64_t logits = 0;   // visible scaled logits that are inf/NaN (raw or after scaling)
  std::uint64_t exp = 0;      // exp() results (rounded) that are inf/NaN
  std::uint64_t weights = 0;  // attention weights that are inf/NaN
  std::uint64_t output = 0;   // entries of O = PV that are inf/NaN
};

struct RunStats {
  double rawLogitMean = 0, rawLogitStd = 0, rawLogitStdTheory = 0;
  double normLogitStd = 0;  // σ of q̂·k̂ before the scale (= rawLogitStd without QK-norm)
  double scaleFactor = 1;
  double logitMean = 0, logitStd = 0, logitMin = 0, logitMax = 0;
  double entropy = 0, entropyMax = 0, maxWeight = 0, saturatedFraction = 0;
  double jacobianNormMean = 0, jacobianNormMedian = 0;
  double gradNormQ = 0, gradNormK = 0;
  double nonFiniteRows = 0;  // rows left out of the row statistics above
  double onlineMaxAbsDiff = 0;
  double largestFinite = 0;
  NonFiniteCounts nonFinite;
  Stage firstNonFiniteStage = Stage::none;
};

struct RunResult {
  RunStats stats;
  Histogram histogram;                                           // scaled logits
  Histogram rawHistogram;                                        // raw logits QKᵀ
  std::vector<float> attention;                                  // T×T, row-major
  std::vector<float> rowEntropy, rowMaxWeight, rowJacobianNorm;  // per query row
};

// The scalar fields by name, in one table, so bindings and the sweep never list them twice.
struct ScalarField {
  const char* name;
  double (*get)(const RunStats&);
};
const std::vector<ScalarField>& scalar_fields();

}  // namespace attnscale
