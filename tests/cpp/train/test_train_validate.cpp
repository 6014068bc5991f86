// Config validation and API shape of the trainer.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "train/model/detmath.hpp"
#include "train/model/model.hpp"
#include "train/train.hpp"

using attnscale::kTrainMetrics;
using attnscale::TrainConfig;
using attnscale::Trainer;

namespace {
void expect_error(const TrainConfig& c, const std::string& field) {
  const std::string e = attnscale::validate_train_config(c);
  EXPECT_FALSE(e.empty()) << field;
  EXPECT_EQ(e.rfind(field, 0), 0u) << "message should start with the field name: " << e;
}
}  // namespace

TEST(TrainValidate, DefaultsAreValid) {
  EXPECT_EQ(attnscale::validate_train_config(TrainConfig{}), "");
  TrainConfig c;
  c.hasCustom = true;
  c.customScale = 0.3;
  EXPECT_EQ(attnscale::validate_train_config(c), "");
}

TEST(TrainValidate, EachFieldOutOfRangeIsNamed) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  TrainConfig c;
  c.dk = 0, expect_error(c, "dk");
  c.dk = 4097, expect_error(c, "dk");
  c = {}, c.seqLen = 7, expect_error(c, "seqLen");
  c.seqLen = 129, expect_error(c, "seqLen");
  c = {}, c.batchSize = 0, expect_error(c, "batchSize");
  c.batchSize = 65, expect_error(c, "batchSize");
  c = {}, c.dk = 4096, c.seqLen = 128, c.batchSize = 16, expect_error(c, "dk");
  c = {}, c.optimizer = static_cast<attnscale::Optimizer>(7), expect_error(c, "optimizer");
  for (double lr : {0.0, -1.0, 1e-7, 11.0, nan, inf})
    c = {}, c.learningRate = lr, expect_error(c, "learningRate");
  for (double s : {0.0, 0.009, 10.5, nan, -inf})
    c = {}, c.initScale = s, expect_error(c, "initScale");
  c = {}, c.format.precision = static_cast<attnscale::Precision>(9), expect_error(c, "precision");
  c = {}, c.hasCustom = true;
  for (double s : {0.0, -0.5, 2e6, nan, inf}) c.customScale = s, expect_error(c, "scale");
  c.hasCustom = false, c.customScale = nan;
  EXPECT_EQ(attnscale::validate_train_config(c), "") << "scale is ignored without hasCustom";
  // edges are valid
  c = {}, c.dk = 4096, c.seqLen = 32, c.batchSize = 16;
  EXPECT_EQ(attnscale::validate_train_config(c), "");
  c = {}, c.dk = 1, c.seqLen = 8, c.batchSize = 1, c.learningRate = 1e-6, c.initScale = 0.01;
  EXPECT_EQ(attnscale::validate_train_config(c), "");
  c = {}, c.seqLen = 128, c.batchSize = 64, c.dk = 256, c.learningRate = 10, c.initScale = 10;
  EXPECT_EQ(attnscale::validate_train_config(c), "");
}

TEST(TrainValidate, InvalidConfigGivesInertTrainer) {
  TrainConfig c;
  c.dk = -3;
  Trainer t(c);
  EXPECT_FALSE(t.error().empty());
  EXPECT_EQ(t.copies(), 0);
  std::int32_t s = 0;
  double m = 0;
  t.step(1, &s, &m);  // no-op
  EXPECT_TRUE(t.attention(0).empty());
}

TEST(TrainValidate, NamesAndScales) {
  attnscale::Optimizer o;
  EXPECT_TRUE(attnscale::parse_optimizer("sgd", o) && o == attnscale::Optimizer::sgd);
  EXPECT_TRUE(attnscale::parse_optimizer("adam", o) && o == attnscale::Optimizer::adam);
  EXPECT_FALSE(attnscale::parse_optimizer("rmsprop", o));
  EXPECT_STREQ(attnscale::train_metric_name(attnscale::TrainMetric::saturatedFraction),
               "saturatedFraction");
  // The default copies, in output order (custom only with a scale), and their multipliers.
  TrainConfig c;
  c.dk = 16;
  c.hasCustom = true;
  c.customScale = 3;
  const auto copies = attnscale::resolved_copies(c);
  ASSERT_EQ(copies.size(), 4u);
  const char* names[] = {"none", "sqrt", "linear", "custom"};
  for (std::size_t k = 0; k < copies.size(); ++k) {
    EXPECT_EQ(copies[k].name, names[k]);
    EXPECT_EQ(attnscale::copy_name(copies[k]), names[k]);
  }
  EXPECT_EQ(attnscale::spec_scale(copies[0], c.dk), 1.0f);
  EXPECT_EQ(attnscale::spec_scale(copies[1], c.dk), 0.25f);
  EXPECT_EQ(attnscale::spec_scale(copies[2], c.dk), 1.0f / 16);
  EXPECT_EQ(attnscale::spec_scale(copies[3], c.dk), 3.0f);
  c.hasCustom = false;
  EXPECT_EQ(attnscale::resolved_copies(c).size(), 3u);
}

