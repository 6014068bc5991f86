#include "engine/run_result.hpp"

namespace attnscale {

const char* stage_name(Stage s) {
  switch (s) {
    case Stage::logits:
      return "logits";
    case Stage::exp:
      return "exp";
    case Stage::weights:
      return "weights";
    case Stage::output:
      return "output";
    case Stage::none:
      break;
  }
  return "";
}

#define ATTNSCALE_FIELD(name)                                            \
  {                                                                      \
#name, [](const RunStats& s) { return static_cast<double>(s.name); } \
  }

const std::vector<ScalarField>& scalar_fields() {
  static const std::vector<ScalarField> fields = {
      ATTNSCALE_FIELD(rawLogitMean),       ATTNSCALE_FIELD(rawLogitStd),
      ATTNSCALE_FIELD(rawLogitStdTheory),  ATTNSCALE_FIELD(normLogitStd),
      ATTNSCALE_FIELD(scaleFactor),        ATTNSCALE_FIELD(logitMean),
      ATTNSCALE_FIELD(logitStd),           ATTNSCALE_FIELD(logitMin),
      ATTNSCALE_FIELD(logitMax),           ATTNSCALE_FIELD(entropy),
      ATTNSCALE_FIELD(entropyMax),         ATTNSCALE_FIELD(maxWeight),
      ATTNSCALE_FIELD(saturatedFraction),  ATTNSCALE_FIELD(jacobianNormMean),
      ATTNSCALE_FIELD(jacobianNormMedian), ATTNSCALE_FIELD(gradNormQ),
      ATTNSCALE_FIELD(gradNormK),          ATTNSCALE_FIELD(nonFiniteRows),
      ATTNSCALE_FIELD(onlineMaxAbsDiff),   ATTNSCALE_FIELD(largestFinite),
  };
  return fields;
}

#undef ATTNSCALE_FIELD

}  // namespace attnscale
