// The measurement engine: samples Q, K, V and an upstream gradient G, runs attention forward and
// backward with the configured scaling, precision and softmax, and summarises what happened.
// Work is done by PointJob (engine/point_job/point_job.hpp) in small steps over a Workspace of
// reused buffers (no allocation per run once warm).
#pragma once

#include <vector>

#include "config/config.hpp"
#include "engine/point_job/point_job.hpp"
#include "engine/run_result.hpp"
#include "engine/workspace.hpp"

namespace attnscale {

class AttentionEngine {
 public:
  // `c` must be valid (parse_config / validate_config).
  RunResult run(const Config& c);
  // The same measurement without the histograms, weights and per-row arrays (a sweep point).
  RunStats stats(const Config& c);
  // stats() without the backward: gradNormQ and gradNormK NaN, every other field the same.
  RunStats forward_stats(const Config& c);

  // run() in two calls, so that what needs only the forward can be shown first: run_forward's
  // result is run's with gradNormQ and gradNormK NaN, and run_backward goes on with the same job
  // to run's gradient norms. Up to T·d_k = kSplitFloats; beyond it run_forward is run (nothing
  // pending), as the saved blocks of V would cost more memory than the split saves time.
  static constexpr std::size_t kSplitFloats = std::size_t{1} << 21;
  RunResult run_forward(const Config& c);
  bool backward_pending() const { return pending_; }
  // Works on the pending backward until it is done (true: `out` holds the complete statistics)
  // or `deadline` passes (false). Any other call of this engine drops a pending backward.
  bool run_backward(Clock::time_point deadline, RunStats& out);

 private:
  RunResult measure(const Config& c, bool keepMatrices, bool backward = true);
  void release_if_large();

  Workspace workspace_;
  std::vector<Config> configs_;
  PointJob job_;
  bool pending_ = false;
};

// The same measurements for many d_k and one or more scalings. Q, K, V, G are sampled once and
// the fp32 products QKᵀ and GVᵀ are extended from the previous d_k when it is smaller (the
// accumulation order makes this exact); only the scale-dependent work is done per scaling. So each
// scaling's point equals run() with that scale at that d_k, bit for bit. advance() works in steps
// of a few milliseconds and can stop between any two; it has its own buffers, so runs may
// interleave with a sweep in progress.
class SweepJob {
 public:
  // configs: valid, equal in every field but the scale (their dk is ignored); dks non-empty.
  SweepJob(std::vector<Config> configs, std::vector<int> dks);
  bool done() const { return next_ >= dks_.size(); }
  std::size_t size() const { return dks_.size(); }
  std::size_t scales() const { return configs_.size(); }
  int nextDk() const { return dks_[next_]; }
  // Works on the next point until it completes (true: its results are in point()) or `deadline`
  // passes (false: the work so far is kept for the next call). False when done().
  bool advance(Clock::time_point deadline);
  // The last completed point: one result per config (statistics and per-row arrays).
  const std::vector<RunResult>& point() { return job_.results(); }
  // The next point whole: one RunStats per config.
  std::vector<RunStats> next();
  // Time spent per phase so far (a profile for the benchmarks).
  const PhaseTimes& phase_ms() const { return job_.phase_ms(); }

 private:
  Workspace workspace_;
  std::vector<Config> configs_;
  std::vector<int> dks_;
  PointJob job_;
  std::size_t next_ = 0;
  bool planned_ = false;
};

// One scaling's sweep, a point at a time.
class SweepRunner {
 public:
  SweepRunner(const Config& c, std::vector<int> dks) : job_({c}, std::move(dks)) {}
  bool done() const { return job_.done(); }
  std::size_t size() const { return job_.size(); }
  int nextDk() const { return job_.nextDk(); }
  RunStats next() { return job_.next().front(); }

 private:
  SweepJob job_;
};

}  // namespace attnscale
