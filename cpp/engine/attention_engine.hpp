// The measurement engine: samples Q, K, V and an upstream gradient G, runs attention forward and
// backward with the configured scaling, precision and softmax, and summarises what happened.
// It owns its buffers and reuses them across calls (no allocation per run once warm).
#pragma once

#include <vector>

#include "config/config.hpp"
#include "engine/run_result.hpp"

namespace attnscale {

class AttentionEngine {
 public:
  // `c` must be valid (parse_config / validate_config).
  RunResult run(const Config& c);

 private:
  struct Inputs {
    int cols = 0;  // components sampled per row (d_k, or the sweep's largest d_k)
    std::vector<float> q, k, v, g, kt, vt;
  };
  void sample(const Config& c, int cols);
  void accumulate_products(const Config& c, int from, int to);
  void finish(const Config& c, RunResult& out, bool keepMatrices);

  Inputs in_;
  std::vector<float> logitAcc_, gradWeightAcc_;  // QKᵀ and GVᵀ partial sums, fp32
  std::vector<float> z_, p_, ds_, o_, oOnline_, dq_, dk_, scratch_;

  friend class SweepRunner;
};

// The same measurements for many d_k with one config. Points come one at a time from next();
// raw QKᵀ and GVᵀ are extended from the previous d_k when it is smaller (the accumulation order
// makes this exact), so a point equals run() at that d_k bit for bit. It has its own buffers, so
// runs may interleave with a sweep in progress.
class SweepRunner {
 public:
  SweepRunner(const Config& c, std::vector<int> dks);
  bool done() const { return next_ >= dks_.size(); }
  std::size_t size() const { return dks_.size(); }
  int nextDk() const { return dks_[next_]; }
  RunStats next();

 private:
  AttentionEngine engine_;
  Config config_;
  std::vector<int> dks_;
  std::size_t next_ = 0;
  int prefix_ = 0;
};

}  // namespace attnscale
