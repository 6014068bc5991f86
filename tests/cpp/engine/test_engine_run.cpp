// The SIMD engine's run and sweep against the double-precision reference, finite differences,
// determinism and the config table.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>

#include "config/config.hpp"
#include "engine/attention_engine.hpp"
#include "field_values.hpp"
#include "reference/reference_run.hpp"
#include "reference_compare.hpp"

namespace attnscale {
namespace {

TEST(EngineRun, MatchesDoubleReferenceAcrossScalingsAndMasks) {
  for (ScaleMode s : {ScaleMode::none, ScaleMode::sqrt, ScaleMode::linear}) {
    expect_close_to_reference(make(16, 24, s));
    Config c = make(37, 19, s);
    c.causal = true;
    expect_close_to_reference(c);
  }
  Config custom = make(8, 12, ScaleMode::custom);
  custom.customScale = 0.7;
  expect_close_to_reference(custom);
}

TEST(EngineRun, MatchesReferenceWhenTheAssumptionIsBroken) {
  Config c = make(24, 20);
  c.mean = 0.4;
  c.std = 1.7;
  c.correlation = -0.6;
  expect_close_to_reference(c);
  c.subtractMax = false;
  expect_close_to_reference(c);
}

// (Tolerance: reference_compare.hpp.)
TEST(EngineRun, ReferenceGradientsMatchFiniteDifferences) {
  for (ScaleMode s : {ScaleMode::none, ScaleMode::sqrt, ScaleMode::linear}) {
    Config c = make(6, 7, s);
    c.causal = s == ScaleMode::linear;
    expect_reference_gradients_match_finite_differences(c, 5);
  }
}

TEST(EngineRun, EngineGradientsMatchReferenceGradients) {
  // gradNormQ/K are compared in MatchesDoubleReference; this checks a larger shape too.
  expect_close_to_reference(make(96, 48, ScaleMode::none));
}

// d_k >= T takes the Gram-matrix form of the gradient norms (‖dS K‖² = ⟨KKᵀ, dSᵀdS⟩): same
// 2e-5 against the double reference, including a shared mean (|μ| = 2σ: KKᵀ then has a large
// rank-one part that dS's zero row sums cancel), causal masks and d_k = 16·T.
TEST(EngineRun, GramGradientNormsMatchReference) {
  Config c = make(64, 64, ScaleMode::sqrt);
  expect_close_to_reference(c);
  c.mean = 2;
  c.correlation = 0.5;
  expect_close_to_reference(c);
  c = make(512, 32, ScaleMode::none);
  c.causal = true;
  expect_close_to_reference(c);
  c.scaleMode = ScaleMode::linear;
  c.mean = -1;
  expect_close_to_reference(c);
}

TEST(EngineRun, DeterministicForASeed) {
  AttentionEngine a, b;
  Config c = make(40, 33);
  const RunResult r1 = a.run(c), r2 = b.run(c), r3 = a.run(c);
  EXPECT_EQ(r1.attention, r2.attention);
  EXPECT_EQ(r1.attention, r3.attention);
  EXPECT_TRUE(same_double(r1.stats.gradNormQ, r2.stats.gradNormQ));
  c.seed = 2;
  EXPECT_NE(a.run(c).attention, r1.attention);
}

TEST(EngineSweep, EachPointEqualsRunAtThatDkBitForBit) {
  Config c = make(1, 40, ScaleMode::none);
  c.causal = true;
  c.mean = 0.2;
  const std::vector<int> dks = {1, 2, 4, 8, 16, 32, 64, 100, 128, 3};
  SweepRunner sweep(c, dks);
  AttentionEngine engine;
  for (int d : dks) {
    const RunStats point = sweep.next();
    Config one = c;
    one.dk = d;
    const RunStats single = engine.run(one).stats;
    for (const auto& f : scalar_fields())
      EXPECT_TRUE(same_double(f.get(point), f.get(single))) << f.name << " at dk=" << d;
  }
  EXPECT_TRUE(sweep.done());
}

// forward_stats (the precision panel's variants) is run without the backward: the same bits in
// every other field, on both sides of the Gram switch (d_k >= T) and with online softmax, fp16
// and a soft-cap; gradNormQ and gradNormK are NaN.
TEST(EngineRun, ForwardStatsAreRunWithoutTheGradients) {
  AttentionEngine engine;
  for (int d : {8, 40, 64}) {
    Config c = make(d, 40, d == 40 ? ScaleMode::none : ScaleMode::sqrt);
    c.causal = d == 8;
    c.softmax = d == 64 ? SoftmaxMode::online : SoftmaxMode::naive;
    if (d == 40) {
      c.format.precision = Precision::fp16;
      c.softcap = 20;
    }
    const RunStats full = engine.run(c).stats;
    const RunStats forward = engine.forward_stats(c);
    for (const auto& f : scalar_fields()) {
      const std::string name = f.name;
      if (name == "gradNormQ" || name == "gradNormK")
        EXPECT_TRUE(std::isnan(f.get(forward))) << name;
      else
        EXPECT_TRUE(same_double(f.get(forward), f.get(full))) << name << " at dk=" << d;
    }
  }
}

TEST(EngineRun, HeadlineNumbersOfTheSeed) {
  // Monte Carlo over 256² logits of one seed: σ estimates within 3 % (std error ≈ 1/√(2·256) for
  // row-correlated entries, ~4.4 % worst case per seed; 3 % holds for this fixed seed and the
  // theory line is checked separately below).
  AttentionEngine engine;
  Config c = make(128, 256, ScaleMode::none);
  const RunStats none = engine.run(c).stats;
  EXPECT_NEAR(none.rawLogitStd, std::sqrt(128.0), 0.03 * std::sqrt(128.0));
  EXPECT_NEAR(none.rawLogitStdTheory, std::sqrt(128.0), 1e-9);
  c.scaleMode = ScaleMode::sqrt;
  EXPECT_NEAR(engine.run(c).stats.logitStd, 1.0, 0.03);
  c.scaleMode = ScaleMode::linear;
  const RunStats linear = engine.run(c).stats;
  EXPECT_NEAR(linear.logitStd, 1.0 / std::sqrt(128.0), 0.03 / std::sqrt(128.0));
  EXPECT_LT(std::log(256.0) - linear.entropy, 0.01);
  EXPECT_GT(std::log(256.0) - linear.entropy, 0.0);
}

TEST(EngineRun, TheoryLineFollowsBrokenAssumptions) {
  AttentionEngine engine;
  Config c = make(64, 256, ScaleMode::none);
  c.mean = 0.5;
  c.std = 1.5;
  c.correlation = 0.7;
  const RunStats s = engine.run(c).stats;
  // 5 %: the mean shared by a row's entries adds sampling noise beyond the i.i.d. case.
  EXPECT_NEAR(s.rawLogitStd, s.rawLogitStdTheory, 0.05 * s.rawLogitStdTheory);
}

TEST(EngineConfig, ErrorsNameTheFieldAndRange) {
  Config c;
  const auto number = number_field;
  const auto text = text_field;
  auto e = parse_config({{"dk", number(0)}}, c);
  EXPECT_EQ(e.kind, "RangeError");
  EXPECT_EQ(e.message, "dk must be an integer in [1, 4096], got 0");
  e = parse_config({{"dk", text("8")}}, c);
  EXPECT_EQ(e.kind, "TypeError");
  e = parse_config({{"seqLen", number(2.5)}}, c);
  EXPECT_EQ(e.message, "seqLen must be an integer in [2, 2048], got 2.5");
  e = parse_config({{"correlation", number(1.5)}}, c);
  EXPECT_EQ(e.message, "correlation must be a finite number in [-1, 1], got 1.5");
  e = parse_config({{"std", number(0)}}, c);
  EXPECT_EQ(e.kind, "RangeError");
  e = parse_config({{"seqLen", number(16)}, {"blockSize", number(17)}}, c);
  EXPECT_EQ(e.message, "blockSize must be an integer in [1, 16], got 17");
  e = parse_config({{"bogus", number(1)}}, c);
  EXPECT_EQ(e.kind, "TypeError");
  e = parse_config({{"precision", text("fp64")}}, c);
  EXPECT_EQ(e.kind, "RangeError");
  e = parse_config({{"seqLen", number(16)}}, c);
  EXPECT_TRUE(e.ok());
  EXPECT_EQ(c.blockSize, 16);  // the default shrinks to T
  e = parse_config({{"scale", number(0.25)}}, c);
  EXPECT_TRUE(e.ok());
  EXPECT_EQ(c.scaleMode, ScaleMode::custom);
}

}  // namespace
}  // namespace attnscale
