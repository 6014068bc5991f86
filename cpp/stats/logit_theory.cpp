#include "stats/logit_theory.hpp"

#include <cmath>

namespace attnscale {

double raw_logit_std_theory(int dk, int seqLen, bool causal, double mean, double std,
                            double correlation) {
  const double d = dk, mu2 = mean * mean, s2 = std * std, rho = correlation;
  const double meanOff = d * mu2;
  const double varOff = d * (s2 * s2 + 2 * mu2 * s2);
  const double meanDiag = d * (mu2 + rho * s2);
  const double varDiag = d * (s2 * s2 * (1 + rho * rho) + 2 * mu2 * s2 * (1 + rho));
  const double visible =
      causal ? 0.5 * seqLen * (seqLen + 1.0) : static_cast<double>(seqLen) * seqLen;
  const double f = seqLen / visible;  // share of diagonal pairs
  const double gap = meanDiag - meanOff;
  return std::sqrt((1 - f) * varOff + f * varDiag + f * (1 - f) * gap * gap);
}

}  // namespace attnscale
