// The sweep estimate (EstimateJob): its row sample, its values against the double reference and,
// with every row sampled, against the exact run; and the claim it exists for: over 50 settings
// every estimate lies within 4 standard errors of the exact value.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "config/config.hpp"
#include "engine/attention_engine.hpp"
#include "engine/estimate/estimate_job.hpp"
#include "reference/reference_estimate.hpp"

namespace attnscale {
namespace {

Config base(int T) {
  Config c;
  c.seqLen = T;
  c.blockSize = std::min(c.blockSize, T);
  return c;
}

std::vector<Config> three_scales(const Config& c) {
  std::vector<Config> out;
  for (ScaleMode m : {ScaleMode::none, ScaleMode::sqrt, ScaleMode::linear}) {
    Config s = c;
    s.scaleMode = m;
    out.push_back(s);
  }
  return out;
}

// Each point of the job, driven to completion.
std::vector<std::vector<EstimateStats>> estimate(const std::vector<Config>& configs,
                                                 const std::vector<int>& dks, int rows,
                                                 int budgetUs = 0, bool gradients = true) {
  EstimateJob job(configs, dks, rows, gradients);
  std::vector<std::vector<EstimateStats>> out;
  while (!job.done()) {
    const auto deadline = budgetUs > 0 ? Clock::now() + std::chrono::microseconds(budgetUs)
                                       : Clock::time_point::max();
    if (job.advance(deadline)) out.push_back(job.point());
  }
  return out;
}

bool same(double a, double b) { return a == b || (std::isnan(a) && std::isnan(b)); }

// A field's exact value in run's statistics.
double exact_of(const RunStats& st, const std::string& name) {
  for (const auto& f : scalar_fields())
    if (name == f.name) return f.get(st);
  ADD_FAILURE() << "no run field " << name;
  return 0;
}

TEST(EstimateRows, OnePerStratumAscendingAndEachRowEquallyLikely) {
  for (auto [T, r] : {std::pair{2048, 64}, {256, 256}, {300, 7}, {10, 3}}) {
    const std::vector<int> rows = estimate_rows(T, r, 5);
    ASSERT_EQ(static_cast<int>(rows.size()), r);
    for (int j = 0; j < r; ++j) {
      EXPECT_GE(rows[j], static_cast<long long>(j) * T / r) << T << " " << r;
      EXPECT_LT(rows[j], static_cast<long long>(j + 1) * T / r + 1) << T << " " << r;
      if (j) {
        EXPECT_GT(rows[j], rows[j - 1]);
      }
    }
  }
  // Inclusion probabilities over seeds: r/T for every row, 3 binomial SDs (20000 draws).
  const int T = 10, r = 3, draws = 20000;
  std::vector<int> hits(T);
  for (int seed = 0; seed < draws; ++seed)
    for (int i : estimate_rows(T, r, static_cast<std::uint32_t>(seed))) ++hits[i];
  const double p = static_cast<double>(r) / T, sd = std::sqrt(p * (1 - p) / draws);
  for (int i = 0; i < T; ++i) EXPECT_NEAR(hits[i] / static_cast<double>(draws), p, 4 * sd) << i;
}

// With every row sampled the estimate is the exact value and every SE is 0. The row values are
// the exact run's bit for bit, and only the order of a few double sums differs (the row means
// are summed by kind): 1e-12 relative. The RMS of ∂L/∂Q agrees to 1e-12 below d_k = T and to 1e-5
// from there (the exact run's Gram form, an fp32 product in another order).
TEST(EstimateJob, EveryRowSampledGivesTheExactValues) {
  std::vector<Config> settings;
  Config c = base(40);
  settings.push_back(c);
  c.causal = true;
  c.mean = 0.4;
  c.std = 1.7;
  c.correlation = -0.6;
  settings.push_back(c);
  c.format.precision = Precision::fp16;
  c.mean = 2;
  c.subtractMax = false;  // fp16 exps overflow without scaling
  settings.push_back(c);
  c = base(33);
  c.qkNorm = QkNorm::rms;
  c.lengthScale = 0.5;
  c.softcap = 20;
  c.causal = true;
  settings.push_back(c);
  for (const Config& s : settings) {
    const std::vector<int> dks = {1, 16, 64, 20};
    const auto points = estimate(three_scales(s), dks, s.seqLen);
    ASSERT_EQ(points.size(), dks.size());
    AttentionEngine engine;
    for (std::size_t p = 0; p < dks.size(); ++p)
      for (std::size_t k = 0; k < points[p].size(); ++k) {
        const EstimateStats& e = points[p][k];
        Config one = three_scales(s)[k];
        one.dk = dks[p];
        const RunStats exact = engine.run(one).stats;
        const std::string where = "dk " + std::to_string(one.dk) + " scale " +
                                  std::to_string(static_cast<int>(one.scaleMode)) + " T " +
                                  std::to_string(one.seqLen);
        for (const EstimateField& f : estimate_fields()) {
          const Estimate got = e.*f.member;
          const double want = exact_of(exact, f.name);
          if (std::isnan(want)) {  // every row non-finite: no value, no SE
            EXPECT_TRUE(std::isnan(got.value) && std::isnan(got.se)) << f.name << " " << where;
            continue;
          }
          EXPECT_EQ(got.se, 0.0) << f.name << " " << where;
          EXPECT_NEAR(got.value, want, 1e-12 * std::max(1.0, std::fabs(want)))
              << f.name << " " << where;
        }
        const double gradTolerance = one.dk >= one.seqLen ? 1e-5 : 1e-12;
        EXPECT_NEAR(e.gradNormQ, exact.gradNormQ, gradTolerance * std::max(1.0, exact.gradNormQ))
            << where;
        EXPECT_TRUE(same(e.jacobianNormMedian, exact.jacobianNormMedian)) << where;
        EXPECT_EQ(e.nonFiniteLogits, static_cast<double>(exact.nonFinite.logits)) << where;
        EXPECT_EQ(e.nonFiniteExp, static_cast<double>(exact.nonFinite.exp)) << where;
        EXPECT_EQ(e.nonFiniteWeights, static_cast<double>(exact.nonFinite.weights)) << where;
      }
  }
}

// The estimate against its double reference on the same rows. The engine works in fp32, the
// reference in double: values agree to 2e-5·max(1, |value|) (the tolerance of
// reference_compare.hpp); an SE is a spread of per-row values, which the same float noise moves
// by at most 2e-5·max(1, |value|) plus 1e-3 of itself (the spread's relative noise when it is
// small against the values).
TEST(EstimateJob, MatchesTheDoubleReference) {
  std::vector<Config> settings;
  Config c = base(64);
  settings.push_back(c);
  c.causal = true;
  c.mean = 0.3;
  c.std = 1.4;
  c.correlation = 0.5;
  settings.push_back(c);
  c.format.precision = Precision::bf16;
  c.causal = false;
  settings.push_back(c);
  c = base(48);
  c.qkNorm = QkNorm::layer;
  c.softcap = 5;
  settings.push_back(c);
  c = base(40);
  c.format.precision = Precision::fp16;
  c.mean = 2;
  c.subtractMax = false;
  settings.push_back(c);
  for (const Config& s : settings)
    for (int rows : {5, 16}) {
      const std::vector<int> dks = {8, 64};
      const auto points = estimate(three_scales(s), dks, rows);
      for (std::size_t p = 0; p < dks.size(); ++p) {
        const std::vector<EstimateStats> want = reference_estimate(three_scales(s), dks[p], rows);
        for (std::size_t k = 0; k < want.size(); ++k) {
          const EstimateStats& g = points[p][k];
          const EstimateStats& w = want[k];
          const std::string where = "dk " + std::to_string(dks[p]) + " rows " +
                                    std::to_string(rows) + " scale #" + std::to_string(k) + " T " +
                                    std::to_string(s.seqLen);
          for (const EstimateField& f : estimate_fields()) {
            const Estimate a = g.*f.member, b = w.*f.member;
            if (std::isnan(b.value)) {
              EXPECT_TRUE(std::isnan(a.value)) << f.name << " " << where;
              continue;
            }
            const double noise = 2e-5 * std::max(1.0, std::fabs(b.value));
            EXPECT_NEAR(a.value, b.value, noise) << f.name << " " << where;
            EXPECT_NEAR(a.se, b.se, noise + 1e-3 * b.se) << f.name << " SE " << where;
          }
          EXPECT_TRUE(same(g.jacobianNormMedian, w.jacobianNormMedian) ||
                      std::fabs(g.jacobianNormMedian - w.jacobianNormMedian) <= 1e-5)
              << where;
          EXPECT_EQ(g.nonFiniteLogits, w.nonFiniteLogits) << where;
          EXPECT_EQ(g.nonFiniteExp, w.nonFiniteExp) << where;
          EXPECT_EQ(g.nonFiniteWeights, w.nonFiniteWeights) << where;
        }
      }
    }
}

TEST(EstimateJob, StoppingBetweenStepsChangesNothing) {
  Config c = base(160);
  c.causal = true;
  c.qkNorm = QkNorm::rms;
  const std::vector<int> dks = {1, 64, 300, 32};
  const auto whole = estimate(three_scales(c), dks, 24);
  const auto sliced = estimate(three_scales(c), dks, 24, 1);
  ASSERT_EQ(whole.size(), sliced.size());
  for (std::size_t p = 0; p < whole.size(); ++p)
    for (std::size_t k = 0; k < whole[p].size(); ++k)
      for (const EstimateField& f : estimate_fields()) {
        EXPECT_EQ((whole[p][k].*f.member).value, (sliced[p][k].*f.member).value) << f.name;
        EXPECT_EQ((whole[p][k].*f.member).se, (sliced[p][k].*f.member).se) << f.name;
      }
}

// Without gradients (the page's estimates) every field is the same bit for bit, in settings whose
// forward and backward differ (QK-norm, a soft-cap, a length scale, a causal mask, bf16), and
// gradNormQ is NaN.
TEST(EstimateJob, WithoutGradientsEveryOtherFieldIsTheSame) {
  std::vector<Config> settings;
  for (int i = 0; i < 4; ++i) {
    Config c = base(96 + 40 * i);
    c.causal = i % 2;
    c.correlation = 0.3 * i - 0.4;
    c.mean = 0.1 * i;
    if (i == 1) c.qkNorm = QkNorm::rms;
    if (i == 2) c.format.precision = Precision::bf16;
    if (i == 3) c.softcap = 30;
    settings.push_back(c);
  }
  for (const Config& c : settings) {
    const std::vector<int> dks = {1, 16, 200, 64};
    const auto with = estimate(three_scales(c), dks, 24);
    const auto without = estimate(three_scales(c), dks, 24, 0, false);
    ASSERT_EQ(with.size(), without.size());
    for (std::size_t p = 0; p < with.size(); ++p)
      for (std::size_t k = 0; k < with[p].size(); ++k) {
        const EstimateStats &a = with[p][k], &b = without[p][k];
        for (const EstimateField& f : estimate_fields()) {
          EXPECT_TRUE(same((a.*f.member).value, (b.*f.member).value)) << f.name << " " << p;
          EXPECT_TRUE(same((a.*f.member).se, (b.*f.member).se)) << f.name << " " << p;
        }
        EXPECT_TRUE(same(a.jacobianNormMedian, b.jacobianNormMedian));
        EXPECT_EQ(a.nonFiniteLogits, b.nonFiniteLogits);
        EXPECT_EQ(a.nonFiniteExp, b.nonFiniteExp);
        EXPECT_EQ(a.nonFiniteWeights, b.nonFiniteWeights);
        EXPECT_TRUE(std::isfinite(a.gradNormQ));
        EXPECT_TRUE(std::isnan(b.gradNormQ));
      }
  }
}

// The main claim. 50 settings mixing T, d_k, causal masks, fp32 and bf16, the inputs' mean, σ and
// correlation (and a few with QK-norm, a soft-cap or a length scale), three scalings each, from
// 64–128 rows (the sample sizes the page uses; docs/api.md#sweep-estimates on fewer): every field
// with a standard error lies within 4 SE of the exact run (an exact field, SE 0, must be equal).
// The settings are fixed, so the count is too; it is printed.
TEST(EstimateJob, FiftySettingsWithinFourStandardErrors) {
  const int Ts[] = {256, 384, 512, 320};
  const int dks[] = {16, 64, 256, 32, 128};
  const int rowsOf[] = {64, 128, 96, 80};
  const double means[] = {0, 0.3, -0.5, 1};
  const double stds[] = {1, 0.6, 1.8};
  const double rhos[] = {0, 0.4, -0.7, 0.9};
  std::map<std::string, std::pair<int, int>> byField;  // passed, compared
  int passed = 0, compared = 0, beyond2 = 0, beyond3 = 0;
  AttentionEngine engine;
  for (int k = 0; k < 50; ++k) {
    Config c = base(Ts[k % 4]);
    c.causal = k % 2 == 1;
    c.format.precision = (k / 2) % 2 ? Precision::bf16 : Precision::fp32;
    c.mean = means[(k / 3) % 4];
    c.std = stds[(k / 4) % 3];
    c.correlation = rhos[(k / 5) % 4];
    c.seed = 11 + k;
    if (k % 10 == 7) c.qkNorm = QkNorm::rms;
    if (k % 10 == 9) c.softcap = 30;
    if (k % 10 == 3) c.lengthScale = 0.3;
    const int d = dks[(k / 2) % 5], rows = rowsOf[(k / 7) % 4];
    const std::vector<Config> configs = three_scales(c);
    EstimateJob job(configs, {d}, rows);
    ASSERT_TRUE(job.advance(Clock::time_point::max()));
    for (std::size_t s = 0; s < configs.size(); ++s) {
      Config one = configs[s];
      one.dk = d;
      const RunStats exact = engine.stats(one);
      for (const EstimateField& f : estimate_fields()) {
        const Estimate got = job.point()[s].*f.member;
        const double want = exact_of(exact, f.name);
        const double off = std::fabs(got.value - want);
        const bool ok = off <= 4 * got.se || same(got.value, want);
        beyond2 += off > 2 * got.se ? 1 : 0;
        beyond3 += off > 3 * got.se ? 1 : 0;
        ++compared;
        ++byField[f.name].second;
        if (ok) {
          ++passed;
          ++byField[f.name].first;
        }
        EXPECT_TRUE(ok) << f.name << ": estimate " << got.value << " ± " << got.se << ", exact "
                        << want << " (" << (got.value - want) / got.se << " SE); setting " << k
                        << " scale #" << s << " T " << c.seqLen << " dk " << d << " rows " << rows;
      }
    }
  }
  std::printf("within 4 SE: %d of %d (beyond 2 SE: %d, beyond 3 SE: %d)\n", passed, compared,
              beyond2, beyond3);
  for (const auto& [name, counts] : byField)
    std::printf("  %-18s %d of %d\n", name.c_str(), counts.first, counts.second);
}

}  // namespace
}  // namespace attnscale