// The copies the panel offers: the default ones (one per named scaling), then the findings'
// schemes, each named and labelled from its scale, QK-norm, soft-cap and length factor.
TEST(TrainValidate, CopyChoicesAreNamedFromTheirSpecs) {
  const auto choices = attnscale::copy_choices();
  const char* names[] = {"none",       "sqrt",      "linear",     "rms_sqrt",
                         "layer_sqrt", "none_cap5", "none_cap50", "sqrt_logn"};
  const char* labels[] = {"none",
                          "1/√d_k",
                          "1/d_k",
                          "RMS-norm + 1/√d_k",
                          "layer-norm + 1/√d_k",
                          "none + soft-cap 5",
                          "none + soft-cap 50",
                          "1/√d_k × 0.43 ln T"};
  ASSERT_EQ(choices.size(), std::size(names));
  for (std::size_t i = 0; i < choices.size(); ++i) {
    EXPECT_EQ(choices[i].name, names[i]);
    EXPECT_EQ(attnscale::copy_name(choices[i]), names[i]);
    EXPECT_EQ(attnscale::copy_label(choices[i]), labels[i]);
    EXPECT_EQ(attnscale::validate_copy_spec(choices[i], "copies[0]"), "");
  }
  TrainConfig all;
  all.copies = choices;
  EXPECT_EQ(attnscale::validate_train_config(all), "");
  attnscale::CopySpec custom;
  custom.scaleMode = attnscale::ScaleMode::custom, custom.customScale = 0.2;
  EXPECT_EQ(attnscale::copy_label(custom), "× 0.2");
}

TEST(TrainValidate, OutputShapesAndRanges) {
  TrainConfig c;
  c.dk = 8, c.seqLen = 12, c.batchSize = 3;
  c.hasCustom = true, c.customScale = 2.0;
  Trainer t(c);
  ASSERT_EQ(t.copies(), 4);
  const int n = 5;
  std::vector<std::int32_t> steps(n);
  std::vector<double> m(4 * kTrainMetrics * n, -1.0);
  t.step(n, steps.data(), m.data());
  t.step(n, steps.data(), m.data());
  EXPECT_EQ(steps[0], 6);
  EXPECT_EQ(steps[4], 10);
  EXPECT_EQ(t.steps_done(), 10);
  for (int copy = 0; copy < 4; ++copy)
    for (int s = 0; s < n; ++s) {
      auto at = [&](int k) { return m[(copy * kTrainMetrics + k) * n + s]; };
      EXPECT_GT(at(0), 0.0);
      EXPECT_GE(at(1), 0.0);
      EXPECT_LE(at(1), 1.0);
      EXPECT_GE(at(2), 0.0);
      EXPECT_LE(at(2), std::log(12.0) + 1e-6);
      EXPECT_GE(at(3), 0.0);
      EXPECT_LE(at(3), 1.0);
      EXPECT_GT(at(4), 0.0);
      EXPECT_GT(at(5), 0.0);
    }
  for (const char* name : {"none", "sqrt", "linear", "custom"}) {
    const std::vector<float> a = t.attention(t.copy_index(name));
    ASSERT_EQ(a.size(), 144u);
    for (int i = 0; i < 12; ++i) {
      double sum = 0;
      for (int j = 0; j < 12; ++j) sum += a[i * 12 + j];
      EXPECT_NEAR(sum, 1.0, 1e-5);
    }
  }
  Trainer t3(TrainConfig{});
  EXPECT_EQ(t3.copies(), 3);
  EXPECT_EQ(t3.copy_index("custom"), -1);
  EXPECT_TRUE(t3.attention(3).empty());
}

// The task: keys are a permutation, targets are the value at the queried key's position.
TEST(TrainValidate, TaskIsWellFormed) {
  attnscale::train::Batch b;
  attnscale::train::make_batch(9u, 1, 3, 4, 10, 16, b);
  for (int e = 0; e < 4; ++e) {
    std::vector<int> seen(10, 0);
    for (int j = 0; j < 10; ++j) ++seen[b.key[e * 10 + j]];
    for (int k = 0; k < 10; ++k) EXPECT_EQ(seen[k], 1);
    for (int i = 0; i < 10; ++i) {
      int j = 0;
      while (b.key[e * 10 + j] != b.qry[e * 10 + i]) ++j;
      EXPECT_EQ(b.target[e * 10 + i], b.val[e * 10 + j]);
      EXPECT_GE(b.val[e * 10 + i], 0);
      EXPECT_LT(b.val[e * 10 + i], 16);
    }
  }
  // initial values: std as documented (E: initScale; Wq: 1 / sqrt(64); Wo: 1 / sqrt(d_k = 64))
  attnscale::train::Dims d;
  attnscale::train::Params<float> p;
  attnscale::train::init_params(d, 2.0, 5u, p);
  auto stdev = [](const std::vector<float>& v) {
    double s = 0, s2 = 0;
    for (float x : v) s += x, s2 += static_cast<double>(x) * x;
    const double mu = s / v.size();
    return std::sqrt(s2 / v.size() - mu * mu);
  };
  EXPECT_NEAR(stdev(p.E), 2.0, 0.05);
  EXPECT_NEAR(stdev(p.Wq), 0.125, 0.005);
  EXPECT_NEAR(stdev(p.Wo), 0.125, 0.008);
}

