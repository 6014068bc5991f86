// The trainer's maxLogit, minRowEntropy and entropyFloor (train.hpp): the floor stays under the
// lowest row entropy at every step of every copy, maxLogit and the floor match a double
// recomputation from the parameters and the batch, and the values are golden, shared with wasm.
#include <gtest/gtest.h>

#include <cinttypes>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "config/logit_schemes.hpp"
#include "copy_spec.hpp"
#include "fnv_hash.hpp"
#include "logits_double.hpp"
#include "stats/entropy_bound.hpp"
#include "train/model/model.hpp"
#include "train/train.hpp"

using attnscale::CopySpec;
using attnscale::kTrainMetrics;
using attnscale::Precision;
using attnscale::QkNorm;
using attnscale::ScaleMode;
using attnscale::TrainConfig;
using attnscale::Trainer;
using attnscale::TrainMetric;

namespace {

struct Curves {
  int n = 0;
  std::vector<double> m;
  double at(int copy, TrainMetric k, int s) const {
    return m[(static_cast<std::size_t>(copy) * kTrainMetrics + static_cast<int>(k)) * n + s];
  }
};

Curves run(Trainer& t, int n) {
  Curves r;
  r.n = n;
  r.m.resize(static_cast<std::size_t>(t.copies()) * kTrainMetrics * n);
  t.step(n, nullptr, r.m.data());
  return r;
}

// Every step of every copy: entropyFloor <= minRowEntropy <= entropy <= ln T, maxLogit >= 0.
// The floor bounds the exact entropy of the rounded logits' softmax; the measured entropies are
// of the computed weights (float exp and log, rounded to the format), hence `slack`, and a row
// whose exact entropy is out of float's reach (its small weights flush to 0 below 1.2e-38, the
// large one rounds to 1) measures 0 where the floor may be 1e-150: kFlushed covers that.
constexpr double kFlushed = 1e-30;
void expect_floor_holds(const TrainConfig& cfg, int steps, double slack) {
  Trainer t(cfg);
  ASSERT_EQ(t.error(), "");
  const Curves r = run(t, steps);
  const double lnT = std::log(static_cast<double>(cfg.seqLen));
  double closest = INFINITY;
  for (int c = 0; c < t.copies(); ++c)
    for (int s = 0; s < steps; ++s) {
      const double floor = r.at(c, TrainMetric::entropyFloor, s);
      const double minH = r.at(c, TrainMetric::minRowEntropy, s);
      const std::string where = t.copy_spec(c).name + " step " + std::to_string(s + 1);
      ASSERT_TRUE(std::isfinite(floor) && std::isfinite(minH)) << where;
      EXPECT_LE(floor, minH + slack + kFlushed) << where;
      EXPECT_LE(minH, r.at(c, TrainMetric::entropy, s) + 1e-12) << where;
      EXPECT_LE(floor, lnT) << where;
      EXPECT_GE(r.at(c, TrainMetric::maxLogit, s), 0.0) << where;
      closest = std::min(closest, minH - floor);
    }
  std::printf("[ floor ] closest minRowEntropy - entropyFloor %.3g\n", closest);
}

}  // namespace

TEST(TrainEntropyFloor, BelowTheLowestRowEntropyAtEveryStep) {
  TrainConfig c;  // the defaults: none, sqrt, linear
  expect_floor_holds(c, 150, 0.0);
  c.seqLen = 8, c.dk = 16, c.initScale = 2.0;
  expect_floor_holds(c, 100, 0.0);
  c.seqLen = 128, c.dk = 32, c.batchSize = 4, c.initScale = 1.0;
  expect_floor_holds(c, 40, 0.0);
  // plain SGD at a large rate: the none copy's rows collapse towards one key
  c = TrainConfig{};
  c.optimizer = attnscale::Optimizer::sgd, c.learningRate = 2.0, c.batchSize = 4;
  expect_floor_holds(c, 100, 0.0);
}

TEST(TrainEntropyFloor, HoldsWithQkNormSoftcapAndLengthFactor) {
  TrainConfig c;
  c.dk = 16, c.seqLen = 12, c.batchSize = 4, c.initScale = 2.0;
  c.copies = {spec("rms", ScaleMode::sqrt, QkNorm::rms),
              spec("layer", ScaleMode::sqrt, QkNorm::layer),
              spec("cap5", ScaleMode::none, QkNorm::none, 5.0),
              spec("cap50", ScaleMode::none, QkNorm::none, 50.0),
              spec("logn", ScaleMode::sqrt, QkNorm::none, 0.0, 0.43)};
  expect_floor_holds(c, 100, 0.0);
}

// fp16 and bf16 weights keep 11 and 8 bits (fp16 flushes those below 6e-8 to 0): the measured
// entropies carry that rounding.
TEST(TrainEntropyFloor, HoldsInLowPrecisionUpToTheWeightsRounding) {
  TrainConfig c;
  c.batchSize = 4;
  c.format.precision = Precision::fp16;
  expect_floor_holds(c, 60, 2e-3);
  c.format.precision = Precision::bf16;
  expect_floor_holds(c, 60, 2e-2);
}

