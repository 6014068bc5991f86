// The plan of one estimated point and the steps shared by its scalings: sampling K, V (every row)
// and Q, G (the sampled rows) a column block at a time, the sampled rows' QKᵀ and GVᵀ, their raw
// (or QK-normalized) logits, and K packed for the backward. estimate_steps.cpp holds the per-
// scaling steps.
#include "engine/estimate/estimate_job.hpp"

#include <algorithm>
#include <cmath>

#include "gemm/panel_gemm.hpp"
#include "kernels/qk_norm.hpp"
#include "rng/counter_normal.hpp"
#include "simd/batch.hpp"
#include "stats/summary.hpp"

namespace attnscale {

namespace {

// Columns per sampled block, as PointJob's (any width gives the same bits: every product entry is
// one sum in column order).
constexpr int kBlockCols = 256;
// Work per step, as PointJob's (point_job.cpp): ~2–3 ms in either wasm build.
constexpr double kStepFlops = simd::kHasSimd ? 6e7 : 1e7;

}  // namespace

std::vector<int> estimate_rows(int seqLen, int rows, std::uint32_t seed) {
  // u = U/2^32 with U a 32-bit hash of the seed; i_j = ⌊(j·2^32 + U)·T / (r·2^32)⌋ in integers
  // (< 2^54), so every build picks the same rows.
  const std::uint64_t u = mix32(seed ^ mix32(0x5851f42dU));
  const std::uint64_t T = seqLen, r = rows;
  std::vector<int> out(rows);
  for (std::uint64_t j = 0; j < r; ++j) out[j] = static_cast<int>(((j << 32) + u) * T / (r << 32));
  return out;
}

const std::vector<EstimateField>& estimate_fields() {
  using S = EstimateStats;
  static const std::vector<EstimateField> fields = {
      {"rawLogitMean", &S::rawLogitMean},
      {"rawLogitStd", &S::rawLogitStd},
      {"rawLogitStdTheory", &S::rawLogitStdTheory},
      {"normLogitStd", &S::normLogitStd},
      {"scaleFactor", &S::scaleFactor},
      {"logitMean", &S::logitMean},
      {"logitStd", &S::logitStd},
      {"entropy", &S::entropy},
      {"entropyMax", &S::entropyMax},
      {"maxWeight", &S::maxWeight},
      {"saturatedFraction", &S::saturatedFraction},
      {"jacobianNormMean", &S::jacobianNormMean},
      {"nonFiniteRows", &S::nonFiniteRows},
      {"largestFinite", &S::largestFinite},
  };
  return fields;
}

const std::vector<const char*>& exact_only_fields() {
  static const std::vector<const char*> names = {
      "gradNormQ", "gradNormK",        "jacobianNormMedian", "logitMin",
      "logitMax",  "onlineMaxAbsDiff", "nonFinite.output",   "firstNonFiniteStage"};
  return names;
}

EstimateJob::EstimateJob(std::vector<Config> configs, std::vector<int> dks, int rows,
                         bool gradients)
    : configs_(std::move(configs)), dks_(std::move(dks)), gradients_(gradients) {
  const Config& c = configs_.front();
  T_ = c.seqLen;
  r_ = rows;
  rows_ = estimate_rows(T_, r_, c.seed);
  sampleAt_.assign(T_, -1);
  for (int s = 0; s < r_; ++s) sampleAt_[rows_[s]] = s;
  cols_ = dks_.empty() ? 1 : *std::max_element(dks_.begin(), dks_.end());
  const std::size_t rT = static_cast<std::size_t>(r_) * T_;
  k_.resize(static_cast<std::size_t>(T_) * cols_);
  q_.resize(static_cast<std::size_t>(r_) * cols_);
  logits_.assign(rT, 0.0f);
  z_.resize(rT);
  p_.resize(rT);
  if (gradients_) {
    kPacked_.resize(static_cast<std::size_t>(chunk_count()) * chunk_floats());
    dq_.resize(static_cast<std::size_t>(r_) * cols_);
    gradWeights_.assign(rT, 0.0f);
    ds_.resize(rT);
  }
  results_.resize(configs_.size());
}

int EstimateJob::keys(int sample) const {
  return visible_keys(rows_[sample], T_, configs_.front().causal);
}

bool EstimateJob::advance(Clock::time_point deadline) {
  if (done()) return false;
  if (!planned_) {
    plan(dks_[next_]);
    planned_ = true;
  }
  while (step_ < steps_.size()) {
    steps_[step_++]();
    if (step_ < steps_.size() && Clock::now() >= deadline) return false;
  }
  planned_ = false;
  ++next_;
  return true;
}

void EstimateJob::add_blocks(int count, double flopsPerItem, std::function<void(int, int)> step) {
  const int per = std::clamp(static_cast<int>(kStepFlops / std::max(flopsPerItem, 1.0)), 1, count);
  for (int a = 0; a < count; a += per) {
    const int b = std::min(count, a + per);
    add([step, a, b] { step(a, b); });
  }
}

// Per-row count and sum of the finite visible entries of z, the pooled mean, then each row's
// squares around it (the engine's visible_moments in two passes, over the sampled rows).
void EstimateJob::add_moments(const float* z, RowMoments& m,
                              std::function<void(const RowMoments&)> done) {
  const double T = T_;
  add([this, &m] {
    for (auto* v : {&m.count, &m.sum, &m.squares, &m.nonFinite}) v->assign(r_, 0.0);
    m.allFinite.assign(r_, 0);
  });
  add_blocks(r_, 20 * T, [this, z, &m](int s0, int s1) {
    for (int s = s0; s < s1; ++s) {
      const RowSums r = row_sums(z + static_cast<std::size_t>(s) * T_, keys(s));
      m.count[s] = static_cast<double>(r.finite);
      m.sum[s] = r.sum;
      m.nonFinite[s] = static_cast<double>(r.nonFinite);
      m.allFinite[s] = r.nonFinite == 0;
    }
  });
  add([this, &m] {
    double n = 0, sum = 0;
    for (int s = 0; s < r_; ++s) {
      n += m.count[s];
      sum += m.sum[s];
    }
    m.mean = n > 0 ? static_cast<float>(sum / n) : 0.0f;
  });
  add_blocks(r_, 20 * T, [this, z, &m](int s0, int s1) {
    for (int s = s0; s < s1; ++s)
      m.squares[s] =
          row_squares(z + static_cast<std::size_t>(s) * T_, keys(s), m.mean, m.allFinite[s]);
  });
  add([&m, done] { done(m); });
}

void EstimateJob::plan(int d) {
  if (d < sampled_) {  // a smaller d_k after a larger one: start the products over
    std::fill(logits_.begin(), logits_.end(), 0.0f);
    std::fill(gradWeights_.begin(), gradWeights_.end(), 0.0f);  // (empty without gradients)
    sampled_ = packedPanels_ = 0;
  }
  dk_ = d;
  steps_.clear();
  step_ = 0;
  for (Config& c : configs_) c.dk = d;
  const Config& c = configs_.front();
  const double T = T_, dd = d;
  const bool norm = c.qkNorm != QkNorm::none;

  for (int c0 = sampled_; c0 < d; c0 += kBlockCols) {
    const int c1 = std::min(d, c0 + kBlockCols), n = c1 - c0;
    add_blocks(T_, 300.0 * n, [this, c0, c1](int t0, int t1) { sample_rows(c0, c1, t0, t1); });
    add([this, c0, c1] { pack_block(c0, c1); });
    add_blocks(r_, 4 * T * n, [this, c0, c1](int s0, int s1) { accumulate_rows(c0, c1, s0, s1); });
  }
  sampled_ = d;
  add_blocks(r_, 30 * T, [this](int s0, int s1) { round_rows(logits_, s0, s1); });
  add_moments(z_.data(), raw_, [this](const RowMoments& m) {
    rawEstimates_ = moment_estimates(m.count, m.sum, m.squares, T_);
  });
  if (norm) {
    add([this] {
      const std::size_t Td = static_cast<std::size_t>(T_) * dk_,
                        rd = static_cast<std::size_t>(r_) * dk_;
      kn_.resize(Td);
      qn_.resize(rd);
      kInv_.resize(T_);
      qInv_.resize(r_);
      normLogits_.resize(static_cast<std::size_t>(r_) * T_);
    });
    add_blocks(T_, 60 * dd, [this](int t0, int t1) { normalize_rows(t0, t1); });
    add_blocks(r_, 3 * T * dd, [this](int s0, int s1) { norm_product_rows(s0, s1); });
    add_moments(z_.data(), norm_, [this](const RowMoments& m) {
      normEstimates_ = moment_estimates(m.count, m.sum, m.squares, T_);
    });
  }
  // K (or K̂) packed for the backward's dQ = dS K, a chunk of its rows at a time; without QK-norm
  // only the panels of columns new since the last point.
  if (gradients_) {
    const int from = norm ? 0 : packedPanels_;
    const double copies = static_cast<double>(kChunkRows) * (d - from * panel::kPanelWidth);
    add_blocks(chunk_count(), 30 * copies,
               [this, from](int c0, int c1) { pack_k_chunks(from, c0, c1); });
    packedPanels_ = norm ? 0 : d / panel::kPanelWidth;
  }

  for (int s = 0; s < static_cast<int>(configs_.size()); ++s) {
    add([this, s] { transform_ = logit_transform(configs_[s]); });
    add_blocks(r_, 60 * T, [this, s](int s0, int s1) { scaled_rows(s, s0, s1); });
    add_moments(z_.data(), scaled_, [this, s](const RowMoments& m) {
      const MomentEstimates e = moment_estimates(m.count, m.sum, m.squares, T_);
      results_[s].logitMean = e.mean;
      results_[s].logitStd = e.std;
    });
    add_blocks(r_, 300 * T, [this, s](int s0, int s1) { softmax_rows(s, s0, s1); });
    if (gradients_) {
      add_blocks(r_, 60 * T, [this, s](int s0, int s1) { ds_rows(s, s0, s1); });
      add_blocks(chunk_count(), 2.0 * r_ * kChunkRows * dd,
                 [this](int c0, int c1) { dq_chunks(c0, c1); });
      add_blocks(r_, 30 * dd, [this, s](int s0, int s1) { dq_rows(s, s0, s1); });
    }
    add([this, s] { end_scale(s); });
  }
}

// Rows [t0, t1) of the block's K and V, and Q and G where a row is sampled: the values of
// sample_qk_columns and sample_vg_columns (engine/sampling.cpp).
void EstimateJob::sample_rows(int c0, int c1, int t0, int t1) {
  const Config& c = configs_.front();
  const int n = c1 - c0;
  if (t0 == 0) {
    hashes_.compute(c0, n);
    kBlock_.resize(static_cast<std::size_t>(T_) * kBlockCols);
    vBlock_.resize(static_cast<std::size_t>(T_) * kBlockCols);
    qBlock_.resize(static_cast<std::size_t>(r_) * kBlockCols);
    gBlock_.resize(static_cast<std::size_t>(r_) * kBlockCols);
    zq_.resize(kBlockCols);
  }
  const float mu = static_cast<float>(c.mean), sigma = static_cast<float>(c.std);
  const float rho = static_cast<float>(c.correlation);
  const float rhoBar = static_cast<float>(std::sqrt(1.0 - c.correlation * c.correlation));
  for (int t = t0; t < t1; ++t) {
    const int s = sampleAt_[t];
    float* kr = kBlock_.data() + static_cast<std::size_t>(t) * kBlockCols;
    float* qr = s >= 0 ? qBlock_.data() + static_cast<std::size_t>(s) * kBlockCols : nullptr;
    fill_normal_hashed(c.seed, Tensor::kIndependent, t, hashes_, kr);
    // K shares ρ·z_q with Q of its token. With ρ = 0 that term is ±0, and ±0 + ρ̄·z_k is ρ̄·z_k
    // (a sample is never −0), so z_q is drawn only for the rows whose Q is kept.
    if (qr || rho != 0)
      fill_normal_hashed(c.seed, Tensor::q, t, hashes_, zq_.data());
    else
      std::fill(zq_.begin(), zq_.end(), 0.0f);
    for (int i = 0; i < n; ++i) {
      const float zq = zq_[i], zk = kr[i];
      if (qr) qr[i] = mu + sigma * zq;
      kr[i] = mu + sigma * (rho * zq + rhoBar * zk);
    }
    round_inplace(c.format, kr, n);
    std::copy_n(kr, n, k_.data() + static_cast<std::size_t>(t) * cols_ + c0);
    if (qr) {
      round_inplace(c.format, qr, n);
      std::copy_n(qr, n, q_.data() + static_cast<std::size_t>(s) * cols_ + c0);
      if (gradients_)
        fill_normal_hashed(c.seed, Tensor::upstreamGrad, t, hashes_,
                           gBlock_.data() + static_cast<std::size_t>(s) * kBlockCols);
    }
    if (!gradients_) continue;
    float* vr = vBlock_.data() + static_cast<std::size_t>(t) * kBlockCols;
    fill_normal_hashed(c.seed, Tensor::v, t, hashes_, vr);
    round_inplace(c.format, vr, n);
  }
}

// The block's Kᵀ and Vᵀ packed for the products (element (k, t) is K[t][c0 + k]).
void EstimateJob::pack_block(int c0, int c1) {
  const int n = c1 - c0;
  const std::size_t packed =
      static_cast<std::size_t>(panel::panel_count(T_)) * n * panel::kPanelWidth;
  kPanels_.resize(packed);
  panel::pack_panels(n, T_, kBlock_.data(), 1, kBlockCols, kPanels_.data());
  if (!gradients_) return;
  vPanels_.resize(packed);
  panel::pack_panels(n, T_, vBlock_.data(), 1, kBlockCols, vPanels_.data());
}

void EstimateJob::accumulate_rows(int c0, int c1, int s0, int s1) {
  const int n = c1 - c0;
  const std::size_t from = static_cast<std::size_t>(s0) * kBlockCols,
                    to = static_cast<std::size_t>(s0) * T_;
  panel::accumulate_packed(s1 - s0, T_, n, qBlock_.data() + from, kBlockCols, kPanels_.data(),
                           logits_.data() + to, T_);
  if (!gradients_) return;
  panel::accumulate_packed(s1 - s0, T_, n, gBlock_.data() + from, kBlockCols, vPanels_.data(),
                           gradWeights_.data() + to, T_);
}

// Rows of z: the fp32 rows of `from` rounded to the format.
void EstimateJob::round_rows(const std::vector<float>& from, int s0, int s1) {
  const std::size_t at = static_cast<std::size_t>(s0) * T_,
                    count = static_cast<std::size_t>(s1 - s0) * T_;
  std::copy_n(from.begin() + at, count, z_.data() + at);
  round_inplace(configs_.front().format, z_.data() + at, count);
}

// QK-norm of rows [t0, t1) of K, and of Q where a row is sampled, rounded (as normalize_rows).
void EstimateJob::normalize_rows(int t0, int t1) {
  const Config& c = configs_.front();
  const int d = dk_;
  for (int t = t0; t < t1; ++t) {
    float* kn = kn_.data() + static_cast<std::size_t>(t) * d;
    kInv_[t] = normalize_row(c.qkNorm, k_.data() + static_cast<std::size_t>(t) * cols_, d, kn);
    round_inplace(c.format, kn, d);
    const int s = sampleAt_[t];
    if (s < 0) continue;
    float* qn = qn_.data() + static_cast<std::size_t>(s) * d;
    qInv_[s] = normalize_row(c.qkNorm, q_.data() + static_cast<std::size_t>(s) * cols_, d, qn);
    round_inplace(c.format, qn, d);
  }
}

// Rows of q̂k̂ᵀ in fp32, and their rounding into z.
void EstimateJob::norm_product_rows(int s0, int s1) {
  const int d = dk_;
  panel_.resize(panel::multiply_rows_panel_floats(T_, d));
  const std::size_t at = static_cast<std::size_t>(s0) * T_;
  panel::multiply_rows(s1 - s0, T_, d, qn_.data() + static_cast<std::size_t>(s0) * d, d, kn_.data(),
                       1, d, normLogits_.data() + at, T_, panel_.data());
  round_rows(normLogits_, s0, s1);
}

// Chunks [c0, c1) of the rows of the backward's B = K (T × d_k) or K̂, panels `from` on. Chunk c
// holds rows [c·kChunkRows, …) as panels of 16 columns, each k-major (panel_gemm.hpp), so that
// dQ = dS K can run a chunk of K at a time past every sampled row while it is in cache.
void EstimateJob::pack_k_chunks(int from, int c0, int c1) {
  const bool norm = configs_.front().qkNorm != QkNorm::none;
  const float* src = norm ? kn_.data() : k_.data();
  const long ld = norm ? dk_ : cols_;
  const int col = from * panel::kPanelWidth;
  for (int c = c0; c < c1; ++c) {
    const int k0 = c * kChunkRows, kc = std::min(kChunkRows, T_ - k0);
    panel::pack_panels(kc, dk_ - col, src + static_cast<std::size_t>(k0) * ld + col, ld, 1,
                       chunk_panels(c) + static_cast<std::size_t>(from) * kc * panel::kPanelWidth);
  }
}

}  // namespace attnscale
