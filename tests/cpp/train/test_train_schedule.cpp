// The learning-rate schedule (train.hpp, scheduled_lr): its shape, its cosine, its validation, that
// 'constant' leaves the curves as they were, and a golden value of 'warmup-cosine' shared with
// wasm (tests/js/engine/train.test.js).
#include <gtest/gtest.h>

#include <cinttypes>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "fnv_hash.hpp"
#include "train/model/detmath.hpp"
#include "train/train.hpp"

using attnscale::kTrainMetrics;
using attnscale::LrSchedule;
using attnscale::scheduled_lr;
using attnscale::TrainConfig;
using attnscale::Trainer;

namespace {

TrainConfig cosine(double lr, int n) {
  TrainConfig c;
  c.learningRate = lr;
  c.schedule = LrSchedule::warmupCosine;
  c.scheduleSteps = n;
  return c;
}

std::vector<double> curves(const TrainConfig& c, int n) {
  Trainer t(c);
  std::vector<double> m(static_cast<std::size_t>(t.copies()) * kTrainMetrics * n);
  t.step(n, nullptr, m.data());
  return m;
}

}  // namespace

// |det_cos_pi(p) - cos(pi p)| against libm's cos over [0, 1]: within 4e-16 (a few ulp of 1).
TEST(TrainSchedule, CosineIsAccurate) {
  double worst = 0.0;
  for (int i = 0; i <= 100000; ++i) {
    const double p = i / 100000.0;
    worst = std::max(worst, std::fabs(attnscale::train::det_cos_pi(p) - std::cos(M_PI * p)));
  }
  std::printf("[ schedule ] worst |det_cos_pi - cos| %.3g\n", worst);
  EXPECT_LT(worst, 4e-16);
  EXPECT_EQ(attnscale::train::det_cos_pi(0.5), 0.0);
}

// Linear warm-up over round(N / 20) steps to lr, cosine decay to min(1e-5, lr) at step N, then
// flat.
TEST(TrainSchedule, WarmupThenCosineToTheFinalRate) {
  const TrainConfig c = cosine(0.1, 1000);  // warm-up 50 steps
  EXPECT_EQ(scheduled_lr(c, 1), 0.1 / 50);
  EXPECT_EQ(scheduled_lr(c, 25), 0.1 * 25 / 50);
  EXPECT_EQ(scheduled_lr(c, 50), 0.1);
  EXPECT_NEAR(scheduled_lr(c, 525), (0.1 + 1e-5) / 2, 1e-15);  // halfway through the decay
  EXPECT_EQ(scheduled_lr(c, 1000), 1e-5);
  EXPECT_EQ(scheduled_lr(c, 5000), 1e-5);
  for (long long t = 51; t <= 1000; ++t) EXPECT_LT(scheduled_lr(c, t), scheduled_lr(c, t - 1)) << t;
  EXPECT_EQ(scheduled_lr(cosine(3e-6, 1000), 1000), 3e-6);  // below 1e-5: it ends where it began
  EXPECT_EQ(scheduled_lr(cosine(0.1, 9), 1),
            1e-5 + (0.1 - 1e-5) *
                       (0.5 + 0.5 * attnscale::train::det_cos_pi(1.0 / 9)));  // N < 10: no warm-up
  EXPECT_EQ(scheduled_lr(cosine(0.1, 1), 1), 1e-5);
  EXPECT_EQ(scheduled_lr(cosine(0.1, 10), 1), 0.1);  // one warm-up step (10 / 20 rounds up)
  TrainConfig constant = c;
  constant.schedule = LrSchedule::constant;
  for (long long t : {1, 50, 1000, 9999}) EXPECT_EQ(scheduled_lr(constant, t), 0.1);
}

// 'constant' is the default and ignores scheduleSteps: the same bits as a config without them.
TEST(TrainSchedule, ConstantLeavesTheCurvesUnchanged) {
  TrainConfig a, b;
  a.dk = b.dk = 16, a.seqLen = b.seqLen = 12, a.batchSize = b.batchSize = 4;
  b.schedule = LrSchedule::constant, b.scheduleSteps = 7;
  const std::vector<double> ma = curves(a, 30), mb = curves(b, 30);
  EXPECT_EQ(std::memcmp(ma.data(), mb.data(), ma.size() * sizeof(double)), 0);
  b.schedule = LrSchedule::warmupCosine;
  const std::vector<double> mc = curves(b, 30);
  EXPECT_NE(std::memcmp(ma.data(), mc.data(), ma.size() * sizeof(double)), 0);
}

TEST(TrainSchedule, ScheduleFieldsAreValidated) {
  TrainConfig c = cosine(0.01, 0);
  EXPECT_EQ(attnscale::validate_train_config(c),
            "scheduleSteps must be an integer in [1, 1000000], got 0");
  c.scheduleSteps = 1000001;
  EXPECT_EQ(attnscale::validate_train_config(c).rfind("scheduleSteps must be", 0), 0u);
  c.scheduleSteps = 100;
  c.schedule = static_cast<LrSchedule>(7);
  EXPECT_EQ(attnscale::validate_train_config(c), "schedule must be 'constant' or 'warmup-cosine'");
  c.schedule = LrSchedule::warmupCosine;
  c.learningRate = 20.0;
  EXPECT_EQ(
      attnscale::validate_train_config(c).rfind("learningRate must be a finite number in [", 0),
      0u);
  LrSchedule s;
  EXPECT_TRUE(attnscale::parse_schedule("warmup-cosine", s) && s == LrSchedule::warmupCosine);
  EXPECT_FALSE(attnscale::parse_schedule("cosine", s));
  EXPECT_STREQ(attnscale::schedule_name(LrSchedule::constant), "constant");
}

// The default copies, warmup-cosine at 1e-2 over 60 steps: the loss and weightBound of every
// step, golden, asserted with the same bits in the SIMD and scalar wasm builds.
TEST(TrainSchedule, GoldenValuesSharedWithWasm) {
  const int n = 60;
  Trainer t(cosine(1e-2, n));
  std::vector<double> m(static_cast<std::size_t>(t.copies()) * kTrainMetrics * n);
  t.step(n, nullptr, m.data());
  std::uint64_t h = 1469598103934665603ULL;
  for (int c = 0; c < t.copies(); ++c)
    for (attnscale::TrainMetric k :
         {attnscale::TrainMetric::loss, attnscale::TrainMetric::weightBound})
      h = fnv(h, &m[(static_cast<std::size_t>(c) * kTrainMetrics + static_cast<int>(k)) * n],
              n * sizeof(double));
  const double sqrtLoss = m[(1 * kTrainMetrics + 0) * n + n - 1];
  const double noneBound =
      m[(0 * kTrainMetrics + static_cast<int>(attnscale::TrainMetric::weightBound)) * n + n - 1];
  std::printf(
      "[ golden ] warmup-cosine sqrt loss@60 %.17g  none weightBound@60 %.17g  hash %016" PRIx64
      "\n",
      sqrtLoss, noneBound, h);
  EXPECT_EQ(sqrtLoss, 0.60943381083382631);
  EXPECT_EQ(noneBound, 409.22578073815004);
  EXPECT_EQ(h, 0xb6fef672a22e961aULL);
}
