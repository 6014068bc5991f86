// QK-norm, length scaling and soft-capping in the engine: against the double
// reference, finite differences, the sweeps (bit for bit) and the properties each scheme promises.
#include <gtest/gtest.h>

#include <cmath>

#include "config/config.hpp"
#include "engine/attention_engine.hpp"
#include "field_values.hpp"
#include "reference/reference_run.hpp"
#include "reference_compare.hpp"

namespace attnscale {
namespace {

Config scheme(int dk, int T, ScaleMode scale, QkNorm norm, double softcap, double lengthScale) {
  Config c = make(dk, T, scale);
  c.qkNorm = norm;
  c.softcap = softcap;
  c.lengthScale = lengthScale;
  return c;
}

// The same tolerances as the plain run (reference_compare.hpp): normalizing a row in fp32 adds
// ~d·6e-8 relative to q̂, far inside 2e-5; tanh_fast is within 2 ulp of tanh.
TEST(LogitSchemes, MatchDoubleReference) {
  for (QkNorm norm : {QkNorm::none, QkNorm::rms, QkNorm::layer})
    for (double cap : {0.0, 5.0})
      for (double len : {0.0, 0.43}) {
        expect_close_to_reference(scheme(16, 24, ScaleMode::sqrt, norm, cap, len));
        Config c = scheme(37, 19, ScaleMode::none, norm, cap, len);
        c.causal = true;
        c.mean = 0.6;
        c.std = 1.8;
        c.correlation = 0.5;
        expect_close_to_reference(c);
      }
  // d_k >= T (no Gram path with QK-norm: its backward needs dQ̂ row by row), and fp16.
  expect_close_to_reference(scheme(96, 24, ScaleMode::none, QkNorm::layer, 50, 0));
  expect_close_to_reference(scheme(96, 24, ScaleMode::linear, QkNorm::none, 2, 0.43));
}

TEST(LogitSchemes, LowPrecisionRoundsLikeTheReference) {
  // Rounding to fp16/bf16 happens at the same stages in both (q̂ and k̂ are rounded, then q̂·k̂,
  // then the final logit); the fp32 arithmetic between them makes ties land differently now and
  // then, so statistics get the plain run's tolerance only where no value sits on a boundary: the
  // test checks that σ and entropy agree to 2e-3 relative (a few fp16 ulps).
  for (Precision p : {Precision::fp16, Precision::bf16}) {
    Config c = scheme(32, 16, ScaleMode::sqrt, QkNorm::rms, 5, 0.43);
    c.format.precision = p;
    AttentionEngine engine;
    const RunStats got = engine.run(c).stats;
    const RunStats want = reference_run(c, reference_inputs(c)).stats;
    EXPECT_NEAR(got.logitStd, want.logitStd, 2e-3 * want.logitStd);
    EXPECT_NEAR(got.normLogitStd, want.normLogitStd, 2e-3 * want.normLogitStd);
    EXPECT_NEAR(got.entropy, want.entropy, 2e-3 * want.entropy);
  }
}

// Through the normalization, the length factor and tanh (tolerance: reference_compare.hpp).
TEST(LogitSchemes, ReferenceGradientsMatchFiniteDifferences) {
  for (QkNorm norm : {QkNorm::rms, QkNorm::layer, QkNorm::none}) {
    Config c = scheme(6, 7, ScaleMode::none, norm, norm == QkNorm::none ? 1.5 : 0.8, 0.43);
    c.causal = norm == QkNorm::layer;
    c.mean = 0.3;
    expect_reference_gradients_match_finite_differences(c, 4);
  }
}

TEST(LogitSchemes, SweepPointsEqualRunBitForBit) {
  const std::vector<int> dks = {1, 4, 16, 40, 64, 100, 8};
  for (QkNorm norm : {QkNorm::rms, QkNorm::layer}) {
    Config c = scheme(1, 40, ScaleMode::sqrt, norm, 5, 0.43);
    c.causal = norm == QkNorm::rms;
    c.mean = 1;
    std::vector<Config> configs = {c, c, c};
    configs[1].scaleMode = ScaleMode::none;
    configs[2].scaleMode = ScaleMode::linear;
    SweepJob job(configs, dks);
    AttentionEngine engine;
    for (int d : dks) {
      const std::vector<RunStats> point = job.next();
      for (std::size_t s = 0; s < configs.size(); ++s) {
        Config one = configs[s];
        one.dk = d;
        const RunStats single = engine.run(one).stats;
        for (const auto& f : scalar_fields())
          EXPECT_TRUE(same_double(f.get(point[s]), f.get(single)))
              << f.name << " at dk=" << d << " scale " << s << " " << qk_norm_name(norm);
      }
    }
  }
}

TEST(LogitSchemes, DefaultsLeaveTheRunUnchanged) {
  // lengthScale 0 and softcap 0 are off, not "multiply by 0": same bits as a config without them.
  AttentionEngine engine;
  Config c = make(48, 32, ScaleMode::none);
  const RunResult plain = engine.run(c);
  EXPECT_TRUE(same_double(plain.stats.normLogitStd, plain.stats.rawLogitStd));
  c.qkNorm = QkNorm::none;
  c.softcap = 0;
  c.lengthScale = 0;
  EXPECT_EQ(engine.run(c).attention, plain.attention);
}

TEST(LogitSchemes, WhatEachSchemePromises) {
  AttentionEngine engine;
  // Layer norm removes a shared mean: q̂·k̂ has mean ≈ 0 and σ ≈ √d_k whatever the mean (3 %: one
  // seed, as in HeadlineNumbersOfTheSeed). rms divides by √(μ² + σ²) only: the components keep a
  // mean μ' = μ/√(μ² + σ²), so q̂·k̂ keeps a mean d·μ'² (here d/5) and σ² = d·σ'²(σ'² + 2μ'²).
  Config c = make(128, 256, ScaleMode::sqrt);
  c.mean = 1;
  c.std = 2;
  c.qkNorm = QkNorm::layer;
  const RunStats layer = engine.run(c).stats;
  EXPECT_NEAR(layer.normLogitStd, std::sqrt(128.0), 0.03 * std::sqrt(128.0));
  EXPECT_NEAR(layer.logitStd, 1.0, 0.03);
  EXPECT_NEAR(layer.logitMean, 0.0, 0.03);
  c.qkNorm = QkNorm::rms;
  const RunStats rms = engine.run(c).stats;
  EXPECT_NEAR(rms.logitMean, std::sqrt(128.0) / 5, 0.05 * std::sqrt(128.0) / 5);
  EXPECT_NEAR(rms.logitStd, std::sqrt(0.8 * 1.2), 0.05);
  // Soft-capping keeps every logit inside (−c, c).
  c = make(128, 128, ScaleMode::none);
  c.softcap = 5;
  const RunStats capped = engine.run(c).stats;
  EXPECT_LE(capped.logitMax, 5.0);
  EXPECT_GE(capped.logitMin, -5.0);
  EXPECT_GT(capped.logitMax, 4.9);
  // The length factor s·ln T multiplies every logit of a non-causal row: σ scales by it.
  c = make(64, 128, ScaleMode::sqrt);
  const double plainStd = engine.run(c).stats.logitStd;
  c.lengthScale = 0.43;
  const double scaledStd = engine.run(c).stats.logitStd;
  EXPECT_NEAR(scaledStd / plainStd, 0.43 * std::log(128.0), 1e-5);
}

// Exact natively (a regression guard); tests/js/engine/logit-schemes.test.js asserts the same
// numbers for both wasm builds within 1e-6 (products sum in lanes of each build's vector width).
TEST(LogitSchemes, GoldenValuesSharedWithWasm) {
  struct Golden {
    Config c;
    double normLogitStd, logitStd, entropy, gradNormQ, gradNormK;
  };
  auto cfg = [](int dk, int T, ScaleMode s, QkNorm n, double cap, double len, bool causal,
                double mean, double std, double corr, Precision p) {
    Config c = scheme(dk, T, s, n, cap, len);
    c.causal = causal;
    c.mean = mean;
    c.std = std;
    c.correlation = corr;
    c.format.precision = p;
    return c;
  };
  const Golden golden[] = {
      {cfg(64, 48, ScaleMode::sqrt, QkNorm::rms, 0, 0, false, 1, 2, 0, Precision::fp32),
       7.513377381607186, 0.93917217270089826, 3.5206734339396157, 0.075643913686936556,
       0.081695838624787145},
      {cfg(96, 40, ScaleMode::none, QkNorm::layer, 50, 0.43, true, 0.5, 1, 0.5, Precision::fp32),
       14.337421025653807, 15.413946224865974, 0.0010784021284487848, 0.0056527852699519519,
       0.0059779992856267596},
      {cfg(32, 64, ScaleMode::none, QkNorm::none, 5, 0, false, 0, 1, 0, Precision::fp16),
       5.7900084727806727, 3.3415709151052613, 3.0233455821871758, 0.2987140018526786,
       0.29000797945567985},
      {cfg(16, 33, ScaleMode::linear, QkNorm::rms, 2, 0.43, true, 0, 1, 0, Precision::bf16),
       4.0743323041412687, 0.32379869648781284, 2.5392157868905501, 0.070803430243943699,
       0.06310724325945781},
  };
  AttentionEngine engine;
  for (const Golden& g : golden) {
    const RunStats s = engine.run(g.c).stats;
    const std::pair<double, double> checks[] = {{s.normLogitStd, g.normLogitStd},
                                                {s.logitStd, g.logitStd},
                                                {s.entropy, g.entropy},
                                                {s.gradNormQ, g.gradNormQ},
                                                {s.gradNormK, g.gradNormK}};
    for (const auto& [got, want] : checks)
      EXPECT_TRUE(same_double(got, want)) << got << " vs " << want;
  }
}

TEST(LogitSchemes, ConfigFieldsAreCheckedAndPrinted) {
  Config c;
  const auto number = number_field;
  EXPECT_EQ(parse_config({{"qkNorm", text_field("batch")}}, c).message,
            "qkNorm must be one of 'none', 'rms', 'layer', got \"batch\"");
  EXPECT_EQ(parse_config({{"softcap", number(-1)}}, c).message,
            "softcap must be a finite number in [0, 1000], got -1");
  EXPECT_EQ(parse_config({{"lengthScale", number(5)}}, c).message,
            "lengthScale must be a finite number in [0, 4], got 5");
  ASSERT_TRUE(parse_config({{"qkNorm", text_field("layer")}, {"softcap", number(50)}}, c).ok());
  EXPECT_EQ(c.qkNorm, QkNorm::layer);
  const std::string json = config_to_json(c);
  EXPECT_NE(json.find("\"qkNorm\":\"layer\",\"lengthScale\":0,\"softcap\":50"), std::string::npos)
      << json;
}

}  // namespace
}  // namespace attnscale
