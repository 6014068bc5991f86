// Trainer::qk: the queries and keys of the fixed example are the ones attention() multiplies. A
// plain double-precision softmax of their scaled (capped, length-scaled) product reproduces
// attention(copy) for every kind of copy, after training has moved the weights.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "copy_spec.hpp"
#include "precision/format.hpp"
#include "train/train.hpp"

using attnscale::CopySpec;
using attnscale::Format;
using attnscale::Precision;
using attnscale::QkNorm;
using attnscale::ScaleMode;
using attnscale::TrainConfig;
using attnscale::Trainer;

namespace {

// softmax_rows(shape(q k^T)) in double, shape as the copy forms its logits (train.hpp).
std::vector<double> softmax_of(const std::vector<float>& q, const std::vector<float>& k, int T,
                               int dk, double scale, const CopySpec& c) {
  std::vector<double> a(static_cast<std::size_t>(T) * T);
  for (int i = 0; i < T; ++i) {
    double m = -INFINITY;
    for (int j = 0; j < T; ++j) {
      double s = 0.0;
      for (int d = 0; d < dk; ++d)
        s += static_cast<double>(q[static_cast<std::size_t>(i) * dk + d]) *
             static_cast<double>(k[static_cast<std::size_t>(j) * dk + d]);
      double z = s * scale;
      if (c.lengthScale > 0.0) z *= c.lengthScale * std::log(static_cast<double>(T));
      if (c.softcap > 0.0) z = c.softcap * std::tanh(z / c.softcap);
      a[static_cast<std::size_t>(i) * T + j] = z;
      m = std::max(m, z);
    }
    double sum = 0.0;
    for (int j = 0; j < T; ++j) {
      double& x = a[static_cast<std::size_t>(i) * T + j];
      x = std::exp(x - m);
      sum += x;
    }
    for (int j = 0; j < T; ++j) a[static_cast<std::size_t>(i) * T + j] /= sum;
  }
  return a;
}

double max_abs_diff(const std::vector<double>& a, const std::vector<float>& b) {
  double worst = 0.0;
  for (std::size_t i = 0; i < a.size(); ++i)
    worst = std::max(worst, std::fabs(a[i] - static_cast<double>(b[i])));
  return worst;
}

void expect_qk_gives_attention(const TrainConfig& cfg, int steps, double tolerance) {
  Trainer t(cfg);
  ASSERT_TRUE(t.error().empty()) << t.error();
  std::vector<std::int32_t> s(static_cast<std::size_t>(steps));
  t.step(steps, s.data(), nullptr);
  const int T = cfg.seqLen, dk = cfg.dk;
  const std::size_t n = static_cast<std::size_t>(T) * dk;
  for (int c = 0; c < t.copies(); ++c) {
    std::vector<float> q(n, NAN), k(n, NAN);
    t.qk(c, q.data(), k.data());
    for (std::size_t i = 0; i < n; ++i) ASSERT_TRUE(std::isfinite(q[i]) && std::isfinite(k[i]));
    const double scale = t.logit_scale(c);
    EXPECT_EQ(scale, attnscale::spec_scale(t.copy_spec(c), dk));
    const double diff =
        max_abs_diff(softmax_of(q, k, T, dk, scale, t.copy_spec(c)), t.attention(c));
    std::printf("[ qk ] %s %g\n", t.copy_spec(c).name.c_str(), diff);
    EXPECT_LT(diff, tolerance) << t.copy_spec(c).name;
  }
}

}  // namespace

TEST(TrainQk, DefaultCopiesReproduceAttention) {
  TrainConfig cfg;  // d_k 64, T 32: the training panel's defaults
  expect_qk_gives_attention(cfg, 60, 1e-5);
}

TEST(TrainQk, NormedCappedAndLengthScaledCopiesReproduceAttention) {
  TrainConfig cfg;
  cfg.dk = 16, cfg.seqLen = 12, cfg.batchSize = 4, cfg.initScale = 2.0;
  cfg.copies = {spec("rms", ScaleMode::sqrt, QkNorm::rms),
                spec("layer", ScaleMode::sqrt, QkNorm::layer),
                spec("cap", ScaleMode::none, QkNorm::none, 5.0),
                spec("logn", ScaleMode::sqrt, QkNorm::none, 0.0, 0.43)};
  expect_qk_gives_attention(cfg, 40, 1e-5);
}

// In fp16 the forward multiplies q and k rounded to fp16: qk returns exactly those values. The
// logits and weights are rounded too, so the reproduction is looser (fp16 keeps 11 bits).
TEST(TrainQk, LowPrecisionReturnsTheRoundedValues) {
  TrainConfig cfg;
  cfg.dk = 32, cfg.seqLen = 16, cfg.batchSize = 4;
  cfg.format.precision = Precision::fp16;
  Trainer t(cfg);
  t.step(20, nullptr, nullptr);
  const std::size_t n = 16 * 32;
  for (int c = 0; c < t.copies(); ++c) {
    std::vector<float> q(n), k(n);
    t.qk(c, q.data(), k.data());
    std::vector<float> q2 = q, k2 = k;
    attnscale::round_inplace(cfg.format, q2.data(), n);
    attnscale::round_inplace(cfg.format, k2.data(), n);
    EXPECT_EQ(q, q2);
    EXPECT_EQ(k, k2);
  }
  expect_qk_gives_attention(cfg, 20, 4e-3);
}

TEST(TrainQk, AbsentCopyWritesNothing) {
  Trainer t(TrainConfig{});
  std::vector<float> q(4, 7.0f), k(4, 7.0f);
  t.qk(3, q.data(), k.data());  // no custom copy without a scale
  t.qk(-1, q.data(), k.data());
  EXPECT_EQ(q, std::vector<float>(4, 7.0f));
  EXPECT_EQ(k, std::vector<float>(4, 7.0f));
  EXPECT_EQ(t.logit_scale(3), 0.0f);
}
