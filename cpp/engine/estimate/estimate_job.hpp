// An estimate of a sweep before its exact values: every d_k point of SweepJob's configs computed
// on r sampled query rows against all T keys, with a standard error per statistic.
//
// The inputs are the very samples of the exact sweep: Q and G of the sampled rows, K and V of
// every row, drawn and rounded as engine/sampling.cpp draws them. Each sampled row's logits,
// softmax, row statistics and row of ∂L/∂Q are computed by the engine's own kernels in the same
// order, so they equal the exact run's values for that row bit for bit (∂L/∂Q up to the sum's
// order where the exact run takes the Gram form, d_k >= T); what differs from the exact statistic
// is only which rows are averaged. estimators.hpp holds the design and the formulas. Cost per
// scaling and point ≈ r/T of the exact one, plus sampling K and V whole.
//
// Not estimated (exact_only_fields), each for a reason:
// - gradNormQ: a row's ‖dQ_i‖² grows with the sharpness of its softmax and the spread of its
//   keys' dP, so it is heavy-tailed across rows: one or two rows can hold most of Σ‖dQ_i‖²
//   (correlated q and k, a shared mean, a saturating softmax), and a sample without them
//   underestimates the mean with a small SE. Even with i.i.d. N(0, 1) inputs the SE covered too
//   little (docs/api.md#sweep-estimates). The sample's RMS is given as a preview, with no SE.
// - gradNormK: ∂L/∂K sums dS_ij q_i over every query row i for each key j, so ‖dK‖² is not a sum
//   over rows. Σ_{i,l} (dS_i·dS_l)(q_i·q_l) has an unbiased estimate from the sample's pairs
//   (weights T/r on the diagonal, T(T − 1)/(r(r − 1)) off it), but it can come out negative and
//   its variance needs the sample's fourth moments.
// - jacobianNormMedian: the median of a sample has no simple SE; the sample's is given, no SE.
// - logitMin, logitMax: a sample's extremes only bound the exact ones.
// - onlineMaxAbsDiff, nonFinite.output: they need O = PV, not formed.
// - firstNonFiniteStage: a sample with no inf/NaN does not show that the exact run has none.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "config/config.hpp"
#include "engine/estimate/estimators.hpp"
#include "engine/point_job/point_job.hpp"
#include "engine/workspace.hpp"
#include "gemm/panel_gemm.hpp"
#include "kernels/logit_transform.hpp"

namespace attnscale {

// The sampled rows, ascending: ⌊(j + u)·T/r⌋ for j < r, u = (a hash of seed)/2^32
// (estimators.hpp). rows in [1, seqLen].
std::vector<int> estimate_rows(int seqLen, int rows, std::uint32_t seed);

struct EstimateStats {
  int rows = 0;
  // Estimated, with a standard error.
  Estimate rawLogitMean, rawLogitStd, normLogitStd, logitMean, logitStd;
  Estimate entropy, maxWeight, saturatedFraction, jacobianNormMean, nonFiniteRows;
  // Exact (se 0): functions of the config and the shape.
  Estimate entropyMax, scaleFactor, rawLogitStdTheory, largestFinite;
  // The sample's own values, with no standard error (see above): the median of the rows'
  // Jacobian norms and the RMS of ∂L/∂Q over the sampled rows.
  double jacobianNormMedian = 0, gradNormQ = 0;
  // The sample's inf/NaN counts times T/r: unbiased, with no standard error (a sample with none
  // does not show that the exact count is 0).
  double nonFiniteLogits = 0, nonFiniteExp = 0, nonFiniteWeights = 0;
};

struct EstimateField {
  const char* name;
  Estimate EstimateStats::*member;
};
// The fields with a value and a standard error, by name (the bindings' table).
const std::vector<EstimateField>& estimate_fields();
// run's fields that an estimate does not give (see above), by name.
const std::vector<const char*>& exact_only_fields();

class EstimateJob {
 public:
  // configs: valid, equal in every field but the scale (their dk is ignored; no model inputs);
  // dks non-empty; rows in [2, seqLen]. Without `gradients` the backward is left out (V, G, dS and
  // ∂L/∂Q are never formed, about half the work): gradNormQ is NaN, every other field the same.
  EstimateJob(std::vector<Config> configs, std::vector<int> dks, int rows, bool gradients = true);
  bool done() const { return next_ >= dks_.size(); }
  std::size_t size() const { return dks_.size(); }
  int nextDk() const { return dks_[next_]; }
  const std::vector<int>& rows() const { return rows_; }
  // Works on the next point until it completes (true: its estimates are in point()) or `deadline`
  // passes (false: the work so far is kept). False when done().
  bool advance(Clock::time_point deadline);
  // The last completed point: one EstimateStats per config.
  const std::vector<EstimateStats>& point() const { return results_; }

