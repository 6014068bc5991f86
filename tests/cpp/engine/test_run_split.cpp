// run in two calls (run_forward, then run_backward) against run in one: the same bits in every
// field, whichever settings, block counts and gradient paths (the Gram products from d_k >= T).
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "config/config.hpp"
#include "engine/attention_engine.hpp"
#include "field_values.hpp"
#include "reference_compare.hpp"

namespace attnscale {
namespace {

void expect_same_histogram(const Histogram& a, const Histogram& b, const char* what) {
  ASSERT_EQ(a.edges.size(), b.edges.size()) << what;
  for (std::size_t i = 0; i < a.edges.size(); ++i) EXPECT_TRUE(same_double(a.edges[i], b.edges[i]));
  EXPECT_EQ(a.counts, b.counts) << what;
}

// Every scalar of `split` equals `full`'s, except the gradient norms when `forwardOnly` (NaN).
void expect_same_stats(const RunStats& split, const RunStats& full, bool forwardOnly,
                       const std::string& where) {
  for (const auto& f : scalar_fields()) {
    const std::string name = f.name;
    if (forwardOnly && (name == "gradNormQ" || name == "gradNormK"))
      EXPECT_TRUE(std::isnan(f.get(split))) << name << where;
    else
      EXPECT_TRUE(same_double(f.get(split), f.get(full))) << name << where;
  }
  EXPECT_EQ(split.nonFinite.output, full.nonFinite.output) << where;
  EXPECT_EQ(split.firstNonFiniteStage, full.firstNonFiniteStage) << where;
}

// Settings on both sides of the Gram switch, with one, two and three column blocks of the
// products (256 columns each), a causal mask, fp16 with a soft-cap, online softmax and QK-norm.
std::vector<Config> split_settings() {
  std::vector<Config> out;
  for (int d : {8, 40, 64, 300, 600}) {
    Config c = make(d, 40, d == 40 ? ScaleMode::none : ScaleMode::sqrt);
    c.causal = d == 8 || d == 600;
    c.softmax = d == 64 ? SoftmaxMode::online : SoftmaxMode::naive;
    if (d == 40) {
      c.format.precision = Precision::fp16;
      c.softcap = 20;
    }
    out.push_back(c);
  }
  Config norm = make(48, 32);
  norm.qkNorm = QkNorm::layer;
  out.push_back(norm);
  Config wide = make(520, 64);  // d_k > T on three blocks
  wide.mean = 0.3;
  out.push_back(wide);
  return out;
}

TEST(RunSplit, ForwardThenBackwardIsRunBitForBit) {
  AttentionEngine engine;
  for (const Config& c : split_settings()) {
    const std::string where = " at dk=" + std::to_string(c.dk) + ", T=" + std::to_string(c.seqLen);
    const RunResult full = engine.run(c);
    const RunResult forward = engine.run_forward(c);
    ASSERT_TRUE(engine.backward_pending()) << where;
    expect_same_stats(forward.stats, full.stats, true, where);
    expect_same_histogram(forward.histogram, full.histogram, "histogram");
    expect_same_histogram(forward.rawHistogram, full.rawHistogram, "rawHistogram");
    EXPECT_EQ(forward.attention, full.attention) << where;
    EXPECT_EQ(forward.rowEntropy, full.rowEntropy) << where;
    EXPECT_EQ(forward.rowMaxWeight, full.rowMaxWeight) << where;
    EXPECT_EQ(forward.rowJacobianNorm, full.rowJacobianNorm) << where;
    RunStats done;
    ASSERT_TRUE(engine.run_backward(Clock::time_point::max(), done)) << where;
    EXPECT_FALSE(engine.backward_pending());
    expect_same_stats(done, full.stats, false, where);
  }
}

// A backward in slices (a deadline already past stops after every step) ends with the same bits.
TEST(RunSplit, BackwardInSlicesEndsTheSame) {
  AttentionEngine engine;
  const Config c = make(300, 96);
  const RunStats full = engine.run(c).stats;
  engine.run_forward(c);
  RunStats done;
  int slices = 1;
  while (!engine.run_backward(Clock::now(), done)) ++slices;
  EXPECT_GT(slices, 2);
  expect_same_stats(done, full, false, " in slices");
}

// Any other call drops the pending backward; nothing is pending without a forward.
TEST(RunSplit, OtherCallsEndThePendingBackward) {
  AttentionEngine engine;
  RunStats out;
  EXPECT_FALSE(engine.run_backward(Clock::time_point::max(), out));
  const Config c = make(32, 48);
  engine.run_forward(c);
  EXPECT_TRUE(engine.backward_pending());
  const RunStats forward = engine.forward_stats(c);
  EXPECT_FALSE(engine.backward_pending());
  EXPECT_FALSE(engine.run_backward(Clock::time_point::max(), out));
  EXPECT_TRUE(std::isnan(forward.gradNormQ));
}

}  // namespace
}  // namespace attnscale
