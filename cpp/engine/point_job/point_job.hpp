// The work of one measurement point (one d_k, one or more scalings) as a list of small steps, so
// a caller can stop between any two (a time budget, a cancel) and resume later.
//
// Shared by every scaling of the point: sampling the new columns of Q, K, V, G; extending the fp32
// products QKᵀ and GVᵀ (and, when some d_k >= T, the Gram matrices KKᵀ and QQᵀ) over them; the raw
// logits' statistics. Per scaling: scaled logits, softmax and its row statistics, the output
// check, the backward. A step covers a block of rows (or a block of columns of the products) sized
// to a few milliseconds; every sum is accumulated in the same order whatever the blocks, so
// results do not depend on where the work was split: a sweep point equals `run` at that d_k bit
// for bit.
//
// point_job.cpp plans the steps and runs them; shared_steps.cpp, forward_steps.cpp and
// backward_steps.cpp hold what each step does.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

#include "config/config.hpp"
#include "engine/run_result.hpp"
#include "engine/workspace.hpp"
#include "kernels/logit_transform.hpp"

namespace attnscale {

using Clock = std::chrono::steady_clock;

// What a step does, for profiles (bench): sampling Q, K, V, G; the products QKᵀ, GVᵀ; raw and
// scaled logits with their moments; softmax and row statistics; the output check; the backward.
enum class Phase { sampling, products, logits, softmax, output, backward, count };
const char* phase_name(Phase p);
using PhaseTimes = std::array<double, static_cast<int>(Phase::count)>;

// Whether the gradient norms at (T, d_k) come from the Gram matrices (backward_steps.cpp): a
// function of the shape (and of QK-norm, whose backward needs dQ̂ row by row) only, so run and
// sweep take the same path.
inline bool uses_gram(int seqLen, int dk, QkNorm norm) {
  return dk >= seqLen && norm == QkNorm::none;
}

class PointJob {
 public:
  // configs: the same settings except the scale, each with .dk == dk; ws.sampled <= dk, and ws
  // outlives the job. keepMatrices: also the histograms, weights and per-row arrays (a `run`).
  // Without `backward` the job stops after the output: gradNormQ and gradNormK are NaN.
  // gradientProductsLast (one config, sampled inputs, ws.sampled == 0): GVᵀ and the Gram
  // products are formed after the forward instead of beside QKᵀ, so that the forward's results
  // come sooner (run_forward); V's packed blocks are kept for it. The results are the same bits.
  void plan(Workspace& ws, const std::vector<Config>& configs, int dk, bool keepMatrices,
            bool backward = true, bool gradientProductsLast = false);
  // Runs steps until all are done (true) or `deadline` has passed (false; call again to go on).
  bool run_until(Clock::time_point deadline);
  // Runs the steps of every scaling's forward: then results() hold every field but the gradient
  // norms (NaN until run_until completes the job).
  void run_forward();
  bool done() const { return next_ >= steps_.size(); }
  // One result per config, complete once run_until returned true.
  std::vector<RunResult>& results() { return results_; }
  // Milliseconds spent per phase by every step run so far (over all plans).
  const PhaseTimes& phase_ms() const { return phaseMs_; }

 private:
  // Columns of Q, K, V, G sampled and multiplied per block: sampling one block is one step (~8 ms
  // at T = 2048 in wasm), and a packed Kᵀ block of T = 2048 is 2 MiB. (Each block loads and stores
  // the products QKᵀ, GVᵀ and the Gram matrices once: 256 columns instead of 128 halve that
  // traffic, ~3 % of a T = 1024 sweep.)
  static constexpr int kBlockCols = 256;

  struct ScaleState {
    float scale = 1;
    LogitTransform transform;
    Moments logits;
    double maxRowSum = 0;  // max over rows of Σ|p|
    bool needOutput = false;
    double outputDiff = 0;
    std::uint64_t outputNonFinite = 0;
    double dqSquares = 0, dkSquares = 0;
    std::uint64_t dsZeros = 0, dsNonFinite = 0;  // over dS (every row, padding included)
  };

  void add(Phase phase, std::function<void()> step);
  void add_rows(Phase phase, double flopsPerRow, std::function<void(int, int)> step);
  void sample_block(int c0, int c1);
  void copy_given_block(int c0, int c1);
  float* v_panels(int c0);
  void accumulate_rows(int c0, int c1, int r0, int r1);
  void gradient_block(int c0, int c1);
  void gradient_product_rows(int c0, int c1, int r0, int r1);
  void raw_logit_rows(int r0, int r1);
  void raw_summary();
  void normalize_rows(int r0, int r1);
  void norm_product_rows(int r0, int r1);
  void norm_summary();
  const std::vector<float>& logit_source() const;
  void begin_scale(int s);
  void scaled_logit_rows(int s, int r0, int r1);
  void logit_summary(int s);
  void softmax_rows(int s, int r0, int r1);
  void weight_summary(int s);
  void prepare_output_rows(int r0, int r1);
  void output_rows(int s, int r0, int r1);
  void ds_rows(int s, int r0, int r1);
  void backward_q_rows(int s, int r0, int r1);
  bool sparse_ds() const;
  bool packs_kq() const;
  float* ds_packed();
  void pack_kq_block(int k0);
  void pack_ds_block(const float* b, int k0);
  void transpose_ds_rows(int r0, int r1);
  void backward_k_rows(int s, int r0, int r1);
  void gradient_rows(int s, int r0, int r1, const float* a, const float* packedB, const float* b,
                     const float* bNormed, const float* xhat, const float* inv, double& squares);
  void gram_q_rows(int r0, int r1);
  void gram_k_rows(int r0, int r1);
  void forward_summary(int s);
  void gradient_summary(int s);

  Workspace* ws_ = nullptr;
  const std::vector<Config>* configs_ = nullptr;
  int dk_ = 0;
  bool keep_ = false;
  bool backward_ = true;
  bool gradientsLast_ = false;
  std::size_t forwardEnd_ = 0;  // steps_[0, forwardEnd_) end with the last scaling's forward
  Moments raw_;
  double normStd_ = 0;
  Histogram rawHistogram_;
  ScaleState state_;
  std::vector<RunResult> results_;
  std::vector<std::pair<Phase, std::function<void()>>> steps_;
  PhaseTimes phaseMs_{};
  std::size_t next_ = 0;
};

}  // namespace attnscale
