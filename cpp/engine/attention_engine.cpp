#include "engine/attention_engine.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "kernels/gemm.hpp"
#include "kernels/online_softmax.hpp"
#include "kernels/softmax_row.hpp"
#include "rng/counter_normal.hpp"
#include "stats/logit_theory.hpp"

namespace attnscale {

namespace {

std::uint64_t count_non_finite(const float* x, std::size_t n) {
  std::uint64_t count = 0;
  for (std::size_t i = 0; i < n; ++i) count += std::isfinite(x[i]) ? 0 : 1;
  return count;
}

double rms(const std::vector<float>& x) {
  double sum = 0;
  for (float v : x) sum += static_cast<double>(v) * v;
  return x.empty() ? 0.0 : std::sqrt(sum / static_cast<double>(x.size()));
}

// Largest |a − b| over entries; an entry finite in one and not the other counts as infinite.
double max_abs_diff(const std::vector<float>& a, const std::vector<float>& b) {
  double worst = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const bool fa = std::isfinite(a[i]), fb = std::isfinite(b[i]);
    if (!fa && !fb) continue;
    if (fa != fb) return std::numeric_limits<double>::infinity();
    worst = std::max(worst, std::fabs(static_cast<double>(a[i]) - b[i]));
  }
  return worst;
}

}  // namespace

void AttentionEngine::sample(const Config& c, int cols) {
  const int T = c.seqLen;
  const std::size_t n = static_cast<std::size_t>(T) * cols;
  in_.cols = cols;
  in_.q.resize(n);
  in_.k.resize(n);
  in_.v.resize(n);
  in_.g.resize(n);
  in_.kt.resize(n);
  in_.vt.resize(n);
  const float mu = static_cast<float>(c.mean), sigma = static_cast<float>(c.std);
  const float rho = static_cast<float>(c.correlation);
  const float rhoBar = static_cast<float>(std::sqrt(1.0 - c.correlation * c.correlation));
  for (int t = 0; t < T; ++t) {
    const std::size_t row = static_cast<std::size_t>(t) * cols;
    float* q = &in_.q[row];
    float* k = &in_.k[row];
    fill_normal_row(c.seed, Tensor::q, t, cols, q);
    fill_normal_row(c.seed, Tensor::kIndependent, t, cols, k);
    fill_normal_row(c.seed, Tensor::v, t, cols, &in_.v[row]);
    fill_normal_row(c.seed, Tensor::upstreamGrad, t, cols, &in_.g[row]);
    for (int i = 0; i < cols; ++i) {
      // k shares ρ of its standardized value with q of the same token: Corr(q_i, k_i) = ρ.
      const float zq = q[i], zk = k[i];
      q[i] = mu + sigma * zq;
      k[i] = mu + sigma * (rho * zq + rhoBar * zk);
    }
  }
  round_inplace(c.format, in_.q.data(), n);
  round_inplace(c.format, in_.k.data(), n);
  round_inplace(c.format, in_.v.data(), n);
  transpose(T, cols, in_.k.data(), cols, in_.kt.data(), T);
  transpose(T, cols, in_.v.data(), cols, in_.vt.data(), T);
}

void AttentionEngine::accumulate_products(const Config& c, int from, int to) {
  const int T = c.seqLen;
  gemm_accumulate(T, T, from, to, {in_.q.data(), in_.cols}, {in_.kt.data(), T}, logitAcc_.data(),
                  T);
  gemm_accumulate(T, T, from, to, {in_.g.data(), in_.cols}, {in_.vt.data(), T},
                  gradWeightAcc_.data(), T);
}

