// entropy_lower_bound against a long-double evaluation of the same formula, against the entropy of
// the row that attains it, and as a floor under rows of random directions.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "stats/entropy_bound.hpp"

using attnscale::entropy_lower_bound;

namespace {

long double bound_ld(long double T, long double s) {
  if (T == 1.0L) return 0.0L;
  const long double beta = std::exp(-s * std::sqrt(T / (T - 1.0L)));
  return std::log1p((T - 1.0L) * beta) +
         s * std::sqrt(T * (T - 1.0L)) * beta / (1 + (T - 1) * beta);
}

// Softmax entropy of z in long double, as Σ p_j (ln Z − (z_j − max)) with ln Z = log1p(Σ_{j≠argmax}
// e^(z_j − max)): every term is >= 0, so a tiny entropy keeps its relative precision.
long double entropy_ld(const std::vector<long double>& z) {
  std::size_t top = 0;
  for (std::size_t j = 1; j < z.size(); ++j)
    if (z[j] > z[top]) top = j;
  long double rest = 0;
  for (std::size_t j = 0; j < z.size(); ++j)
    if (j != top) rest += std::exp(z[j] - z[top]);
  const long double lnZ = std::log1p(rest);
  long double h = 0;
  for (long double x : z) h += std::exp(x - z[top]) / (1 + rest) * (lnZ - (x - z[top]));
  return h;
}

long double centred_norm_ld(const std::vector<long double>& z) {
  long double mean = 0, ss = 0;
  for (long double x : z) mean += x;
  mean /= static_cast<long double>(z.size());
  for (long double x : z) ss += (x - mean) * (x - mean);
  return std::sqrt(ss);
}

const double kSeqLens[] = {1, 2, 3, 8, 32, 128, 2048, 1e6};
const double kSigmas[] = {0, 1e-9, 1e-3, 0.1, 0.5, 1, 3, 10, 30, 100, 700, 1e4};

}  // namespace

TEST(EntropyBound, MatchesLongDoubleFormula) {
  for (double T : kSeqLens)
    for (double s : kSigmas) {
      const double got = entropy_lower_bound(T, s);
      const long double want = bound_ld(T, s);
      EXPECT_LE(std::fabs(static_cast<long double>(got) - want), 1e-14L * want + 1e-300L)
          << "T " << T << " sigma " << s << " got " << got << " want " << static_cast<double>(want);
    }
}

TEST(EntropyBound, EdgeCases) {
  for (double T : kSeqLens)
    EXPECT_NEAR(entropy_lower_bound(T, 0), std::log(T), 1e-15 * std::log(T + 1));
  EXPECT_EQ(entropy_lower_bound(2, 0), std::log(2.0));
  for (double s : kSigmas) EXPECT_EQ(entropy_lower_bound(1, s), 0.0);
  EXPECT_EQ(entropy_lower_bound(32, std::numeric_limits<double>::infinity()), 0.0);
  EXPECT_EQ(entropy_lower_bound(32, 1e6), 0.0);  // β underflows: the limit, not NaN
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_TRUE(std::isnan(entropy_lower_bound(0.5, 1)));
  EXPECT_TRUE(std::isnan(entropy_lower_bound(nan, 1)));
  EXPECT_TRUE(std::isnan(entropy_lower_bound(8, -1)));
  EXPECT_TRUE(std::isnan(entropy_lower_bound(8, nan)));
  // decreasing in σ, increasing in T
  for (double T : {2.0, 8.0, 128.0}) {
    double last = entropy_lower_bound(T, 0);
    for (double s = 0.05; s < 60; s += 0.05) {
      const double b = entropy_lower_bound(T, s);
      EXPECT_LE(b, last) << T << " " << s;
      EXPECT_LE(b, entropy_lower_bound(2 * T, s)) << T << " " << s;
      last = b;
    }
  }
}

// The row of one logit a = σ√(T/(T−1)) and T−1 zeros has centred norm σ and entropy B(T, σ).
TEST(EntropyBound, AttainedByOneLargeLogit) {
  for (double T : {2.0, 3.0, 8.0, 32.0, 128.0, 2048.0})
    for (double s : {0.1, 1.0, 3.0, 10.0, 20.0}) {
      std::vector<long double> z(static_cast<std::size_t>(T), 0.0L);
      z[0] = s * std::sqrt(static_cast<long double>(T) / (T - 1));
      EXPECT_NEAR(static_cast<double>(centred_norm_ld(z)), s, 1e-15 * s);
      const long double h = entropy_ld(z);
      EXPECT_LE(std::fabs(static_cast<long double>(entropy_lower_bound(T, s)) - h), 1e-13L * h)
          << "T " << T << " sigma " << s;
    }
}

// Rows of random direction (normal, heavy-tailed, two-level) scaled to centred norm σ: never below.
TEST(EntropyBound, FloorUnderRandomRows) {
  std::mt19937_64 rng(11);
  std::normal_distribution<double> normal;
  std::cauchy_distribution<double> cauchy;
  for (int T : {2, 3, 8, 32, 128})
    for (double s : {0.01, 0.5, 1.0, 3.0, 10.0, 30.0}) {
      const double floor = entropy_lower_bound(T, s);
      for (int trial = 0; trial < 300; ++trial) {
        std::vector<long double> z(static_cast<std::size_t>(T));
        for (int j = 0; j < T; ++j)
          z[j] = trial % 3 == 0 ? normal(rng) : trial % 3 == 1 ? cauchy(rng) : (j < trial % T);
        const long double c = centred_norm_ld(z);
        if (c == 0) continue;
        for (long double& x : z) x *= s / c;
        EXPECT_GE(entropy_ld(z), floor - 1e-15 * (1 + floor)) << "T " << T << " sigma " << s;
      }
    }
}