 private:
  // Per-row sums of one set of logits: finite count, sum, squares around the pooled mean.
  struct RowMoments {
    std::vector<double> count, sum, squares;
    std::vector<char> allFinite;
    std::vector<double> nonFinite;
    float mean = 0;
  };

  void plan(int dk);
  void add(std::function<void()> step) { steps_.push_back(std::move(step)); }
  void add_blocks(int count, double flopsPerItem, std::function<void(int, int)> step);
  void add_moments(const float* z, RowMoments& m, std::function<void(const RowMoments&)> done);
  void sample_rows(int c0, int c1, int t0, int t1);
  void pack_block(int c0, int c1);
  void accumulate_rows(int c0, int c1, int s0, int s1);
  void round_rows(const std::vector<float>& from, int s0, int s1);
  void normalize_rows(int t0, int t1);
  void norm_product_rows(int s0, int s1);
  void pack_k_chunks(int from, int c0, int c1);
  void scaled_rows(int s, int s0, int s1);
  void softmax_rows(int s, int s0, int s1);
  void ds_rows(int s, int s0, int s1);
  void dq_chunks(int c0, int c1);
  void dq_rows(int s, int s0, int s1);
  void end_scale(int s);
  int keys(int sample) const;
  // K's rows in chunks for dQ = dS K (kPacked_): their count, the floats each holds, the first.
  static constexpr int kChunkRows = 32;
  int chunk_count() const { return (T_ + kChunkRows - 1) / kChunkRows; }
  std::size_t chunk_floats() const {
    return static_cast<std::size_t>(panel::panel_count(cols_)) * kChunkRows * panel::kPanelWidth;
  }
  float* chunk_panels(int c) { return kPacked_.data() + c * chunk_floats(); }

  std::vector<Config> configs_;
  std::vector<int> dks_, rows_;
  std::vector<int> sampleAt_;  // T entries: the row's index in rows_, or −1
  int T_ = 0, r_ = 0, cols_ = 0, dk_ = 0;
  bool gradients_ = true;
  int sampled_ = 0;       // columns [0, sampled_) are in k_, q_ and the two products
  int packedPanels_ = 0;  // whole panels of K in kPacked_ (without QK-norm)

  RawFloats k_, q_;        // T × cols and r × cols, rounded
  RawFloats kPacked_;      // K (or K̂) over [0, d_k), chunks packed for dS K
  std::vector<float> dq_;  // r × d_k: ∂L/∂Q (or ∂L/∂Q̂) of the sampled rows
  std::vector<float> logits_, gradWeights_;    // r × T: QKᵀ and GVᵀ of the sampled rows, fp32
  std::vector<float> kBlock_, vBlock_;         // T × kBlockCols: one column block
  std::vector<float> qBlock_, gBlock_;         // r × kBlockCols
  std::vector<float> kPanels_, vPanels_, zq_;  // packed Kᵀ, Vᵀ of the block; one row's z_q
  ColumnHashes hashes_;
  std::vector<float> kn_, qn_, kInv_, qInv_, normLogits_;  // QK-norm
  RawFloats z_, p_, ds_;                                   // r × T, one set at a time
  std::vector<float> panel_, slope_;

  RowMoments raw_, norm_, scaled_;
  MomentEstimates rawEstimates_, normEstimates_;
  LogitTransform transform_;
  std::vector<float> entropy_, maxWeight_, jacobian_;
  std::vector<double> expNonFinite_, weightNonFinite_, dqSquares_;

  std::vector<std::function<void()>> steps_;
  std::size_t step_ = 0, next_ = 0;
  bool planned_ = false;
  std::vector<EstimateStats> results_;
};

}  // namespace attnscale