using Mat = std::vector<double>;
using attnscale::test::logits_double;

// Step 11 of each kind of copy: maxLogit, the floor and the lowest row entropy from the copy's
// parameters before that step and the step's batch, in double.
TEST(TrainEntropyFloor, MatchesADoubleRecomputation) {
  TrainConfig cfg;
  cfg.dk = 16, cfg.seqLen = 12, cfg.batchSize = 4, cfg.initScale = 2.0;
  cfg.copies = {spec("none", ScaleMode::none),
                spec("sqrt", ScaleMode::sqrt),
                spec("rms", ScaleMode::sqrt, QkNorm::rms),
                spec("layer", ScaleMode::sqrt, QkNorm::layer),
                spec("cap5", ScaleMode::none, QkNorm::none, 5.0),
                spec("logn", ScaleMode::sqrt, QkNorm::none, 0.0, 0.43)};
  Trainer t(cfg);
  ASSERT_EQ(t.error(), "");
  const int before = 10, T = cfg.seqLen;
  t.step(before, nullptr, nullptr);
  attnscale::train::Batch batch;
  attnscale::train::make_batch(cfg.seed, 1, before, cfg.batchSize, T, attnscale::kValueTokens,
                               batch);
  std::vector<std::vector<double>> want(static_cast<std::size_t>(t.copies()));
  for (int c = 0; c < t.copies(); ++c) {
    double maxAbs = 0.0, maxNorm = 0.0, minH = INFINITY;
    for (int e = 0; e < cfg.batchSize; ++e) {
      const Mat z =
          logits_double(t.params(c), batch, e, T, cfg.dk, t.logit_scale(c), t.copy_spec(c));
      for (int i = 0; i < T; ++i) {
        const double* row = &z[static_cast<std::size_t>(i) * T];
        double mean = 0.0, m = -INFINITY, ss = 0.0, sum = 0.0, dot = 0.0;
        for (int j = 0; j < T; ++j) mean += row[j] / T, m = std::max(m, row[j]);
        for (int j = 0; j < T; ++j) {
          ss += (row[j] - mean) * (row[j] - mean);
          maxAbs = std::max(maxAbs, std::fabs(row[j]));
          sum += std::exp(row[j] - m);
        }
        for (int j = 0; j < T; ++j) dot += std::exp(row[j] - m) / sum * (row[j] - m);
        maxNorm = std::max(maxNorm, std::sqrt(ss));
        minH = std::min(minH, std::log(sum) - dot);
      }
    }
    want[c] = {maxAbs, minH, attnscale::entropy_lower_bound(T, maxNorm)};
  }
  const Curves r = run(t, 1);
  for (int c = 0; c < t.copies(); ++c) {
    const std::string name = t.copy_spec(c).name;
    const double maxLogit = r.at(c, TrainMetric::maxLogit, 0);
    std::printf("[ recompute ] %s maxLogit %.9g (double %.9g)  floor %.9g (double %.9g)\n",
                name.c_str(), maxLogit, want[c][0], r.at(c, TrainMetric::entropyFloor, 0),
                want[c][2]);
    EXPECT_NEAR(maxLogit, want[c][0], 1e-5 * want[c][0]) << name;
    EXPECT_NEAR(r.at(c, TrainMetric::minRowEntropy, 0), want[c][1], 1e-5) << name;
    EXPECT_NEAR(r.at(c, TrainMetric::entropyFloor, 0), want[c][2], 1e-5) << name;
  }
}

// Golden values of the default config after 50 steps, asserted with the same bits by
// tests/js/engine/train.test.js in the SIMD and the scalar wasm build.
TEST(TrainEntropyFloor, GoldenValuesSharedWithWasm) {
  Trainer t(TrainConfig{});
  const int n = 50;
  const Curves r = run(t, n);
  std::uint64_t h = 1469598103934665603ULL;
  for (int c = 0; c < t.copies(); ++c)
    for (TrainMetric k :
         {TrainMetric::maxLogit, TrainMetric::minRowEntropy, TrainMetric::entropyFloor}) {
      const double* block =
          &r.m[(static_cast<std::size_t>(c) * kTrainMetrics + static_cast<int>(k)) * n];
      h = fnv(h, block, n * sizeof(double));
    }
  const double noneMax = r.at(0, TrainMetric::maxLogit, n - 1);
  const double sqrtMinH = r.at(1, TrainMetric::minRowEntropy, n - 1);
  const double sqrtFloor = r.at(1, TrainMetric::entropyFloor, n - 1);
  std::printf(
      "[ golden ] none maxLogit@50 %.17g  sqrt minRowEntropy@50 %.17g  sqrt "
      "entropyFloor@50 %.17g  hash %016" PRIx64 "\n",
      noneMax, sqrtMinH, sqrtFloor, h);
  EXPECT_EQ(noneMax, 37.344120025634766);
  EXPECT_EQ(sqrtMinH, 2.3456564396619797);
  EXPECT_EQ(sqrtFloor, 0.066075583717138731);
  EXPECT_EQ(h, 0x764835d3e91d105fULL);
}
