// The plain reference of AnalyzeEngine: each head through reference_run (double throughout) on the
// given q and k, rounded to the format as the engine stores them, with V zero when none is given.
#pragma once

#include <vector>

#include "config/config.hpp"
#include "engine/analyze.hpp"
#include "reference/reference_run.hpp"

namespace attnscale {

struct ReferenceHead {
  int kvHead = 0;
  double qMean = 0, qStd = 0, kMean = 0, kStd = 0, iidRawLogitStd = 0;
  ReferenceResult result;
};

std::vector<ReferenceHead> reference_analyze(const Config& c, const LayerInputs& in);

}  // namespace attnscale