// Own exp / log against libm (used only here, as a yardstick).
TEST(TrainValidate, DeterministicExpAndLogAreAccurate) {
  using attnscale::simd::vf;
  auto ulps = [](float a, float b) {
    std::int32_t ia, ib;
    std::memcpy(&ia, &a, 4), std::memcpy(&ib, &b, 4);
    return std::abs(static_cast<long long>(ia) - ib);
  };
  long long worst_exp = 0, worst_log = 0;
  std::vector<float> x(attnscale::simd::W);
  for (int k = -870000; k <= 880000; k += 7) {
    const float v = k * 1e-4f;
    std::fill(x.begin(), x.end(), v);
    attnscale::train::apply_vf(x.data(), 1, [](vf a) { return attnscale::train::exp_vf(a); });
    worst_exp = std::max(worst_exp, ulps(x[0], std::exp(v)));
  }
  for (int k = 1; k <= 2000000; k += 3) {
    const float v = std::ldexp(static_cast<float>(k), -21 - (k % 100));  // (0, 1], many scales
    std::fill(x.begin(), x.end(), v);
    attnscale::train::apply_vf(x.data(), 1,
                               [](vf a) { return attnscale::simd::log_fast_normal(a); });
    worst_log = std::max(worst_log, ulps(x[0], std::log(v)));
  }
  std::printf("[ detmath ] worst ulp error: exp %lld, log %lld\n", worst_exp, worst_log);
  EXPECT_LE(worst_exp, 2);
  EXPECT_LE(worst_log, 2);
  const float inf = std::numeric_limits<float>::infinity();
  float e[4] = {0.0f, -inf, inf, std::nanf("")};
  attnscale::train::apply_vf(e, 4, [](vf a) { return attnscale::train::exp_vf(a); });
  EXPECT_EQ(e[0], 1.0f);
  EXPECT_EQ(e[1], 0.0f);
  EXPECT_EQ(e[2], inf);
  EXPECT_TRUE(std::isnan(e[3]));
  float u[3] = {-88.0f, 89.0f, -87.0f};
  attnscale::train::apply_vf(u, 3, [](vf a) { return attnscale::train::exp_vf(a); });
  EXPECT_EQ(u[0], 0.0f);
  EXPECT_EQ(u[1], inf);
  EXPECT_GT(u[2], 0.0f);
  for (double v : {1e-300, 0.1, 0.5, 0.70710678, 1.0, 2.0, 3.14159, 1e10, 1e300})
    EXPECT_NEAR(attnscale::train::det_log(v), std::log(v), 4e-16 * std::fabs(std::log(v)) + 1e-300);
  EXPECT_TRUE(std::isnan(attnscale::train::det_log(-1.0)));
  EXPECT_EQ(attnscale::train::det_log(0.0), -std::numeric_limits<double>::infinity());
}

// Chosen copies: every bad entry is named by its index and field, with the range.
TEST(TrainValidate, CopiesAreCheckedOneByOne) {
  auto with = [](std::vector<attnscale::CopySpec> copies) {
    TrainConfig c;
    c.copies = std::move(copies);
    return attnscale::validate_train_config(c);
  };
  attnscale::CopySpec ok;
  ok.name = "rms_sqrt";
  ok.qkNorm = attnscale::QkNorm::rms;
  EXPECT_EQ(with({ok}), "");
  auto bad = ok;
  bad.softcap = -1;
  EXPECT_EQ(with({ok, bad}).rfind("copies[1].softcap must be a finite number in [0, ", 0), 0u)
      << with({ok, bad});
  bad = ok, bad.lengthScale = 1e9;
  EXPECT_NE(with({bad}).find("copies[0].lengthScale"), std::string::npos);
  bad = ok, bad.scaleMode = attnscale::ScaleMode::custom, bad.customScale = 0;
  EXPECT_NE(with({bad}).find("copies[0].scale must be"), std::string::npos);
  bad = ok, bad.name = "no spaces";
  EXPECT_NE(with({bad}).find("copies[0].name"), std::string::npos);
  EXPECT_NE(with({ok, ok}).find("copies[1].name must be unique"), std::string::npos);
  EXPECT_NE(with(std::vector<attnscale::CopySpec>(9, ok)).find("copies must list 1 to 8"),
            std::string::npos);
  TrainConfig both;
  both.copies = {ok};
  both.hasCustom = true;
  EXPECT_NE(attnscale::validate_train_config(both).find("scale adds a custom copy"),
            std::string::npos);
  // spec scales
  attnscale::CopySpec s;
  s.scaleMode = attnscale::ScaleMode::linear;
  EXPECT_EQ(attnscale::spec_scale(s, 16), 1.0f / 16);
  s.scaleMode = attnscale::ScaleMode::custom, s.customScale = 0.7;
  EXPECT_EQ(attnscale::spec_scale(s, 16), 0.7f);
}
