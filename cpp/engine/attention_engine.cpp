#include "engine/attention_engine.hpp"

#include <algorithm>

namespace attnscale {

namespace {
constexpr std::size_t kKeepBytes = std::size_t{64} << 20;
}  // namespace

RunResult AttentionEngine::run(const Config& c) { return measure(c, true); }

RunStats AttentionEngine::stats(const Config& c) { return measure(c, false).stats; }

RunStats AttentionEngine::forward_stats(const Config& c) { return measure(c, false, false).stats; }

RunResult AttentionEngine::run_forward(const Config& c) {
  if (static_cast<std::size_t>(c.seqLen) * c.dk > kSplitFloats) return run(c);
  pending_ = false;
  workspace_.reset(c.seqLen, c.dk, uses_gram(c.seqLen, c.dk, c.qkNorm));
  configs_.assign(1, c);
  job_.plan(workspace_, configs_, c.dk, true, true, true);
  job_.run_forward();
  RunResult& r = job_.results().front();
  RunResult out;
  out.stats = r.stats;
  out.histogram = std::move(r.histogram);
  out.rawHistogram = std::move(r.rawHistogram);
  out.rowEntropy = std::move(r.rowEntropy);
  out.rowMaxWeight = std::move(r.rowMaxWeight);
  out.rowJacobianNorm = std::move(r.rowJacobianNorm);
  const RawFloats& p = workspace_.p;
  out.attention.assign(p.data(), p.data() + p.capacity());
  pending_ = !job_.done();
  return out;
}

bool AttentionEngine::run_backward(Clock::time_point deadline, RunStats& out) {
  if (!pending_ || !job_.run_until(deadline)) return false;
  pending_ = false;
  out = job_.results().front().stats;
  release_if_large();
  return true;
}

// Buffers above kKeepBytes go back to the allocator, so that a large run and a large sweep one
// after the other in one engine peak at the larger of the two, not their sum (the page's largest
// settings stay within 256 MiB of wasm memory).
void AttentionEngine::release_if_large() {
  if (workspace_.bytes() > kKeepBytes) workspace_ = Workspace{};
}

RunResult AttentionEngine::measure(const Config& c, bool keepMatrices, bool backward) {
  pending_ = false;
  // (The Gram products serve only the backward.)
  workspace_.reset(c.seqLen, c.dk, backward && uses_gram(c.seqLen, c.dk, c.qkNorm));
  configs_.assign(1, c);
  job_.plan(workspace_, configs_, c.dk, keepMatrices, backward);
  job_.run_until(Clock::time_point::max());
  RunResult out = std::move(job_.results().front());
  // Large buffers go back to the allocator (release_if_large); the weights are copied out after
  // the other buffers went (the copy would raise the peak).
  const bool release = workspace_.bytes() > kKeepBytes;
  RawFloats weights;
  if (release) {
    weights = std::move(workspace_.p);
    workspace_ = Workspace{};
  }
  const RawFloats& p = release ? weights : workspace_.p;
  if (keepMatrices) out.attention.assign(p.data(), p.data() + p.capacity());
  return out;
}

SweepJob::SweepJob(std::vector<Config> configs, std::vector<int> dks)
    : configs_(std::move(configs)), dks_(std::move(dks)) {
  const int cols = dks_.empty() ? 1 : *std::max_element(dks_.begin(), dks_.end());
  const int T = configs_.front().seqLen;
  workspace_.reset(T, cols, uses_gram(T, cols, configs_.front().qkNorm));
}

bool SweepJob::advance(Clock::time_point deadline) {
  if (done()) return false;
  if (!planned_) {
    const int d = dks_[next_];
    if (d < workspace_.sampled)
      workspace_.reset(workspace_.seqLen, workspace_.cols, workspace_.gram);
    for (Config& c : configs_) c.dk = d;
    job_.plan(workspace_, configs_, d, false);
    planned_ = true;
  }
  if (!job_.run_until(deadline)) return false;
  planned_ = false;
  ++next_;
  return true;
}

std::vector<RunStats> SweepJob::next() {
  advance(Clock::time_point::max());
  std::vector<RunStats> out;
  for (const RunResult& r : job_.results()) out.push_back(r.stats);
  return out;
}

}  // namespace attnscale
