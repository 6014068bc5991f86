#include "engine/point_job.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "engine/sampling.hpp"
#include "kernels/gemm.hpp"
#include "kernels/online_softmax.hpp"
#include "kernels/panel_gemm.hpp"
#include "kernels/softmax_row.hpp"
#include "simd/batch.hpp"
#include "stats/logit_theory.hpp"

namespace attnscale {

namespace {

// Columns of Q, K, V, G sampled and multiplied per block (a packed Kᵀ block of T = 2048 is 2 MiB).
constexpr int kBlockCols = 256;
// Work per step, ~3 ms in either wasm build (SIMD ~20 GFLOP/s on GEMMs, scalar ~3): the bound on
// how far one advance() can overshoot its budget.
constexpr double kStepFlops = simd::kHasSimd ? 6e7 : 1e7;

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

// Σ x² in double, in index order (so row blocks summed one after another give the same bits as
// one pass over the whole matrix).
double sum_squares(const float* x, std::size_t n) {
  double sum = 0;
  for (std::size_t i = 0; i < n; ++i) sum += static_cast<double>(x[i]) * x[i];
  return sum;
}

}  // namespace

const char* phase_name(Phase p) {
  static const char* const names[] = {"sampling", "products", "logits",
                                      "softmax",  "output",   "backward"};
  return p < Phase::count ? names[static_cast<int>(p)] : "";
}

void PointJob::add(Phase phase, std::function<void()> step) {
  steps_.push_back({phase, std::move(step)});
}

void PointJob::add_rows(Phase phase, double flopsPerRow, std::function<void(int, int)> step) {
  const int T = ws_->seqLen;
  const int rows = std::clamp(static_cast<int>(kStepFlops / std::max(flopsPerRow, 1.0)), 1, T);
  for (int r0 = 0; r0 < T; r0 += rows) {
    const int r1 = std::min(T, r0 + rows);
    add(phase, [step, r0, r1] { step(r0, r1); });
  }
}

void PointJob::plan(Workspace& ws, const std::vector<Config>& configs, int dk, bool keepMatrices) {
  ws_ = &ws;
  configs_ = &configs;
  dk_ = dk;
  keep_ = keepMatrices;
  steps_.clear();
  next_ = 0;
  results_.assign(configs.size(), RunResult{});
  const double T = ws.seqLen, d = dk;
  const bool online = configs.front().softmax == SoftmaxMode::online;

  for (int c0 = ws.sampled; c0 < dk; c0 += kBlockCols) {
    const int c1 = std::min(dk, c0 + kBlockCols);
    add(Phase::sampling, [this, c0, c1] { sample_block(c0, c1); });
    add_rows(Phase::products, 4 * T * (c1 - c0),
             [this, c0, c1](int r0, int r1) { accumulate_rows(c0, c1, r0, r1); });
  }
  add_rows(Phase::logits, 4 * T, [this](int r0, int r1) { raw_logit_rows(r0, r1); });
  add(Phase::logits, [this] { raw_summary(); });

  for (int s = 0; s < static_cast<int>(configs.size()); ++s) {
    add(Phase::logits, [this, s] { begin_scale(s); });
    add_rows(Phase::logits, 4 * T, [this, s](int r0, int r1) { scaled_logit_rows(s, r0, r1); });
    add(Phase::logits, [this, s] { logit_summary(s); });
    add_rows(Phase::softmax, 60 * T, [this, s](int r0, int r1) { softmax_rows(s, r0, r1); });
    add(Phase::softmax, [this, s] { weight_summary(s); });
    add(Phase::output, [this, s] { prepare_output(s); });
    add_rows(Phase::output, (online ? 6 : 2) * T * d,
             [this, s](int r0, int r1) { output_rows(s, r0, r1); });
    add_rows(Phase::backward, 2 * T * d + 4 * T,
             [this, s](int r0, int r1) { backward_q_rows(s, r0, r1); });
    add_rows(Phase::backward, 2 * T * d, [this, s](int r0, int r1) { backward_k_rows(s, r0, r1); });
    add(Phase::backward, [this, s] { end_scale(s); });
  }
}

bool PointJob::run_until(Clock::time_point deadline) {
  Clock::time_point start = Clock::now();
  while (next_ < steps_.size()) {
    const auto& [phase, step] = steps_[next_++];
    step();
    const Clock::time_point end = Clock::now();
    phaseMs_[static_cast<int>(phase)] +=
        std::chrono::duration<double, std::milli>(end - start).count();
    start = end;
    if (next_ < steps_.size() && end >= deadline) return false;
  }
  return true;
}

void PointJob::sample_block(int c0, int c1) {
  Workspace& ws = *ws_;
  const Config& c = configs_->front();
  const int T = ws.seqLen, n = c1 - c0;
  const std::size_t block = static_cast<std::size_t>(T) * kBlockCols;
  ws.vBlock.resize(block);
  ws.gBlock.resize(block);
  sample_qk_columns(c, c0, c1, ws.q.data() + c0, ws.k.data() + c0, ws.cols);
  sample_vg_columns(c, c0, c1, ws.vBlock.data(), ws.gBlock.data(), kBlockCols);
  for (int t = 0; t < T; ++t)
    for (int i = 0; i < n; ++i)
      ws.maxAbsV = std::max(
          ws.maxAbsV,
          std::fabs(static_cast<double>(ws.vBlock[static_cast<long>(t) * kBlockCols + i])));
  const std::size_t packed =
      static_cast<std::size_t>(panel::panel_count(T)) * n * panel::kPanelWidth;
  ws.kPanels.resize(packed);
  ws.vPanels.resize(packed);
  // Kᵀ and Vᵀ restricted to this block: element (k, t) is K[t][c0 + k].
  panel::pack_panels(n, T, ws.k.data() + c0, 1, ws.cols, ws.kPanels.data());
  panel::pack_panels(n, T, ws.vBlock.data(), 1, kBlockCols, ws.vPanels.data());
}

void PointJob::accumulate_rows(int c0, int c1, int r0, int r1) {
  Workspace& ws = *ws_;
  const int T = ws.seqLen, n = c1 - c0;
  const long row = static_cast<long>(r0);
  panel::accumulate_packed(r1 - r0, T, n, ws.q.data() + row * ws.cols + c0, ws.cols,
                           ws.kPanels.data(), ws.logits.data() + row * T, T);
  panel::accumulate_packed(r1 - r0, T, n, ws.gBlock.data() + row * kBlockCols, kBlockCols,
                           ws.vPanels.data(), ws.gradWeights.data() + row * T, T);
}

// Raw logits: the fp32 dot products rounded to the format.
void PointJob::raw_logit_rows(int r0, int r1) {
  Workspace& ws = *ws_;
  const std::size_t T = ws.seqLen, from = r0 * T, count = (r1 - r0) * T;
  ws.z.resize(T * T);
  std::copy_n(ws.logits.begin() + from, count, ws.z.begin() + from);
  round_inplace(configs_->front().format, ws.z.data() + from, count);
}

void PointJob::raw_summary() {
  Workspace& ws = *ws_;
  ws.sampled = dk_;
  raw_ = visible_moments(ws.z.data(), ws.seqLen, configs_->front().causal);
  if (keep_)
    rawHistogram_ = visible_histogram(ws.z.data(), ws.seqLen, configs_->front().causal, raw_);
}

void PointJob::begin_scale(int s) {
  const Config& c = (*configs_)[s];
  RunResult& out = results_[s];
  RunStats& st = out.stats;
  state_ = ScaleState{};
  state_.scale = scale_factor(c);
  st.scaleFactor = state_.scale;
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

// Scaled logits round(round(QKᵀ) · s).
void PointJob::scaled_logit_rows(int s, int r0, int r1) {
  Workspace& ws = *ws_;
  const Format fmt = (*configs_)[s].format;
  const std::size_t T = ws.seqLen, from = r0 * T, count = (r1 - r0) * T;
  float* z = ws.z.data() + from;
  std::copy_n(ws.logits.begin() + from, count, z);
  round_inplace(fmt, z, count);
  const float scale = state_.scale;
  for (std::size_t i = 0; i < count; ++i) z[i] = z[i] * scale;
  round_inplace(fmt, z, count);
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
    float* p = &ws.p[static_cast<std::size_t>(i) * T];
    const auto counts =
        softmax_row(&ws.z[static_cast<std::size_t>(i) * T], n, c.subtractMax, c.format, p);
    std::fill(p + n, p + T, 0.0f);
    out.stats.nonFinite.exp += counts.expNonFinite;
    out.stats.nonFinite.weights += counts.weightNonFinite;
    const RowStats row = weight_row_stats(p, n);
    out.rowEntropy[i] = row.entropy;
    out.rowMaxWeight[i] = row.maxWeight;
    out.rowJacobianNorm[i] = row.jacobianNorm;
    double rowSum = 0;
    for (int j = 0; j < n; ++j) rowSum += std::fabs(p[j]);
    state_.maxRowSum = std::max(state_.maxRowSum, rowSum);
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
  state_.needOutput = c.softmax == SoftmaxMode::online || !provablyFinite;
}

void PointJob::prepare_output(int) {
  Workspace& ws = *ws_;
  if (!state_.needOutput || ws.vCols >= dk_) return;
  ws.vCols = dk_;
  ws.v.resize(static_cast<std::size_t>(ws.seqLen) * dk_);
  sample_vg_columns(configs_->front(), 0, dk_, ws.v.data(), nullptr, dk_);
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

// Backward of L = Σ O ⊙ G in fp32: dP = G Vᵀ, dZ = P ⊙ (dP − rowsum(P ⊙ dP)), dS = s dZ, then
// the rows of dQ = dS K, of which only Σ dQ² is kept.
void PointJob::backward_q_rows(int s, int r0, int r1) {
  Workspace& ws = *ws_;
  const Config& c = (*configs_)[s];
  const int T = c.seqLen, d = dk_;
  const float scale = state_.scale;
  ws.ds.resize(static_cast<std::size_t>(T) * T);
  for (int i = r0; i < r1; ++i) {
    const int n = visible_keys(i, T, c.causal);
    const float* p = &ws.p[static_cast<std::size_t>(i) * T];
    const float* dp = &ws.gradWeights[static_cast<std::size_t>(i) * T];
    float r = 0;
    for (int j = 0; j < n; ++j) r = r + p[j] * dp[j];
    float* ds = &ws.ds[static_cast<std::size_t>(i) * T];
    for (int j = 0; j < n; ++j) ds[j] = scale * (p[j] * (dp[j] - r));
    std::fill(ds + n, ds + T, 0.0f);
  }
  const std::size_t n = static_cast<std::size_t>(r1 - r0) * d;
  ws.rowsA.assign(n, 0.0f);
  gemm_accumulate(r1 - r0, d, 0, T, {ws.ds.data() + static_cast<long>(r0) * T, T},
                  {ws.k.data(), ws.cols}, ws.rowsA.data(), d);
  state_.dqSquares += sum_squares(ws.rowsA.data(), n);
}

// Rows of dK = dSᵀ Q (every row of dS is done by now).
void PointJob::backward_k_rows(int s, int r0, int r1) {
  Workspace& ws = *ws_;
  const int T = (*configs_)[s].seqLen, d = dk_;
  const std::size_t n = static_cast<std::size_t>(r1 - r0) * d;
  ws.rowsA.assign(n, 0.0f);
  gemm_accumulate(r1 - r0, d, 0, T, {ws.ds.data() + r0, T, true}, {ws.q.data(), ws.cols},
                  ws.rowsA.data(), d);
  state_.dkSquares += sum_squares(ws.rowsA.data(), n);
}

void PointJob::end_scale(int s) {
  RunResult& out = results_[s];
  RunStats& st = out.stats;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const bool online = (*configs_)[s].softmax == SoftmaxMode::online;
  st.onlineMaxAbsDiff = online ? state_.outputDiff : nan;
  st.nonFinite.output = state_.needOutput ? state_.outputNonFinite : 0;
  const double entries = static_cast<double>(ws_->seqLen) * dk_;
  st.gradNormQ = std::sqrt(state_.dqSquares / entries);
  st.gradNormK = std::sqrt(state_.dkSquares / entries);
  st.firstNonFiniteStage = st.nonFinite.logits    ? Stage::logits
                           : st.nonFinite.exp     ? Stage::exp
                           : st.nonFinite.weights ? Stage::weights
                           : st.nonFinite.output  ? Stage::output
                                                  : Stage::none;
  if (keep_) out.attention = ws_->p;
}

}  // namespace attnscale