void AttentionEngine::finish(const Config& c, RunResult& out, bool keepMatrices) {
  const int T = c.seqLen, d = c.dk, ld = in_.cols;
  const std::size_t TT = static_cast<std::size_t>(T) * T, Td = static_cast<std::size_t>(T) * d;
  const float s = scale_factor(c);
  RunStats& st = out.stats;
  st = RunStats{};
  st.scaleFactor = s;
  st.largestFinite = largest_finite(c.format.precision);
  st.rawLogitStdTheory = raw_logit_std_theory(d, T, c.causal, c.mean, c.std, c.correlation);

  // Raw logits: the fp32 dot products rounded to the format.
  z_.assign(logitAcc_.begin(), logitAcc_.begin() + TT);
  round_inplace(c.format, z_.data(), TT);
  const Moments raw = visible_moments(z_.data(), T, c.causal);
  st.rawLogitMean = raw.mean;
  st.rawLogitStd = raw.std;
  if (keepMatrices) out.rawHistogram = visible_histogram(z_.data(), T, c.causal, raw);

  // Scaled logits, rounded.
  for (float& x : z_) x = x * s;
  round_inplace(c.format, z_.data(), TT);
  const Moments scaled = visible_moments(z_.data(), T, c.causal);
  st.logitMean = scaled.mean;
  st.logitStd = scaled.std;
  st.logitMin = scaled.min;
  st.logitMax = scaled.max;
  st.nonFinite.logits = scaled.nonFinite;
  if (keepMatrices) out.histogram = visible_histogram(z_.data(), T, c.causal, scaled);

  // Softmax row by row, and what each row's weights say.
  p_.assign(TT, 0.0f);
  out.rowEntropy.resize(T);
  out.rowMaxWeight.resize(T);
  out.rowJacobianNorm.resize(T);
  double entropySum = 0, entropyMaxSum = 0, maxWeightSum = 0, jacobianSum = 0;
  int finiteRows = 0, saturatedRows = 0;
  for (int i = 0; i < T; ++i) {
    const int n = visible_keys(i, T, c.causal);
    const auto counts = softmax_row(&z_[static_cast<std::size_t>(i) * T], n, c.subtractMax,
                                    c.format, &p_[static_cast<std::size_t>(i) * T]);
    st.nonFinite.exp += counts.expNonFinite;
    st.nonFinite.weights += counts.weightNonFinite;
    const RowStats row = weight_row_stats(&p_[static_cast<std::size_t>(i) * T], n);
    out.rowEntropy[i] = row.entropy;
    out.rowMaxWeight[i] = row.maxWeight;
    out.rowJacobianNorm[i] = row.jacobianNorm;
    entropyMaxSum += std::log(static_cast<double>(n));
    if (!std::isfinite(row.entropy)) continue;
    ++finiteRows;
    entropySum += row.entropy;
    maxWeightSum += row.maxWeight;
    jacobianSum += row.jacobianNorm;
    saturatedRows += row.maxWeight > 0.99f ? 1 : 0;
  }
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double rows = finiteRows;
  st.entropy = finiteRows ? entropySum / rows : nan;
  st.entropyMax = entropyMaxSum / T;
  st.maxWeight = finiteRows ? maxWeightSum / rows : nan;
  st.saturatedFraction = finiteRows ? saturatedRows / rows : nan;
  st.jacobianNormMean = finiteRows ? jacobianSum / rows : nan;
  st.jacobianNormMedian = median_of_finite(out.rowJacobianNorm);
  st.nonFiniteRows = T - finiteRows;

  // Output O = P V, accumulated in fp32 and rounded. The statistics need O only for its count of
  // inf/NaN, and when every weight is finite, |O_ij| <= (max row sum of |P|) · max|V|: if that
  // bound is below half the format's largest finite value, O is provably finite and is not
  // computed.
  const bool outputProvablyFinite = st.nonFinite.weights == 0 && [&] {
    double maxAbsV = 0, maxRowSum = 0;
    for (int t = 0; t < T; ++t)
      for (int i = 0; i < d; ++i)
        maxAbsV = std::max(maxAbsV, std::fabs(static_cast<double>(in_.v[t * ld + i])));
    for (int i = 0; i < T; ++i) {
      double rowSum = 0;
      const float* p = &p_[static_cast<std::size_t>(i) * T];
      for (int j = 0; j < visible_keys(i, T, c.causal); ++j) rowSum += std::fabs(p[j]);
      maxRowSum = std::max(maxRowSum, rowSum);
    }
    return maxAbsV * maxRowSum < 0.5 * st.largestFinite;
  }();
  if (c.softmax == SoftmaxMode::online) {
    o_.assign(Td, 0.0f);
    gemm_accumulate(T, d, 0, T, {p_.data(), T}, {in_.v.data(), ld}, o_.data(), d);
    round_inplace(c.format, o_.data(), Td);
    oOnline_.resize(Td);
    online_softmax_output({T, d, c.causal, c.subtractMax, c.blockSize}, c.format, z_.data(),
                          in_.v.data(), ld, oOnline_.data(), scratch_);
    st.onlineMaxAbsDiff = max_abs_diff(oOnline_, o_);
    st.nonFinite.output = count_non_finite(oOnline_.data(), Td);
  } else if (outputProvablyFinite) {
    st.onlineMaxAbsDiff = nan;
    st.nonFinite.output = 0;
  } else {
    o_.assign(Td, 0.0f);
    gemm_accumulate(T, d, 0, T, {p_.data(), T}, {in_.v.data(), ld}, o_.data(), d);
    round_inplace(c.format, o_.data(), Td);
    st.onlineMaxAbsDiff = nan;
    st.nonFinite.output = count_non_finite(o_.data(), Td);
  }

  // Backward of L = Σ O ⊙ G in fp32: dP = G Vᵀ, dZ = P ⊙ (dP − rowsum(P ⊙ dP)), dS = s dZ,
  // dQ = dS K, dK = dSᵀ Q.
  ds_.assign(TT, 0.0f);
  for (int i = 0; i < T; ++i) {
    const int n = visible_keys(i, T, c.causal);
    const float* p = &p_[static_cast<std::size_t>(i) * T];
    const float* dp = &gradWeightAcc_[static_cast<std::size_t>(i) * T];
    float r = 0;
    for (int j = 0; j < n; ++j) r = r + p[j] * dp[j];
    float* ds = &ds_[static_cast<std::size_t>(i) * T];
    for (int j = 0; j < n; ++j) ds[j] = s * (p[j] * (dp[j] - r));
  }
  dq_.assign(Td, 0.0f);
  gemm_accumulate(T, d, 0, T, {ds_.data(), T}, {in_.k.data(), ld}, dq_.data(), d);
  dk_.assign(Td, 0.0f);
  gemm_accumulate(T, d, 0, T, {ds_.data(), T, true}, {in_.q.data(), ld}, dk_.data(), d);
  st.gradNormQ = rms(dq_);
  st.gradNormK = rms(dk_);

  st.firstNonFiniteStage = st.nonFinite.logits    ? Stage::logits
                           : st.nonFinite.exp     ? Stage::exp
                           : st.nonFinite.weights ? Stage::weights
                           : st.nonFinite.output  ? Stage::output
                                                  : Stage::none;
  if (keepMatrices) out.attention = p_;
}

