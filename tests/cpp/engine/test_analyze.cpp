// AnalyzeEngine against its double reference on generated heads with known properties, and
// against `run` on run's own samples (bit for bit).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "engine/analyze.hpp"
#include "engine/attention_engine.hpp"
#include "reference/reference_analyze.hpp"

namespace attnscale {
namespace {

struct Layer {
  int seqLen, dk, heads, kvHeads;
  std::vector<float> q, k, v;
  LayerInputs inputs() const {
    return {seqLen, dk, heads, kvHeads, q.data(), k.data(), v.empty() ? nullptr : v.data()};
  }
};

// q ~ N(mean, std²) i.i.d.; k of the same token shares `rho` of q's standardized value.
Layer gaussian_layer(int T, int d, int heads, int kvHeads, double mean, double std, double rho,
                     unsigned seed) {
  Layer L{T, d, heads, kvHeads, {}, {}, {}};
  std::mt19937 rng(seed);
  std::normal_distribution<double> normal;
  const std::size_t n = static_cast<std::size_t>(T) * d;
  std::vector<double> z(n * heads);
  for (double& x : z) x = normal(rng);
  for (double x : z) L.q.push_back(static_cast<float>(mean + std * x));
  for (int g = 0; g < kvHeads; ++g)  // key head g: correlated with query head g·(heads/kvHeads)
    for (std::size_t i = 0; i < n; ++i) {
      const double zq = z[g * (heads / kvHeads) * n + i];
      const double zk = rho * zq + std::sqrt(1 - rho * rho) * normal(rng);
      L.k.push_back(static_cast<float>(mean + std * zk));
    }
  return L;
}

Config config_for(const Layer& L, ScaleMode scale = ScaleMode::sqrt) {
  Config c;
  c.seqLen = L.seqLen;
  c.dk = L.dk;
  c.scaleMode = scale;
  c.blockSize = std::min(c.blockSize, L.seqLen);
  return c;
}

// The fields analyze reports: run's, less the theory of σ (it describes sampling) and the
// backward's (no upstream gradient), and the online difference (no V).
bool reported(const std::string& name) {
  return name != "rawLogitStdTheory" && name != "gradNormQ" && name != "gradNormK" &&
         name != "onlineMaxAbsDiff";
}

// Tolerances as in reference_compare.hpp: fp32 products over ≤ 64 terms against double, so 2e-5
// relative on O(1) statistics (1e-4 for the median, which can fall between two rows); in a low
// precision a value near a rounding boundary may round to the neighbour, so 1e-3 there.
void expect_matches_reference(const Config& c, const Layer& L) {
  AnalyzeEngine engine;
  const std::vector<HeadReport> got = engine.analyze(c, L.inputs(), true);
  const std::vector<ReferenceHead> want = reference_analyze(c, L.inputs());
  ASSERT_EQ(got.size(), want.size());
  const double base = c.format.precision == Precision::fp32 ? 2e-5 : 1e-3;
  auto near = [](double a, double b, double rel) {
    return std::fabs(a - b) <= rel * std::max(1.0, std::fabs(b));
  };
  for (std::size_t h = 0; h < got.size(); ++h) {
    const HeadReport& g = got[h];
    const ReferenceHead& w = want[h];
    EXPECT_EQ(g.kvHead, w.kvHead);
    EXPECT_TRUE(near(g.q.mean, w.qMean, 1e-9)) << "qMean head " << h;
    EXPECT_TRUE(near(g.q.std, w.qStd, 1e-9)) << "qStd head " << h;
    EXPECT_TRUE(near(g.k.mean, w.kMean, 1e-9)) << "kMean head " << h;
    EXPECT_TRUE(near(g.k.std, w.kStd, 1e-9)) << "kStd head " << h;
    EXPECT_TRUE(near(g.iidRawLogitStd, w.iidRawLogitStd, 1e-9)) << "iid σ head " << h;
    for (const auto& f : scalar_fields()) {
      if (!reported(f.name)) continue;
      const double a = f.get(g.result.stats), b = f.get(w.result.stats);
      if (std::isnan(b)) {
        EXPECT_TRUE(std::isnan(a)) << f.name << " head " << h;
        continue;
      }
      const double rel = std::string(f.name) == "jacobianNormMedian" ? std::max(base, 1e-4) : base;
      EXPECT_TRUE(near(a, b, rel))
          << f.name << " head " << h << ": engine " << a << " vs reference " << b;
    }
    const NonFiniteCounts &gn = g.result.stats.nonFinite, &wn = w.result.stats.nonFinite;
    EXPECT_EQ(gn.logits, wn.logits) << "head " << h;
    EXPECT_EQ(gn.exp, wn.exp) << "head " << h;
    EXPECT_EQ(gn.weights, wn.weights) << "head " << h;
    EXPECT_EQ(g.result.stats.firstNonFiniteStage, w.result.stats.firstNonFiniteStage);
  }
}

TEST(Analyze, IndependentHeadsMatchTheReferenceAndTheIidSigma) {
  const Layer L = gaussian_layer(48, 32, 3, 3, 0.0, 1.0, 0.0, 1);
  expect_matches_reference(config_for(L), L);
  AnalyzeEngine engine;
  for (const HeadReport& r : engine.analyze(config_for(L), L.inputs(), false)) {
    // 2304 logits: the σ estimate is within a few % of √d_k; 10 % leaves room.
    EXPECT_NEAR(r.result.stats.rawLogitStd / r.iidRawLogitStd, 1.0, 0.1);
    EXPECT_NEAR(r.iidRawLogitStd, std::sqrt(32.0), 0.1 * std::sqrt(32.0));
  }
}

TEST(Analyze, CorrelatedQueriesAndKeysMatchTheReference) {
  const Layer L = gaussian_layer(40, 24, 2, 2, 0.0, 1.0, 0.9, 2);
  for (ScaleMode s : {ScaleMode::none, ScaleMode::sqrt, ScaleMode::linear})
    expect_matches_reference(config_for(L, s), L);
  Config c = config_for(L);  // and with the page's other logit schemes
  c.causal = true;
  c.qkNorm = QkNorm::rms;
  c.softcap = 5;
  c.lengthScale = 0.5;
  expect_matches_reference(c, L);
}

TEST(Analyze, AShiftedMeanMatchesTheReferenceAndItsIidSigma) {
  const Layer L = gaussian_layer(48, 32, 2, 2, 0.5, 1.0, 0.0, 3);
  expect_matches_reference(config_for(L), L);
  AnalyzeEngine engine;
  for (const HeadReport& r : engine.analyze(config_for(L), L.inputs(), false)) {
    // μ = 0.5, σ = 1: E[q·k] = d μ² = 8 and σ(q·k) = √(d((σ²+μ²)² − μ⁴)) = √48.
    EXPECT_NEAR(r.result.stats.rawLogitMean, 8.0, 1.0);
    EXPECT_NEAR(r.iidRawLogitStd, std::sqrt(48.0), 0.1 * std::sqrt(48.0));
    EXPECT_NEAR(r.result.stats.rawLogitStd / r.iidRawLogitStd, 1.0, 0.1);
  }
}

TEST(Analyze, ALargeScaleOverflowsFp16AsInTheReference) {
  const Layer L = gaussian_layer(32, 16, 2, 2, 0.0, 40.0, 0.0, 4);
  Config c = config_for(L, ScaleMode::none);
  c.format.precision = Precision::fp16;
  c.subtractMax = false;
  expect_matches_reference(c, L);
  AnalyzeEngine engine;
  const auto reports = engine.analyze(c, L.inputs(), false);
  for (const HeadReport& r : reports) {
    EXPECT_GT(r.result.stats.nonFinite.exp, 0u);
    EXPECT_EQ(r.result.stats.firstNonFiniteStage, Stage::exp);
  }
  c.subtractMax = true;  // the same logits with the max subtracted stay finite
  for (const HeadReport& r : engine.analyze(c, L.inputs(), false))
    EXPECT_EQ(r.result.stats.firstNonFiniteStage, Stage::none);
}

TEST(Analyze, GroupedQueryHeadsReadTheirKeyHead) {
  const Layer L = gaussian_layer(32, 16, 4, 2, 0.0, 1.0, 0.5, 5);
  const Config c = config_for(L);
  expect_matches_reference(c, L);
  AnalyzeEngine engine;
  const auto all = engine.analyze(c, L.inputs(), false);
  const std::size_t n = static_cast<std::size_t>(L.seqLen) * L.dk;
  for (int h = 0; h < 4; ++h) {
    EXPECT_EQ(all[h].kvHead, h / 2);
    Layer one{L.seqLen, L.dk, 1, 1, {}, {}, {}};
    one.q.assign(L.q.begin() + h * n, L.q.begin() + (h + 1) * n);
    one.k.assign(L.k.begin() + (h / 2) * n, L.k.begin() + (h / 2 + 1) * n);
    const auto alone = engine.analyze(c, one.inputs(), false).front();
    for (const auto& f : scalar_fields()) {
      const double a = f.get(all[h].result.stats), b = f.get(alone.result.stats);
      EXPECT_TRUE(std::memcmp(&a, &b, sizeof a) == 0) << f.name << " head " << h;
    }
  }
}

TEST(Analyze, RunsOwnSamplesGiveRunsForwardFieldsBitForBit) {
  for (Precision p : {Precision::fp32, Precision::bf16}) {
    Config c;
    c.seqLen = 64;
    c.dk = 48;
    c.format.precision = p;
    c.correlation = 0.3;
    const ReferenceInputs in = reference_inputs(c);  // the samples run draws, as floats
    Layer L{c.seqLen, c.dk, 1, 1, {}, {}, {}};
    for (double x : in.q) L.q.push_back(static_cast<float>(x));
    for (double x : in.k) L.k.push_back(static_cast<float>(x));
    AttentionEngine run;
    const RunResult want = run.run(c);
    AnalyzeEngine engine;
    const HeadReport got = engine.analyze(c, L.inputs(), true).front();
    for (const auto& f : scalar_fields()) {
      if (!reported(f.name)) continue;
      const double a = f.get(got.result.stats), b = f.get(want.stats);
      EXPECT_TRUE(std::memcmp(&a, &b, sizeof a) == 0) << f.name << ": " << a << " vs " << b;
    }
    EXPECT_EQ(got.result.attention, want.attention);
    EXPECT_EQ(got.result.rowEntropy, want.rowEntropy);
    EXPECT_EQ(got.result.histogram.counts, want.histogram.counts);
  }
}

TEST(Analyze, NaNInTheDataIsCountedNotFatal) {
  Layer L = gaussian_layer(16, 8, 1, 1, 0.0, 1.0, 0.0, 6);
  L.q[3 * 8 + 2] = std::numeric_limits<float>::quiet_NaN();  // token 3 of the query
  AnalyzeEngine engine;
  const HeadReport r = engine.analyze(config_for(L), L.inputs(), false).front();
  EXPECT_EQ(r.q.nonFinite, 1u);
  EXPECT_TRUE(std::isfinite(r.q.mean) && std::isfinite(r.iidRawLogitStd));
  EXPECT_EQ(r.result.stats.nonFinite.logits, 16u);  // that query's row of logits
  EXPECT_EQ(r.result.stats.firstNonFiniteStage, Stage::logits);
  EXPECT_EQ(r.result.stats.nonFiniteRows, 1.0);
  expect_matches_reference(config_for(L), L);
}

TEST(Analyze, GivenValuesAreCheckedForOverflowInTheOutput) {
  Layer L = gaussian_layer(16, 8, 1, 1, 0.0, 1.0, 0.0, 7);
  L.v.assign(L.k.size(), 1.0f);
  L.v[5] = std::numeric_limits<float>::infinity();  // token 0, component 5: every row's O_i5 = inf
  Config c = config_for(L);
  AnalyzeEngine engine;
  const HeadReport r = engine.analyze(c, L.inputs(), false).front();
  EXPECT_GT(r.result.stats.nonFinite.output, 0u);
  EXPECT_EQ(r.result.stats.firstNonFiniteStage, Stage::output);
}

// sinkWeight is the mean weight on key 0, causal or not; a key 0 aligned with every query takes
// most of it, a head of i.i.d. components about 1/T of it.
TEST(Analyze, SinkWeightIsTheMeanWeightOnKeyZero) {
  for (bool causal : {false, true}) {
    Layer L = gaussian_layer(32, 16, 2, 1, 0.0, 1.0, 0.0, 8);
    // head 1: every query has component 0 at 8, and key 0 is 8·e_0 (logit 16 after 1/√16)
    for (int t = 0; t < 32; ++t) L.q[(32 + t) * 16] = 8.0f;
    for (int i = 0; i < 16; ++i) L.k[i] = i == 0 ? 8.0f : 0.0f;
    Config c = config_for(L);
    c.causal = causal;
    AnalyzeEngine engine;
    const std::vector<HeadReport> r = engine.analyze(c, L.inputs(), true);
    for (const HeadReport& head : r) {
      double sum = 0;
      for (int i = 0; i < 32; ++i) sum += head.result.attention[static_cast<std::size_t>(i) * 32];
      EXPECT_EQ(head.sinkWeight, sum / 32) << head.head << " causal " << causal;
    }
    EXPECT_GT(r[1].sinkWeight, 0.99) << causal;
    EXPECT_LT(r[0].sinkWeight, causal ? 0.3 : 0.15) << causal;
  }
}

}  // namespace
}  // namespace attnscale
