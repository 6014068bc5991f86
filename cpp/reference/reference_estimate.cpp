#include "reference/reference_estimate.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "reference/reference_run.hpp"
#include "stats/summary.hpp"

namespace attnscale {

namespace {

constexpr double kNan = std::numeric_limits<double>::quiet_NaN();

// fp32 stays in double; other formats round through float (as reference_run).
double round_to(const Config& c, double x) {
  if (c.format.precision == Precision::fp32) return x;
  return round_reference(c.format, static_cast<float>(x));
}

// The sample's means and covariance matrix (divisor r − 1) of k per-row variables.
struct SampleMoments {
  std::vector<double> mean;
  std::vector<std::vector<double>> cov;
};

SampleMoments sample_moments(const std::vector<std::vector<double>>& vars) {
  const std::size_t k = vars.size(), r = vars.front().size();
  SampleMoments m;
  m.mean.assign(k, 0.0);
  m.cov.assign(k, std::vector<double>(k, 0.0));
  for (std::size_t a = 0; a < k; ++a) {
    for (double v : vars[a]) m.mean[a] += v;
    m.mean[a] /= static_cast<double>(r);
  }
  for (std::size_t a = 0; a < k; ++a)
    for (std::size_t b = 0; b < k; ++b) {
      double s = 0;
      for (std::size_t i = 0; i < r; ++i) s += (vars[a][i] - m.mean[a]) * (vars[b][i] - m.mean[b]);
      m.cov[a][b] = s / static_cast<double>(r - 1);
    }
  return m;
}

// Var(g(means)) ≈ (1 − f)/r · ∇gᵀ Σ ∇g: the delta method on the sample means.
double delta_se(const SampleMoments& m, const std::vector<double>& gradient, int r, int T) {
  double v = 0;
  for (std::size_t a = 0; a < gradient.size(); ++a)
    for (std::size_t b = 0; b < gradient.size(); ++b) v += gradient[a] * m.cov[a][b] * gradient[b];
  return std::sqrt(std::max(0.0, (1.0 - static_cast<double>(r) / T) / r * v));
}

// ȳ/x̄, gradient (1/x̄, −ȳ/x̄²).
Estimate ratio(const std::vector<double>& y, const std::vector<double>& x, int T) {
  const SampleMoments m = sample_moments({y, x});
  if (!(m.mean[1] > 0)) return {kNan, kNan};
  const double R = m.mean[0] / m.mean[1];
  const int r = static_cast<int>(y.size());
  return {R, delta_se(m, {1 / m.mean[1], -R / m.mean[1]}, r, T)};
}

// Mean and σ = √(B̄/n̄ − (Ā/n̄)²) of entries pooled over rows, from per-row sums A, B = Σz², n.
void moments(const std::vector<double>& A, const std::vector<double>& B,
             const std::vector<double>& n, int T, Estimate& mean, Estimate& sd) {
  mean = ratio(A, n, T);
  const SampleMoments m = sample_moments({A, B, n});
  const int r = static_cast<int>(A.size());
  const double nbar = m.mean[2], mu = m.mean[0] / nbar, m2 = m.mean[1] / nbar;
  const double sigma = std::sqrt(std::max(0.0, m2 - mu * mu));
  if (!(sigma > 0)) {
    sd = {sigma, 0};
    return;
  }
  // ∂σ/∂Ā = −μ/(n̄σ), ∂σ/∂B̄ = 1/(2n̄σ), ∂σ/∂n̄ = (2μ² − m₂)/(2n̄σ).
  sd = {sigma, delta_se(m,
                        {-mu / (nbar * sigma), 1 / (2 * nbar * sigma),
                         (2 * mu * mu - m2) / (2 * nbar * sigma)},
                        r, T)};
}

// Per-row sums of the finite visible entries of a T×T matrix.
void row_sums_of(const std::vector<double>& m, const Config& c, const std::vector<int>& rows,
                 std::vector<double>& A, std::vector<double>& B, std::vector<double>& n,
                 std::vector<double>* bad = nullptr) {
  const int T = c.seqLen;
  for (int i : rows) {
    double a = 0, b = 0, count = 0, nonFinite = 0;
    for (int j = 0; j < visible_keys(i, T, c.causal); ++j) {
      const double x = m[static_cast<std::size_t>(i) * T + j];
      if (!std::isfinite(x)) {
        nonFinite += 1;
        continue;
      }
      a += x;
      b += x * x;
      count += 1;
    }
    A.push_back(a);
    B.push_back(b);
    n.push_back(count);
    if (bad) bad->push_back(nonFinite);
  }
}

// The mean over rows i with use[i], its variance post-stratified on saturation: the within-kind
// part as the total sum of squares less the between-kind one, Σ(y − ȳ)² − Σ_h n_h(ȳ_h − ȳ)², and
// the between-kind part with Agresti–Coull's share of saturated rows and Δ = ȳ_sat − ȳ_unsat (all
// saturated: Δ = far − ȳ_sat; one unsaturated row: its spread ((far − ȳ_sat)/2)² at 3/(n + 4)).
Estimate saturation_mean(const std::vector<double>& y, const std::vector<double>& use,
                         const std::vector<double>& saturated, double far, int r, int T) {
  double n = 0, n1 = 0, sum = 0, sum1 = 0;
  for (std::size_t i = 0; i < y.size(); ++i) {
    n += use[i];
    n1 += use[i] * saturated[i];
    sum += use[i] * y[i];
    sum1 += use[i] * saturated[i] * y[i];
  }
  if (!(n > 0)) return {kNan, kNan};
  const double n0 = n - n1, mean = sum / n, mean1 = n1 > 0 ? sum1 / n1 : 0,
               mean0 = n0 > 0 ? (sum - sum1) / n0 : 0;
  double total = 0;
  for (std::size_t i = 0; i < y.size(); ++i) total += use[i] * (y[i] - mean) * (y[i] - mean);
  const double between =
      n1 * (mean1 - mean) * (mean1 - mean) + n0 * (mean0 - mean) * (mean0 - mean);
  double within = n > 1 ? (total - between) / ((n - 1) * n) : 0.0;
  double gap = 0;
  if (n1 > 0) gap = n0 > 0 ? mean1 - mean0 : far - mean1;
  if (n1 > 0 && n0 == 1) within += 3 / (n + 4) * (far - mean1) * (far - mean1) / 4 / (n + 4);
  const double p = (n1 + 2) / (n + 4);
  const double f = static_cast<double>(r) / T;
  return {mean, std::sqrt(std::max(0.0, (1 - f) * (within + p * (1 - p) * gap * gap / (n + 4))))};
}

Estimate agresti_coull(double k, double n, int r, int T) {
  if (!(n > 0)) return {kNan, kNan};
  const double p = (k + 2) / (n + 4);
  return {k / n, std::sqrt((1.0 - static_cast<double>(r) / T) * p * (1 - p) / (n + 4))};
}

}  // namespace

std::vector<EstimateStats> reference_estimate(const std::vector<Config>& configs, int dk,
                                              int rows) {
  Config first = configs.front();
  first.dk = dk;
  const int T = first.seqLen, r = rows;
  const std::vector<int> sample = estimate_rows(T, r, first.seed);
  const ReferenceInputs in = reference_inputs(first);
  std::vector<EstimateStats> out;
  for (Config c : configs) {
    c.dk = dk;
    const ReferenceResult ref = reference_run(c, in);
    EstimateStats e;
    e.rows = r;
    std::vector<double> A, B, n, bad;
    row_sums_of(ref.rawLogits, c, sample, A, B, n);
    moments(A, B, n, T, e.rawLogitMean, e.rawLogitStd);
    Estimate unused;
    A.clear(), B.clear(), n.clear();
    row_sums_of(ref.normLogits, c, sample, A, B, n);
    moments(A, B, n, T, unused, e.normLogitStd);
    A.clear(), B.clear(), n.clear();
    row_sums_of(ref.logits, c, sample, A, B, n, &bad);
    moments(A, B, n, T, e.logitMean, e.logitStd);

    std::vector<double> finite, sat, entropy, maxWeight, jacobian, gradSquares;
    std::vector<float> norms;
    double saturated = 0, expBad = 0, weightBad = 0, logitBad = 0;
    for (std::size_t s = 0; s < sample.size(); ++s) {
      const int i = sample[s], keys = visible_keys(i, T, c.causal);
      const bool ok = std::isfinite(ref.rowEntropy[i]);
      finite.push_back(ok ? 1 : 0);
      entropy.push_back(ok ? ref.rowEntropy[i] : 0);
      maxWeight.push_back(ok ? ref.rowMaxWeight[i] : 0);
      jacobian.push_back(ok ? ref.rowJacobianNorm[i] : 0);
      norms.push_back(static_cast<float>(ref.rowJacobianNorm[i]));
      saturated += ok && ref.rowMaxWeight[i] > 0.99 ? 1 : 0;
      sat.push_back(ok && ref.rowMaxWeight[i] > 0.99 ? 1 : 0);
      double g2 = 0;
      for (int k = 0; k < dk; ++k)
        g2 += ref.gradQ[static_cast<std::size_t>(i) * dk + k] *
              ref.gradQ[static_cast<std::size_t>(i) * dk + k];
      gradSquares.push_back(g2);
      // The row's exps and weights that are inf/NaN (as reference_run forms them).
      const double* z = &ref.logits[static_cast<std::size_t>(i) * T];
      double m = 0;
      if (c.subtractMax) m = *std::max_element(z, z + keys);
      for (int j = 0; j < keys; ++j) {
        expBad += std::isfinite(round_to(c, std::exp(z[j] - m))) ? 0 : 1;
        weightBad += std::isfinite(ref.attention[static_cast<std::size_t>(i) * T + j]) ? 0 : 1;
      }
      logitBad += bad[s];
    }
    const double jMax = std::sqrt(2 / (3 * std::sqrt(3.0)));
    e.entropy = saturation_mean(entropy, finite, sat, std::log(T), r, T);
    e.maxWeight = saturation_mean(maxWeight, finite, sat, 1.0 / T, r, T);
    e.jacobianNormMean = saturation_mean(jacobian, finite, sat, jMax, r, T);
    double finiteRows = 0;
    for (double f : finite) finiteRows += f;
    e.saturatedFraction = agresti_coull(saturated, finiteRows, r, T);
    const Estimate share = agresti_coull(r - finiteRows, r, r, T);
    e.nonFiniteRows = {share.value * T, share.se * T};
    // RMS of ∂L/∂Q over the sampled rows (as the engine's gradNormQ, √max(0, ·)).
    const SampleMoments g = sample_moments({gradSquares});
    e.gradNormQ = std::sqrt(std::max(0.0, g.mean[0]) / dk);
    e.jacobianNormMedian = median_of_finite(norms);
    e.entropyMax = {ref.stats.entropyMax, 0};
    e.scaleFactor = {ref.stats.scaleFactor, 0};
    e.largestFinite = {ref.stats.largestFinite, 0};
    e.rawLogitStdTheory = {ref.stats.rawLogitStdTheory, 0};
    e.nonFiniteLogits = logitBad * T / r;
    e.nonFiniteExp = expBad * T / r;
    e.nonFiniteWeights = weightBad * T / r;
    out.push_back(e);
  }
  return out;
}

}  // namespace attnscale