RunResult AttentionEngine::run(const Config& c) {
  const std::size_t TT = static_cast<std::size_t>(c.seqLen) * c.seqLen;
  sample(c, c.dk);
  logitAcc_.assign(TT, 0.0f);
  gradWeightAcc_.assign(TT, 0.0f);
  accumulate_products(c, 0, c.dk);
  RunResult out;
  finish(c, out, true);
  return out;
}

SweepRunner::SweepRunner(const Config& c, std::vector<int> dks) : config_(c), dks_(std::move(dks)) {
  const int cols = dks_.empty() ? 1 : *std::max_element(dks_.begin(), dks_.end());
  config_.dk = cols;
  engine_.sample(config_, cols);
}

RunStats SweepRunner::next() {
  const int d = dks_[next_++];
  const std::size_t TT = static_cast<std::size_t>(config_.seqLen) * config_.seqLen;
  if (prefix_ == 0 || d < prefix_) {
    engine_.logitAcc_.assign(TT, 0.0f);
    engine_.gradWeightAcc_.assign(TT, 0.0f);
    prefix_ = 0;
  }
  config_.dk = d;
  engine_.accumulate_products(config_, prefix_, d);
  prefix_ = d;
  RunResult out;
  engine_.finish(config_, out, false);
  return out.stats;
}

}  // namespace attnscale
