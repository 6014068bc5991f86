// The forward steps of one scaling: its logits and their moments, the softmax with its row
// statistics, and the check of the output O = PV.
#include <algorithm>
#include <cmath>
#include <limits>

#include "engine/point_job/point_job.hpp"
#include "engine/sampling.hpp"
#include "gemm/gemm.hpp"
#include "kernels/online_softmax.hpp"
#include "kernels/softmax_row.hpp"
#include "simd/batch.hpp"
#include "stats/logit_theory.hpp"

namespace attnscale {

namespace {

std::uint64_t count_non_finite(const float* x, std::size_t n) {
  std::uint64_t count = 0;
  for (std::size_t i = 0; i < n; ++i) count += std::isfinite(x[i]) ? 0 : 1;
  return count;
}

// Largest |a − b| over entries; an entry finite in one and not the other counts as infinite.
double max_abs_diff(const float* a, const float* b, std::size_t n) {
  double worst = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const bool fa = std::isfinite(a[i]), fb = std::isfinite(b[i]);
    if (!fa && !fb) continue;
    if (fa != fb) return std::numeric_limits<double>::infinity();
    worst = std::max(worst, std::fabs(static_cast<double>(a[i]) - b[i]));
  }
  return worst;
}

// Σ|x| over n <= 2048 values, from above: float lanes (relative error < n·2^-24 <= 1.3e-4), times
// 1 + 2^-10. Only compared against a bound with a factor-2 margin (weight_summary).
double abs_sum_bound(const float* x, int n) {
  constexpr int W = static_cast<int>(simd::W);
  simd::vf acc(0.0f);
  int j = 0;
  for (; j + W <= n; j += W) acc = acc + simd::abs(simd::loadu(x + j));
  double sum = simd::reduce_add(acc);
  for (; j < n; ++j) sum += std::fabs(x[j]);
  return sum * (1 + 1.0 / 1024);
}

}  // namespace

void PointJob::begin_scale(int s) {
  const Config& c = (*configs_)[s];
  RunResult& out = results_[s];
  RunStats& st = out.stats;
  state_ = ScaleState{};
  state_.scale = scale_factor(c);
  state_.transform = logit_transform(c);
  st.scaleFactor = state_.scale;
  st.normLogitStd = normStd_;
  st.largestFinite = largest_finite(c.format.precision);
  st.rawLogitStdTheory =
      raw_logit_std_theory(dk_, c.seqLen, c.causal, c.mean, c.std, c.correlation);
  st.rawLogitMean = raw_.mean;
  st.rawLogitStd = raw_.std;
  if (keep_) out.rawHistogram = rawHistogram_;
  out.rowEntropy.resize(c.seqLen);
  out.rowMaxWeight.resize(c.seqLen);
  out.rowJacobianNorm.resize(c.seqLen);
}

// Scaled logits round(round(QKᵀ) · s), or with QK-norm, length scale and soft-cap
// (kernels/logit_transform.hpp).
void PointJob::scaled_logit_rows(int s, int r0, int r1) {
  Workspace& ws = *ws_;
  const Config& c = (*configs_)[s];
  const Format fmt = c.format;
  const std::size_t T = ws.seqLen, from = r0 * T, count = (r1 - r0) * T;
  float* z = ws.z.data() + from;
  std::copy_n(logit_source().begin() + from, count, z);
  round_inplace(fmt, z, count);
  const LogitTransform& t = state_.transform;
  if (t.lengthScale == 0) {
    transform_logits(t, 1.0f, fmt, z, count);
    return;
  }
  for (int i = r0; i < r1; ++i)
    transform_logits(t, length_factor(t, visible_keys(i, c.seqLen, c.causal)), fmt,
                     ws.z.data() + static_cast<std::size_t>(i) * T, T);
}

void PointJob::logit_summary(int s) {
  const Config& c = (*configs_)[s];
  RunResult& out = results_[s];
  RunStats& st = out.stats;
  const Moments scaled = visible_moments(ws_->z.data(), c.seqLen, c.causal);
  st.logitMean = scaled.mean;
  st.logitStd = scaled.std;
  st.logitMin = scaled.min;
  st.logitMax = scaled.max;
  st.nonFinite.logits = scaled.nonFinite;
  if (keep_) out.histogram = visible_histogram(ws_->z.data(), c.seqLen, c.causal, scaled);
}

// Softmax row by row, what each row's weights say, and Σ|p| for the output bound.
void PointJob::softmax_rows(int s, int r0, int r1) {
  Workspace& ws = *ws_;
  const Config& c = (*configs_)[s];
  RunResult& out = results_[s];
  const int T = c.seqLen;
  ws.p.resize(static_cast<std::size_t>(T) * T);
  for (int i = r0; i < r1; ++i) {
    const int n = visible_keys(i, T, c.causal);
    float* p = ws.p.data() + static_cast<std::size_t>(i) * T;
    const auto counts =
        softmax_row(ws.z.data() + static_cast<std::size_t>(i) * T, n, c.subtractMax, c.format, p);
    std::fill(p + n, p + T, 0.0f);
    out.stats.nonFinite.exp += counts.expNonFinite;
    out.stats.nonFinite.weights += counts.weightNonFinite;
    const RowStats row = weight_row_stats(p, n);
    out.rowEntropy[i] = row.entropy;
    out.rowMaxWeight[i] = row.maxWeight;
    out.rowJacobianNorm[i] = row.jacobianNorm;
    state_.maxRowSum = std::max(state_.maxRowSum, abs_sum_bound(p, n));
  }
}

