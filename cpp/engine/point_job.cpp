#include "engine/point_job.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "engine/sampling.hpp"
#include "kernels/gemm.hpp"
#include "kernels/online_softmax.hpp"
#include "kernels/panel_gemm.hpp"
#include "kernels/qk_norm.hpp"
#include "kernels/softmax_row.hpp"
#include "simd/batch.hpp"
#include "stats/logit_theory.hpp"

namespace attnscale {

namespace {

// Columns of Q, K, V, G sampled and multiplied per block: sampling one block is one step (~8 ms
// at T = 2048 in wasm), and a packed Kᵀ block of T = 2048 is 2 MiB. (Each block loads and stores
// the products QKᵀ, GVᵀ and the Gram matrices once: 256 columns instead of 128 halve that
// traffic, ~3 % of a T = 1024 sweep.)
constexpr int kBlockCols = 256;
// Work per step, ~2–3 ms in either wasm build (SIMD 20–40 GFLOP/s on GEMMs, scalar ~3): the bound
// on how far one advance() can overshoot its budget. Smaller steps pay more for re-packing B panels
// (multiply_rows packs per step).
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

// Adds the count of exact zeros and of inf/NaN among x[0 … n) (per-lane counts in float are exact
// below 2^24 per lane: n <= 2048).
void count_zeros(const float* x, int n, std::uint64_t& zeros, std::uint64_t& nonFinite) {
  constexpr int W = static_cast<int>(simd::W);
  const simd::vf one(1.0f), none(0.0f);
  simd::vf z(0.0f), bad(0.0f);
  int j = 0;
  for (; j + W <= n; j += W) {
    const simd::vf v = simd::loadu(x + j);
    z = z + simd::select(v == none, one, none);
    bad = bad + simd::select(simd::isnan(v - v), one, none);
  }
  zeros += static_cast<std::uint64_t>(simd::reduce_add(z));
  nonFinite += static_cast<std::uint64_t>(simd::reduce_add(bad));
  for (; j < n; ++j) {
    zeros += x[j] == 0.0f ? 1 : 0;
    nonFinite += std::isfinite(x[j]) ? 0 : 1;
  }
}

// Σ x² in double, in index order (so row blocks summed one after another give the same bits as
// one pass over the whole matrix).
double sum_squares(const float* x, std::size_t n) {
  double sum = 0;
  for (std::size_t i = 0; i < n; ++i) sum += static_cast<double>(x[i]) * x[i];
  return sum;
}

// max |x| over n finite or infinite values (NaN-free: samples).
double max_abs(const float* x, int n) {
  constexpr int W = static_cast<int>(simd::W);
  simd::vf acc(0.0f);
  int j = 0;
  for (; j + W <= n; j += W) acc = simd::vmax(acc, simd::abs(simd::loadu(x + j)));
  float m = simd::reduce_max(acc);
  for (; j < n; ++j) m = std::max(m, std::fabs(x[j]));
  return m;
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
  // Step sizes in flops per row; an element-wise pass over a row counts ~30 flops per element (it
  // is memory-bound), the softmax with its statistics ~300, a sampled value ~100.
  const double T = ws.seqLen, d = dk;
  const bool online = configs.front().softmax == SoftmaxMode::online;

  for (int c0 = ws.sampled; c0 < dk; c0 += kBlockCols) {
    const int c1 = std::min(dk, c0 + kBlockCols);
    add(Phase::sampling, [this, c0, c1] { sample_block(c0, c1); });
    add_rows(Phase::products, (ws.gram ? 6 : 4) * T * (c1 - c0),
             [this, c0, c1](int r0, int r1) { accumulate_rows(c0, c1, r0, r1); });
  }
  add_rows(Phase::logits, 60 * T, [this](int r0, int r1) { raw_logit_rows(r0, r1); });
  add(Phase::logits, [this] { raw_summary(); });
  const QkNorm norm = configs.front().qkNorm;
  if (norm != QkNorm::none) {
    add_rows(Phase::logits, 30 * d, [this](int r0, int r1) { normalize_rows(r0, r1); });
    add_rows(Phase::products, 2 * T * d * 1.5,
             [this](int r0, int r1) { norm_product_rows(r0, r1); });
  }
  add(Phase::logits, [this] { norm_summary(); });

  for (int s = 0; s < static_cast<int>(configs.size()); ++s) {
    add(Phase::logits, [this, s] { begin_scale(s); });
    add_rows(Phase::logits, 60 * T, [this, s](int r0, int r1) { scaled_logit_rows(s, r0, r1); });
    add(Phase::logits, [this, s] { logit_summary(s); });
    add_rows(Phase::softmax, 300 * T, [this, s](int r0, int r1) { softmax_rows(s, r0, r1); });
    add(Phase::softmax, [this, s] { weight_summary(s); });
    add_rows(Phase::output, 100 * d, [this](int r0, int r1) { prepare_output_rows(r0, r1); });
    add_rows(Phase::output, (online ? 6 : 2) * T * d,
             [this, s](int r0, int r1) { output_rows(s, r0, r1); });
    if (uses_gram(ws.seqLen, dk, norm)) {
      add_rows(Phase::backward, 60 * T, [this, s](int r0, int r1) { ds_rows(s, r0, r1); });
      add_rows(Phase::backward, 30 * T, [this](int r0, int r1) { transpose_ds_rows(r0, r1); });
      // (Steps of multiply_rows are 1.5× the usual work: each packs its B panels anew.)
      add_rows(Phase::backward, T * T / 1.5, [this](int r0, int r1) { gram_q_rows(r0, r1); });
      add_rows(Phase::backward, T * T / 1.5, [this](int r0, int r1) { gram_k_rows(r0, r1); });
    } else {
      add_rows(Phase::backward, (2 * T * d + 4 * T) / 1.5, [this, s](int r0, int r1) {
        ds_rows(s, r0, r1);
        backward_q_rows(s, r0, r1);
      });
      add_rows(Phase::backward, 30 * T, [this](int r0, int r1) { transpose_ds_rows(r0, r1); });
      add_rows(Phase::backward, 2 * T * d / 1.5,
               [this, s](int r0, int r1) { backward_k_rows(s, r0, r1); });
    }
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
  ws.qBlock.resize(block);
  ws.kBlock.resize(block);
  // Q and K of the block also stay contiguous (row stride kBlockCols) for the products: rows of q
  // and k lie ws.cols floats apart (16 KiB at d_k = 4096), so a row block of them would map to the
  // same few cache sets.
  ws.hashes.compute(c0, n);
  sample_qk_columns(c, ws.hashes, ws.qBlock.data(), ws.kBlock.data(), kBlockCols);
  for (int t = 0; t < T; ++t) {
    const long from = static_cast<long>(t) * kBlockCols, to = static_cast<long>(t) * ws.cols + c0;
    std::copy_n(ws.qBlock.data() + from, n, ws.q.data() + to);
    std::copy_n(ws.kBlock.data() + from, n, ws.k.data() + to);
  }
  sample_vg_columns(c, ws.hashes, ws.vBlock.data(), ws.gBlock.data(), kBlockCols);
  for (int t = 0; t < T; ++t)  // (a max is exact in any order)
    ws.maxAbsV =
        std::max(ws.maxAbsV, max_abs(ws.vBlock.data() + static_cast<long>(t) * kBlockCols, n));
  const std::size_t packed =
      static_cast<std::size_t>(panel::panel_count(T)) * n * panel::kPanelWidth;
  ws.kPanels.resize(packed);
  ws.vPanels.resize(packed);
  // Kᵀ and Vᵀ restricted to this block: element (k, t) is K[t][c0 + k].
  panel::pack_panels(n, T, ws.kBlock.data(), 1, kBlockCols, ws.kPanels.data());
  panel::pack_panels(n, T, ws.vBlock.data(), 1, kBlockCols, ws.vPanels.data());
  if (ws.gram) {
    ws.qPanels.resize(packed);
    panel::pack_panels(n, T, ws.qBlock.data(), 1, kBlockCols, ws.qPanels.data());
  }
}

void PointJob::accumulate_rows(int c0, int c1, int r0, int r1) {
  Workspace& ws = *ws_;
  const int T = ws.seqLen, n = c1 - c0;
  const long row = static_cast<long>(r0);
  const long from = row * kBlockCols;
  panel::accumulate_packed(r1 - r0, T, n, ws.qBlock.data() + from, kBlockCols, ws.kPanels.data(),
                           ws.logits.data() + row * T, T);
  panel::accumulate_packed(r1 - r0, T, n, ws.gBlock.data() + from, kBlockCols, ws.vPanels.data(),
                           ws.gradWeights.data() + row * T, T);
  if (ws.gram) {  // lower triangles of KKᵀ and QQᵀ
    panel::accumulate_packed(r1 - r0, r1, n, ws.kBlock.data() + from, kBlockCols, ws.kPanels.data(),
                             ws.gramK.data() + row * T, T, r0);
    panel::accumulate_packed(r1 - r0, r1, n, ws.qBlock.data() + from, kBlockCols, ws.qPanels.data(),
                             ws.gramQ.data() + row * T, T, r0);
  }
}

// Raw logits: the fp32 dot products rounded to the format.
void PointJob::raw_logit_rows(int r0, int r1) {
  Workspace& ws = *ws_;
  const std::size_t T = ws.seqLen, from = r0 * T, count = (r1 - r0) * T;
  ws.z.resize(T * T);
  std::copy_n(ws.logits.begin() + from, count, ws.z.data() + from);
  round_inplace(configs_->front().format, ws.z.data() + from, count);
}

void PointJob::raw_summary() {
  Workspace& ws = *ws_;
  ws.sampled = dk_;
  raw_ = visible_moments(ws.z.data(), ws.seqLen, configs_->front().causal);
  if (keep_)
    rawHistogram_ = visible_histogram(ws.z.data(), ws.seqLen, configs_->front().causal, raw_);
}

// QK-norm: rows of q̂ and k̂ over the first d_k columns, rounded to the format.
void PointJob::normalize_rows(int r0, int r1) {
  Workspace& ws = *ws_;
  const Config& c = configs_->front();
  const int T = ws.seqLen, d = dk_;
  const std::size_t Td = static_cast<std::size_t>(T) * d;
  ws.qn.resize(Td);
  ws.kn.resize(Td);
  ws.qInv.resize(T);
  ws.kInv.resize(T);
  for (int t = r0; t < r1; ++t) {
    const long in = static_cast<long>(t) * ws.cols, out = static_cast<long>(t) * d;
    ws.qInv[t] = normalize_row(c.qkNorm, ws.q.data() + in, d, ws.qn.data() + out);
    ws.kInv[t] = normalize_row(c.qkNorm, ws.k.data() + in, d, ws.kn.data() + out);
    round_inplace(c.format, ws.qn.data() + out, d);
    round_inplace(c.format, ws.kn.data() + out, d);
  }
}

// Rows of q̂k̂ᵀ in fp32 (a fresh product per d_k: normalizing depends on every column), and
// their rounding into z for the statistics of q̂·k̂.
void PointJob::norm_product_rows(int r0, int r1) {
  Workspace& ws = *ws_;
  const int T = ws.seqLen, d = dk_;
  const std::size_t TT = static_cast<std::size_t>(T) * T, from = static_cast<std::size_t>(r0) * T,
                    count = static_cast<std::size_t>(r1 - r0) * T;
  ws.normLogits.resize(TT);
  ws.panel.resize(panel::multiply_rows_panel_floats(T, d));
  panel::multiply_rows(r1 - r0, T, d, ws.qn.data() + static_cast<long>(r0) * d, d, ws.kn.data(), 1,
                       d, ws.normLogits.data() + from, T, ws.panel.data());
  std::copy_n(ws.normLogits.begin() + from, count, ws.z.data() + from);
  round_inplace(configs_->front().format, ws.z.data() + from, count);
}

// σ of q̂·k̂ (of q·k itself without QK-norm).
void PointJob::norm_summary() {
  const Config& c = configs_->front();
  normStd_ =
      c.qkNorm == QkNorm::none ? raw_.std : visible_moments(ws_->z.data(), c.seqLen, c.causal).std;
}

// What the scaled logits start from: q·k, or q̂·k̂ with QK-norm (fp32, before rounding).
const std::vector<float>& PointJob::logit_source() const {
  return configs_->front().qkNorm == QkNorm::none ? ws_->logits : ws_->normLogits;
}

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
  state_.needOutput = c.softmax == SoftmaxMode::online || !provablyFinite;
}

// V whole (seqLen × d_k), sampled once per point for every scaling that needs the output.
void PointJob::prepare_output_rows(int r0, int r1) {
  Workspace& ws = *ws_;
  if (!state_.needOutput || ws.vCols >= dk_) return;
  ws.v.resize(static_cast<std::size_t>(ws.seqLen) * dk_);
  sample_v_rows(configs_->front(), r0, r1, dk_, ws.v.data());
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

// Backward of L = Σ O ⊙ G in fp32: dP = G Vᵀ, dZ = P ⊙ (dP − rowsum(P ⊙ dP)), dS = s dZ, then
// the rows of dQ = dS K, of which only Σ dQ² is kept.
void PointJob::ds_rows(int s, int r0, int r1) {
  Workspace& ws = *ws_;
  const Config& c = (*configs_)[s];
  const int T = c.seqLen;
  const float scale = state_.scale;
  const LogitTransform& t = state_.transform;
  ws.ds.resize(static_cast<std::size_t>(T) * T);
  ws.slope.resize(T);
  for (int i = r0; i < r1; ++i) {
    const int n = visible_keys(i, T, c.causal);
    const float* p = ws.p.data() + static_cast<std::size_t>(i) * T;
    const float* dp = &ws.gradWeights[static_cast<std::size_t>(i) * T];
    float r = 0;
    for (int j = 0; j < n; ++j) r = r + p[j] * dp[j];
    float* ds = ws.ds.data() + static_cast<std::size_t>(i) * T;
    if (t.identityBeyondScale()) {
      for (int j = 0; j < n; ++j) ds[j] = scale * (p[j] * (dp[j] - r));
    } else {  // × ∂z/∂n beyond the scale: ℓ_i · (1 − tanh²)
      float* rounded = ws.slope.data();
      std::copy_n(logit_source().begin() + static_cast<std::size_t>(i) * T, n, rounded);
      round_inplace(c.format, rounded, n);
      logit_slopes(t, length_factor(t, n), rounded, rounded, n);
      for (int j = 0; j < n; ++j) ds[j] = scale * (p[j] * (dp[j] - r) * rounded[j]);
    }
    std::fill(ds + n, ds + T, 0.0f);
    count_zeros(ds, T, state_.dsZeros, state_.dsNonFinite);
  }
}

// The Gram products may skip dS's exact zeros (a saturated softmax's rows are mostly 0) when dS
// has no inf/NaN: then the result is the same bits (panel::multiply_rows).
bool PointJob::sparse_ds() const {
  const double T = ws_->seqLen;
  return state_.dsNonFinite == 0 && static_cast<double>(state_.dsZeros) > 0.5 * T * T;
}

// Rows of dQ = dS K, of which only Σ dQ² is kept. With QK-norm: dQ̂ = dS K̂, then each row back
// through its normalization.
void PointJob::backward_q_rows(int s, int r0, int r1) {
  Workspace& ws = *ws_;
  const Config& c = (*configs_)[s];
  const int T = c.seqLen, d = dk_;
  const bool norm = c.qkNorm != QkNorm::none;
  const std::size_t n = static_cast<std::size_t>(r1 - r0) * d;
  ws.rowsA.resize(n);
  ws.panel.resize(panel::multiply_rows_panel_floats(d, T));
  panel::multiply_rows(r1 - r0, d, T, ws.ds.data() + static_cast<long>(r0) * T, T,
                       norm ? ws.kn.data() : ws.k.data(), norm ? d : ws.cols, 1, ws.rowsA.data(), d,
                       ws.panel.data());
  if (norm)
    for (int i = r0; i < r1; ++i)
      normalize_row_backward(c.qkNorm, ws.qn.data() + static_cast<long>(i) * d, ws.qInv[i], d,
                             ws.rowsA.data() + static_cast<long>(i - r0) * d);
  state_.dqSquares += sum_squares(ws.rowsA.data(), n);
}

// Rows [r0, r1) of dSᵀ (once every row of dS is done), into z: the scaled logits are not read
// again in this scaling.
void PointJob::transpose_ds_rows(int r0, int r1) {
  Workspace& ws = *ws_;
  const int T = ws.seqLen;
  transpose(T, r1 - r0, ws.ds.data() + r0, T, ws.z.data() + static_cast<long>(r0) * T, T);
}

// Rows of dK = dSᵀ Q.
void PointJob::backward_k_rows(int s, int r0, int r1) {
  Workspace& ws = *ws_;
  const Config& c = (*configs_)[s];
  const int T = c.seqLen, d = dk_;
  const bool norm = c.qkNorm != QkNorm::none;
  const std::size_t n = static_cast<std::size_t>(r1 - r0) * d;
  ws.rowsA.resize(n);
  ws.panel.resize(panel::multiply_rows_panel_floats(d, T));
  const float* dsT = ws.z.data() + static_cast<long>(r0) * T;
  panel::multiply_rows(r1 - r0, d, T, dsT, T, norm ? ws.qn.data() : ws.q.data(), norm ? d : ws.cols,
                       1, ws.rowsA.data(), d, ws.panel.data());
  if (norm)
    for (int i = r0; i < r1; ++i)
      normalize_row_backward(c.qkNorm, ws.kn.data() + static_cast<long>(i) * d, ws.kInv[i], d,
                             ws.rowsA.data() + static_cast<long>(i - r0) * d);
  state_.dkSquares += sum_squares(ws.rowsA.data(), n);
}

namespace {
// Σ_{j in rows, l <= j} w_jl · gram_jl · m_jl with w = 2 below the diagonal and 1 on it: the
// rows' share of ⟨gram, m⟩ for symmetric gram and m, from their lower triangles. `m` holds rows
// [r0, r1) with leading dimension r1; `gram` is T × T.
double lower_inner(const float* gram, int T, const float* m, int r0, int r1) {
  double sum = 0;
  for (int j = r0; j < r1; ++j) {
    const float* g = gram + static_cast<long>(j) * T;
    const float* row = m + static_cast<long>(j - r0) * r1;
    double below = 0;
    for (int l = 0; l < j; ++l) below += static_cast<double>(g[l]) * row[l];
    sum += 2 * below + static_cast<double>(g[j]) * row[j];
  }
  return sum;
}
}  // namespace

// For d_k >= T the gradient norms come from T × T Gram matrices instead of the T × d_k products:
// ‖dQ‖² = ‖dS K‖² = ⟨KKᵀ, dSᵀdS⟩ and ‖dK‖² = ‖dSᵀ Q‖² = ⟨QQᵀ, dS dSᵀ⟩, 2T³ flops per scaling
// instead of 4T²d_k. KKᵀ and QQᵀ accumulate across d_k like QKᵀ (shared by every scaling).
// These steps form rows [r0, r1) of dSᵀdS (lower triangle).
void PointJob::gram_q_rows(int r0, int r1) {
  Workspace& ws = *ws_;
  const int T = ws.seqLen, rows = r1 - r0;
  ws.rowsA.resize(static_cast<std::size_t>(rows) * r1);
  ws.panel.resize(panel::multiply_rows_panel_floats(r1, T));
  const float* dsT = ws.z.data() + static_cast<long>(r0) * T;
  panel::multiply_rows(rows, r1, T, dsT, T, ws.ds.data(), T, 1, ws.rowsA.data(), r1,
                       ws.panel.data(), sparse_ds(), r0);
  state_.dqSquares += lower_inner(ws.gramK.data(), T, ws.rowsA.data(), r0, r1);
}

// Rows [r0, r1) of dS dSᵀ (lower triangle) against QQᵀ.
void PointJob::gram_k_rows(int r0, int r1) {
  Workspace& ws = *ws_;
  const int T = ws.seqLen, rows = r1 - r0;
  ws.rowsA.resize(static_cast<std::size_t>(rows) * r1);
  ws.panel.resize(panel::multiply_rows_panel_floats(r1, T));
  // B = dSᵀ, read from its rows (z) so that packing copies rows instead of transposing.
  panel::multiply_rows(rows, r1, T, ws.ds.data() + static_cast<long>(r0) * T, T, ws.z.data(), T, 1,
                       ws.rowsA.data(), r1, ws.panel.data(), sparse_ds(), r0);
  state_.dkSquares += lower_inner(ws.gramQ.data(), T, ws.rowsA.data(), r0, r1);
}

void PointJob::end_scale(int s) {
  RunResult& out = results_[s];
  RunStats& st = out.stats;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const bool online = (*configs_)[s].softmax == SoftmaxMode::online;
  st.onlineMaxAbsDiff = online ? state_.outputDiff : nan;
  st.nonFinite.output = state_.needOutput ? state_.outputNonFinite : 0;
  const double entries = static_cast<double>(ws_->seqLen) * dk_;
  // (The Gram form of a sum of squares can round below 0 when it is ~0.)
  st.gradNormQ = std::sqrt(std::max(0.0, state_.dqSquares) / entries);
  st.gradNormK = std::sqrt(std::max(0.0, state_.dkSquares) / entries);
  st.firstNonFiniteStage = st.nonFinite.logits    ? Stage::logits
                           : st.nonFinite.exp     ? Stage::exp
                           : st.nonFinite.weights ? Stage::weights
                           : st.nonFinite.output  ? Stage::output
                                                  : Stage::none;
}

}  // namespace attnscale
