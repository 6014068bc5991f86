// The plan of one point (which steps, in which order, how many rows each) and the loop that runs
// them against a deadline. The steps themselves: shared_steps.cpp (work every scaling shares),
// forward_steps.cpp and backward_steps.cpp (per scaling).
#include "engine/point_job/point_job.hpp"

#include <algorithm>

#include "gemm/panel_gemm.hpp"
#include "simd/batch.hpp"

namespace attnscale {

namespace {

// Work per step, ~2–3 ms in either wasm build (SIMD 20–40 GFLOP/s on GEMMs, scalar ~3): the bound
// on how far one advance() can overshoot its budget.
constexpr double kStepFlops = simd::kHasSimd ? 6e7 : 1e7;

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

void PointJob::plan(Workspace& ws, const std::vector<Config>& configs, int dk, bool keepMatrices,
                    bool backward, bool gradientProductsLast) {
  ws_ = &ws;
  configs_ = &configs;
  dk_ = dk;
  keep_ = keepMatrices;
  backward_ = backward;
  gradientsLast_ =
      gradientProductsLast && backward && !ws.givenQ && configs.size() == 1 && ws.sampled == 0;
  steps_.clear();
  next_ = 0;
  forwardEnd_ = 0;
  results_.assign(configs.size(), RunResult{});
  // Step sizes in flops per row; an element-wise pass over a row counts ~30 flops per element (it
  // is memory-bound), the softmax with its statistics ~300, a sampled value ~100.
  const double T = ws.seqLen, d = dk;
  const bool online = configs.front().softmax == SoftmaxMode::online;

  // Flops of a block's products per row and column: QKᵀ 2, and beside it (unless they come after
  // the forward) GVᵀ 2 and the Gram products' lower triangles 2.
  const double productFlops = gradientsLast_ ? 2 : ws.gram ? 6 : 4;
  for (int c0 = ws.sampled; c0 < dk; c0 += kBlockCols) {
    const int c1 = std::min(dk, c0 + kBlockCols);
    add(Phase::sampling, [this, c0, c1] { sample_block(c0, c1); });
    add_rows(Phase::products, productFlops * T * (c1 - c0),
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
    add(Phase::output, [this, s] { forward_summary(s); });
    forwardEnd_ = steps_.size();
    if (ws.givenQ || !backward) continue;  // a model's own inputs: no upstream gradient
    if (gradientsLast_)
      for (int c0 = 0; c0 < dk; c0 += kBlockCols) {
        const int c1 = std::min(dk, c0 + kBlockCols);
        add(Phase::sampling, [this, c0, c1] { gradient_block(c0, c1); });
        add_rows(Phase::products, (ws.gram ? 4 : 2) * T * (c1 - c0),
                 [this, c0, c1](int r0, int r1) { gradient_product_rows(c0, c1, r0, r1); });
      }
    // The products' B is packed once, one k-block per step (panel::multiply_rows_packed): dS and
    // dSᵀ per scaling, K and Q once for every scaling when they
    // fit in T × T floats. The product steps are 1.5× smaller than the usual work, as when each
    // packed its B anew: each step's sum of squares is added to the total, so the rows a step
    // covers are part of the result's bits.
    const int kBlocks = (ws.seqLen + panel::kRowsBlock - 1) / panel::kRowsBlock;
    if (uses_gram(ws.seqLen, dk, norm)) {
      add_rows(Phase::backward, 60 * T, [this, s](int r0, int r1) { ds_rows(s, r0, r1); });
      add_rows(Phase::backward, 30 * T, [this](int r0, int r1) { transpose_ds_rows(r0, r1); });
      for (int b = 0; b < kBlocks; ++b)
        add(Phase::backward, [this, b] { pack_ds_block(ws_->ds.data(), b * panel::kRowsBlock); });
      add_rows(Phase::backward, T * T / 1.5, [this](int r0, int r1) { gram_q_rows(r0, r1); });
      for (int b = 0; b < kBlocks; ++b)
        add(Phase::backward, [this, b] { pack_ds_block(ws_->z.data(), b * panel::kRowsBlock); });
      add_rows(Phase::backward, T * T / 1.5, [this](int r0, int r1) { gram_k_rows(r0, r1); });
    } else {
      if (s == 0 && packs_kq())
        for (int b = 0; b < kBlocks; ++b)
          add(Phase::backward, [this, b] { pack_kq_block(b * panel::kRowsBlock); });
      add_rows(Phase::backward, (2 * T * d + 4 * T) / 1.5, [this, s](int r0, int r1) {
        ds_rows(s, r0, r1);
        backward_q_rows(s, r0, r1);
      });
      add_rows(Phase::backward, 30 * T, [this](int r0, int r1) { transpose_ds_rows(r0, r1); });
      add_rows(Phase::backward, 2 * T * d / 1.5,
               [this, s](int r0, int r1) { backward_k_rows(s, r0, r1); });
    }
    add(Phase::backward, [this, s] { gradient_summary(s); });
  }
}

void PointJob::run_forward() {
  while (next_ < forwardEnd_) {
    const Clock::time_point start = Clock::now();
    const auto& [phase, step] = steps_[next_++];
    step();
    phaseMs_[static_cast<int>(phase)] +=
        std::chrono::duration<double, std::milli>(Clock::now() - start).count();
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
}  // namespace attnscale