void PointJob::weight_summary(int s) {
  const Config& c = (*configs_)[s];
  RunResult& out = results_[s];
  RunStats& st = out.stats;
  const int T = c.seqLen;
  double entropySum = 0, entropyMaxSum = 0, maxWeightSum = 0, jacobianSum = 0;
  int finiteRows = 0, saturatedRows = 0;
  for (int i = 0; i < T; ++i) {
    entropyMaxSum += std::log(static_cast<double>(visible_keys(i, T, c.causal)));
    if (!std::isfinite(out.rowEntropy[i])) continue;
    ++finiteRows;
    entropySum += out.rowEntropy[i];
    maxWeightSum += out.rowMaxWeight[i];
    jacobianSum += out.rowJacobianNorm[i];
    saturatedRows += out.rowMaxWeight[i] > 0.99f ? 1 : 0;
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
  // The statistics need O = PV only for its count of inf/NaN, and when every weight is finite,
  // |O_ij| <= (max row sum of |P|) · max|V|: below half the format's largest finite value, O is
  // provably finite and is not computed. The online softmax always is (its difference to PV is
  // reported).
  const bool provablyFinite =
      st.nonFinite.weights == 0 && ws_->maxAbsV * state_.maxRowSum < 0.5 * st.largestFinite;
  const bool haveV = !ws_->givenQ || ws_->givenV;
  state_.needOutput = haveV && (c.softmax == SoftmaxMode::online || !provablyFinite);
}

// V whole (seqLen × d_k), sampled once per point for every scaling that needs the output.
void PointJob::prepare_output_rows(int r0, int r1) {
  Workspace& ws = *ws_;
  if (!state_.needOutput || ws.vCols >= dk_) return;
  ws.v.resize(static_cast<std::size_t>(ws.seqLen) * dk_);
  if (ws.givenV) {
    const std::size_t from = static_cast<std::size_t>(r0) * dk_,
                      count = static_cast<std::size_t>(r1 - r0) * dk_;
    std::copy_n(ws.givenV + from, count, ws.v.data() + from);
    round_inplace(configs_->front().format, ws.v.data() + from, count);
  } else {
    sample_v_rows(configs_->front(), r0, r1, dk_, ws.v.data());
  }
  if (r1 == ws.seqLen) ws.vCols = dk_;
}

// O = P V for a row block, accumulated in fp32 and rounded (and the online softmax's O beside it).
void PointJob::output_rows(int s, int r0, int r1) {
  if (!state_.needOutput) return;
  Workspace& ws = *ws_;
  const Config& c = (*configs_)[s];
  const int T = c.seqLen, d = dk_;
  const std::size_t n = static_cast<std::size_t>(r1 - r0) * d;
  ws.rowsA.assign(n, 0.0f);
  gemm_accumulate(r1 - r0, d, 0, T, {ws.p.data() + static_cast<long>(r0) * T, T},
                  {ws.v.data(), ws.vCols}, ws.rowsA.data(), d);
  round_inplace(c.format, ws.rowsA.data(), n);
  if (c.softmax == SoftmaxMode::online) {
    ws.rowsB.resize(n);
    online_softmax_rows({T, d, c.causal, c.subtractMax, c.blockSize}, c.format, ws.z.data(),
                        ws.v.data(), ws.vCols, r0, r1, ws.rowsB.data(), ws.scratch);
    state_.outputDiff =
        std::max(state_.outputDiff, max_abs_diff(ws.rowsB.data(), ws.rowsA.data(), n));
    state_.outputNonFinite += count_non_finite(ws.rowsB.data(), n);
  } else {
    state_.outputNonFinite += count_non_finite(ws.rowsA.data(), n);
  }
}

// The scaling's statistics that need only the forward; the gradient norms stay NaN until the
// backward is done.
void PointJob::forward_summary(int s) {
  RunStats& st = results_[s].stats;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const bool online = (*configs_)[s].softmax == SoftmaxMode::online;
  st.onlineMaxAbsDiff = online ? state_.outputDiff : nan;
  st.nonFinite.output = state_.needOutput ? state_.outputNonFinite : 0;
  st.gradNormQ = nan;
  st.gradNormK = nan;
  st.firstNonFiniteStage = st.nonFinite.logits    ? Stage::logits
                           : st.nonFinite.exp     ? Stage::exp
                           : st.nonFinite.weights ? Stage::weights
                           : st.nonFinite.output  ? Stage::output
                                                  : Stage::none;
}
}  // namespace attnscale
