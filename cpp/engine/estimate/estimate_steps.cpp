// The steps of one scaling on the sampled rows, each as the exact point job does it for every row
// (forward_steps.cpp, backward_steps.cpp): scaled logits, softmax and row statistics, dS and the
// row of dQ = dS K; then the scaling's estimates (estimators.hpp).
#include <algorithm>
#include <cmath>

#include "engine/estimate/estimate_job.hpp"
#include "gemm/panel_gemm.hpp"
#include "kernels/qk_norm.hpp"
#include "kernels/softmax_row.hpp"
#include "stats/logit_theory.hpp"
#include "stats/summary.hpp"

namespace attnscale {

namespace {

// Σ x² in double, in index order (as the exact job's sum of squares).
double sum_squares(const float* x, int n) {
  double sum = 0;
  for (int i = 0; i < n; ++i) sum += static_cast<double>(x[i]) * x[i];
  return sum;
}

}  // namespace

void EstimateJob::scaled_rows(int s, int s0, int s1) {
  const Config& c = configs_[s];
  const std::vector<float>& src = c.qkNorm == QkNorm::none ? logits_ : normLogits_;
  for (int i = s0; i < s1; ++i) {
    const std::size_t at = static_cast<std::size_t>(i) * T_;
    float* z = z_.data() + at;
    std::copy_n(src.begin() + at, T_, z);
    round_inplace(c.format, z, T_);
    transform_logits(transform_, length_factor(transform_, keys(i)), c.format, z, T_);
  }
}

void EstimateJob::softmax_rows(int s, int s0, int s1) {
  const Config& c = configs_[s];
  if (s0 == 0)
    for (auto* v : {&entropy_, &maxWeight_, &jacobian_}) v->assign(r_, 0.0f);
  if (s0 == 0)
    for (auto* v : {&expNonFinite_, &weightNonFinite_, &dqSquares_}) v->assign(r_, 0.0);
  for (int i = s0; i < s1; ++i) {
    const int n = keys(i);
    const std::size_t at = static_cast<std::size_t>(i) * T_;
    float* p = p_.data() + at;
    const SoftmaxRowCounts counts = softmax_row(z_.data() + at, n, c.subtractMax, c.format, p);
    std::fill(p + n, p + T_, 0.0f);
    expNonFinite_[i] = counts.expNonFinite;
    weightNonFinite_[i] = counts.weightNonFinite;
    const RowStats row = weight_row_stats(p, n);
    entropy_[i] = row.entropy;
    maxWeight_[i] = row.maxWeight;
    jacobian_[i] = row.jacobianNorm;
  }
}

// dS = s · P ⊙ (dP − rowsum(P ⊙ dP)) (× the logit slope beyond the scale), as the exact ds_rows.
void EstimateJob::ds_rows(int s, int s0, int s1) {
  const Config& c = configs_[s];
  const float scale = transform_.scale;
  const std::vector<float>& src = c.qkNorm == QkNorm::none ? logits_ : normLogits_;
  slope_.resize(T_);
  if (s0 == 0) std::fill_n(dq_.data(), static_cast<std::size_t>(r_) * dk_, 0.0f);
  for (int i = s0; i < s1; ++i) {
    const int n = keys(i);
    const std::size_t at = static_cast<std::size_t>(i) * T_;
    const float* p = p_.data() + at;
    const float* dp = gradWeights_.data() + at;
    float* ds = ds_.data() + at;
    float* slope = nullptr;
    if (!transform_.identityBeyondScale()) {
      slope = slope_.data();
      std::copy_n(src.begin() + at, n, slope);
      round_inplace(c.format, slope, n);
      logit_slopes(transform_, length_factor(transform_, n), slope, slope, n);
    }
    softmax_backward_row(p, dp, n, slope, scale, 1.0f, ds);
    std::fill(ds + n, ds + T_, 0.0f);
  }
}

// dQ += dS[:, chunk] · K[chunk, :] over chunks [c0, c1) of K's rows, for every sampled row: each
// entry goes on summing in key order, so the chunks give the bits of one product.
void EstimateJob::dq_chunks(int c0, int c1) {
  for (int c = c0; c < c1; ++c) {
    const int k0 = c * kChunkRows, kc = std::min(kChunkRows, T_ - k0);
    panel::accumulate_packed(r_, dk_, kc, ds_.data() + k0, T_, chunk_panels(c), dq_.data(), dk_);
  }
}

// Each row of dQ (dQ̂ back through QK-norm) to its Σ dQ².
void EstimateJob::dq_rows(int s, int s0, int s1) {
  const Config& c = configs_[s];
  const int d = dk_;
  for (int i = s0; i < s1; ++i) {
    float* dq = dq_.data() + static_cast<std::size_t>(i) * d;
    if (c.qkNorm != QkNorm::none)
      normalize_row_backward(c.qkNorm, qn_.data() + static_cast<std::size_t>(i) * d, qInv_[i], d,
                             dq);
    dqSquares_[i] = sum_squares(dq, d);
  }
}

void EstimateJob::end_scale(int s) {
  const Config& c = configs_[s];
  EstimateStats& e = results_[s];
  e.rows = r_;
  e.rawLogitMean = rawEstimates_.mean;
  e.rawLogitStd = rawEstimates_.std;
  e.normLogitStd = c.qkNorm == QkNorm::none ? rawEstimates_.std : normEstimates_.std;
  // Row means over the finite rows (the exact job leaves rows with an inf/NaN weight out), by
  // saturation (estimators.hpp).
  std::vector<double> entropy(r_), maxWeight(r_), jacobian(r_);
  std::vector<char> finite(r_), saturated(r_);
  double finiteRows = 0, saturatedRows = 0, dqSquares = 0;
  for (int i = 0; i < r_; ++i) {
    dqSquares += dqSquares_[i];
    if (!std::isfinite(entropy_[i])) continue;
    saturated[i] = maxWeight_[i] > 0.99f;
    finite[i] = 1;
    entropy[i] = entropy_[i];
    maxWeight[i] = maxWeight_[i];
    jacobian[i] = jacobian_[i];
    finiteRows += 1;
    saturatedRows += saturated[i];
  }
  // The value farthest from saturation a row can take: ln T nats, a largest weight of 1/T,
  // ‖J‖_F = √(2/(3√3)) (‖J‖²_F ≤ λ_max·tr J ≤ p_max(1 − p_max²), as 0 ≼ J = diag(p) − ppᵀ ≼
  // diag(p)).
  const double T = T_, jacobianMax = std::sqrt(2 / (3 * std::sqrt(3.0)));
  e.entropy = saturation_mean_estimate(entropy, finite, saturated, std::log(T), T_);
  e.maxWeight = saturation_mean_estimate(maxWeight, finite, saturated, 1 / T, T_);
  e.jacobianNormMean = saturation_mean_estimate(jacobian, finite, saturated, jacobianMax, T_);
  e.saturatedFraction = share_estimate(saturatedRows, finiteRows, r_, T_);
  const Estimate bad = share_estimate(r_ - finiteRows, r_, r_, T_);
  e.nonFiniteRows = {bad.value * T_, bad.se * T_};
  // (As the exact job: √max(0, ·), which reads a NaN sum as 0.)
  e.gradNormQ = gradients_ ? std::sqrt(std::max(0.0, dqSquares) / (static_cast<double>(r_) * dk_))
                           : std::nan("");
  e.jacobianNormMedian = median_of_finite(jacobian_);

  double entropyMax = 0;
  for (int i = 0; i < T_; ++i)
    entropyMax += std::log(static_cast<double>(visible_keys(i, T_, c.causal)));
  e.entropyMax = {entropyMax / T_, 0};
  e.scaleFactor = {scale_factor(c), 0};
  e.largestFinite = {largest_finite(c.format.precision), 0};
  e.rawLogitStdTheory = {raw_logit_std_theory(dk_, T_, c.causal, c.mean, c.std, c.correlation), 0};

  const double perRow = static_cast<double>(T_) / r_;
  double logits = 0, exps = 0, weights = 0;
  for (int i = 0; i < r_; ++i) {
    logits += scaled_.nonFinite[i];
    exps += expNonFinite_[i];
    weights += weightNonFinite_[i];
  }
  e.nonFiniteLogits = logits * perRow;
  e.nonFiniteExp = exps * perRow;
  e.nonFiniteWeights = weights * perRow;
}

}  // namespace attnscale
