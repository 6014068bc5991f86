#include "reference/reference_analyze.hpp"

#include <cmath>

#include "precision/format.hpp"

namespace attnscale {

namespace {

// Mean and population σ of the finite values, one pass over Σx and Σx² in long double.
void moments(const float* x, std::size_t n, double& mean, double& sd) {
  long double sum = 0, squares = 0, count = 0;
  for (std::size_t i = 0; i < n; ++i)
    if (std::isfinite(x[i])) {
      sum += x[i];
      squares += static_cast<long double>(x[i]) * x[i];
      count += 1;
    }
  mean = static_cast<double>(sum / count);
  sd = static_cast<double>(
      std::sqrt(std::max(0.0L, squares / count - (sum / count) * (sum / count))));
}

std::vector<double> rounded(const Config& c, const float* x, std::size_t n) {
  std::vector<double> out(n);
  for (std::size_t i = 0; i < n; ++i) out[i] = round_reference(c.format, x[i]);
  return out;
}

}  // namespace

std::vector<ReferenceHead> reference_analyze(const Config& c, const LayerInputs& in) {
  const std::size_t n = static_cast<std::size_t>(in.seqLen) * in.dk;
  std::vector<ReferenceHead> out(in.heads);
  for (int h = 0; h < in.heads; ++h) {
    ReferenceHead& r = out[h];
    r.kvHead = h * in.kvHeads / in.heads;
    const float* q = in.q + h * n;
    const float* k = in.k + r.kvHead * n;
    moments(q, n, r.qMean, r.qStd);
    moments(k, n, r.kMean, r.kStd);
    // E[(Σ q_i k_i)²] − E[Σ q_i k_i]² for independent components: d(E[q²]E[k²] − μ_q²μ_k²).
    const double q2 = r.qStd * r.qStd + r.qMean * r.qMean, k2 = r.kStd * r.kStd + r.kMean * r.kMean;
    r.iidRawLogitStd = std::sqrt(in.dk * (q2 * k2 - r.qMean * r.qMean * r.kMean * r.kMean));
    ReferenceInputs ri;
    ri.seqLen = in.seqLen;
    ri.dk = in.dk;
    ri.q = rounded(c, q, n);
    ri.k = rounded(c, k, n);
    ri.v = in.v ? rounded(c, in.v + r.kvHead * n, n) : std::vector<double>(n, 0.0);
    ri.g.assign(n, 0.0);
    r.result = reference_run(c, ri);
  }
  return out;
}

}  // namespace attnscale
