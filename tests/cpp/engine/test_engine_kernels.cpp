// Kernels against their plain references: GEMM, exp/log, counter-based normals, softmax rows and
// their backward, the row entropy.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "gemm/gemm.hpp"
#include "kernels/softmax_row.hpp"
#include "reference/reference_run.hpp"
#include "rng/counter_normal.hpp"
#include "simd/fast_math.hpp"

namespace attnscale {
namespace {

std::vector<float> random_matrix(int rows, int cols, unsigned seed) {
  std::mt19937 gen(seed);
  std::normal_distribution<float> dist;
  std::vector<float> m(static_cast<std::size_t>(rows) * cols);
  for (float& x : m) x = dist(gen);
  return m;
}

// Tolerance: none. Both accumulate c = c + a*b in the same order without FMA (-ffp-contract=off),
// so every blocking and vector width must give the same bits.
TEST(EngineGemm, MatchesPlainLoopBitForBitOnAwkwardShapes) {
  for (auto [M, N, K] :
       {std::tuple{1, 1, 1}, {3, 5, 7}, {17, 33, 9}, {64, 64, 300}, {65, 129, 513}}) {
    auto A = random_matrix(M, K, 1), B = random_matrix(K, N, 2), C0 = random_matrix(M, N, 3);
    auto C1 = C0;
    gemm_accumulate(M, N, 0, K, {A.data(), K}, {B.data(), N}, C0.data(), N);
    gemm_accumulate_reference(M, N, 0, K, {A.data(), K}, {B.data(), N}, C1.data(), N);
    ASSERT_EQ(C0, C1) << M << "x" << N << "x" << K;
  }
}

TEST(EngineGemm, TransposedAMatchesExplicitTranspose) {
  const int M = 21, N = 37, K = 18;
  auto At = random_matrix(K, M, 6), B = random_matrix(K, N, 7);
  std::vector<float> A(M * K);
  transpose(K, M, At.data(), M, A.data(), K);
  std::vector<float> viaView(M * N, 0.0f), viaCopy(M * N, 0.0f);
  gemm_accumulate(M, N, 0, K, {At.data(), M, true}, {B.data(), N}, viaView.data(), N);
  gemm_accumulate(M, N, 0, K, {A.data(), K}, {B.data(), N}, viaCopy.data(), N);
  EXPECT_EQ(viaView, viaCopy);
}

TEST(EngineGemm, SplitInnerRangeEqualsOnePass) {
  const int M = 19, N = 23, K = 130;
  auto A = random_matrix(M, K, 4), B = random_matrix(K, N, 5);
  std::vector<float> once(M * N, 0.0f), split(M * N, 0.0f);
  gemm_accumulate(M, N, 0, K, {A.data(), K}, {B.data(), N}, once.data(), N);
  gemm_accumulate(M, N, 0, 64, {A.data(), K}, {B.data(), N}, split.data(), N);
  gemm_accumulate(M, N, 64, K, {A.data(), K}, {B.data(), N}, split.data(), N);
  EXPECT_EQ(once, split);
}

float exp_fast_scalar(float x) {
  alignas(64) float lane[simd::W] = {};
  lane[0] = x;
  simd::storeu(lane, simd::exp_fast(simd::loadu(lane)));
  return lane[0];
}

// Tolerance: 2 ulp relative to std::exp (Cephes expf polynomial is ~1 ulp; the two-factor 2^n
// scaling adds no error except one rounding in the subnormal range, checked separately).
TEST(EngineFastMath, ExpWithinTwoUlpOverTheNormalRange) {
  double worst = 0;
  for (float x = -87.0f; x < 88.7f; x += 0.001953125f) {
    const double want = std::exp(static_cast<double>(x));
    const double got = exp_fast_scalar(x);
    worst = std::max(worst, std::fabs(got - want) / want);
  }
  EXPECT_LT(worst, 2.5e-7);
}

TEST(EngineFastMath, ExpEdges) {
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_EQ(exp_fast_scalar(88.73f), inf);  // above ln(FLT_MAX) = 88.7228
  EXPECT_TRUE(std::isfinite(exp_fast_scalar(88.72f)));
  EXPECT_EQ(exp_fast_scalar(1000.0f), inf);
  EXPECT_EQ(exp_fast_scalar(inf), inf);
  EXPECT_EQ(exp_fast_scalar(-inf), 0.0f);
  EXPECT_EQ(exp_fast_scalar(-200.0f), 0.0f);
  EXPECT_TRUE(std::isnan(exp_fast_scalar(std::nanf(""))));
  EXPECT_EQ(exp_fast_scalar(0.0f), 1.0f);
  // Subnormal results: within one subnormal step of the correctly rounded value.
  for (float x : {-88.0f, -95.0f, -100.0f, -103.0f}) {
    const float want = static_cast<float>(std::exp(static_cast<double>(x)));
    EXPECT_NEAR(exp_fast_scalar(x), want, 1.5e-45f) << x;
  }
}

TEST(EngineFastMath, LogWithinTwoUlp) {
  double worst = 0;
  for (float x = 1e-30f; x < 1e30f; x *= 1.01f) {
    alignas(64) float lane[simd::W] = {};
    lane[0] = x;
    simd::storeu(lane, simd::log_fast_normal(simd::loadu(lane)));
    const double want = std::log(static_cast<double>(x));
    worst = std::max(worst, std::fabs(lane[0] - want) / std::max(1.0, std::fabs(want)));
  }
  EXPECT_LT(worst, 2.5e-7);
}

// Statistical tolerance: over 2^20 samples the mean's standard error is 1e-3 and the variance's
// ~1.4e-3; 5e-3 is > 3.5 standard errors. Fourth moment 3 ± 0.03.
TEST(EngineNormal, StandardNormalMoments) {
  const int rows = 256, cols = 4096;
  std::vector<float> row(cols);
  double s1 = 0, s2 = 0, s4 = 0;
  for (int r = 0; r < rows; ++r) {
    fill_normal_row(7, Tensor::q, r, cols, row.data());
    for (float x : row) {
      s1 += x;
      s2 += x * x;
      s4 += static_cast<double>(x) * x * x * x;
    }
  }
  const double n = static_cast<double>(rows) * cols;
  EXPECT_NEAR(s1 / n, 0.0, 5e-3);
  EXPECT_NEAR(s2 / n, 1.0, 5e-3);
  EXPECT_NEAR(s4 / n, 3.0, 3e-2);
}

TEST(EngineNormal, NestedAcrossWidthsAndIndependentOfVectorTail) {
  std::vector<float> wide(4096), narrow(13);
  fill_normal_row(1, Tensor::kIndependent, 5, 4096, wide.data());
  fill_normal_row(1, Tensor::kIndependent, 5, 13, narrow.data());
  for (int i = 0; i < 13; ++i) EXPECT_EQ(narrow[i], wide[i]);
  std::vector<float> again(4096);
  fill_normal_row(1, Tensor::kIndependent, 5, 4096, again.data());
  EXPECT_EQ(wide, again);
  fill_normal_row(2, Tensor::kIndependent, 5, 4096, again.data());
  EXPECT_NE(wide, again);
}

TEST(EngineSoftmaxRow, EqualLogitsGiveTheUniformRow) {
  for (int n : {1, 2, 7, 64, 255}) {
    std::vector<float> z(n, 3.5f), p(n);
    softmax_row(z.data(), n, true, Format{}, p.data());
    const RowStats s = weight_row_stats(p.data(), n);
    // Tolerance 1e-5: float weights 1/n carry ~1e-7 relative error each.
    EXPECT_NEAR(s.entropy, std::log(static_cast<double>(n)), 1e-5);
    const double want = std::sqrt(1.0 / n - 1.0 / (static_cast<double>(n) * n));
    EXPECT_NEAR(s.jacobianNorm, want, 1e-5);
  }
}

TEST(EngineSoftmaxRow, OneHotRowHasZeroJacobianAndEntropy) {
  std::vector<float> z(50, 0.0f), p(50);
  z[17] = 500.0f;
  softmax_row(z.data(), 50, true, Format{}, p.data());
  const RowStats s = weight_row_stats(p.data(), 50);
  EXPECT_EQ(s.maxWeight, 1.0f);
  EXPECT_EQ(s.jacobianNorm, 0.0f);
  EXPECT_EQ(s.entropy, 0.0f);
}

// The stable sum of non-negative terms equals the matrix built explicitly (relative 1e-6), and
// keeps nearly one-hot rows accurate where Σp² − 2Σp³ + (Σp²)² in float would cancel.
TEST(EngineSoftmaxRow, JacobianClosedFormMatchesExplicitMatrix) {
  std::mt19937 gen(3);
  for (float spread : {0.1f, 1.0f, 5.0f, 12.0f, 20.0f}) {
    std::normal_distribution<float> dist(0.0f, spread);
    std::vector<float> z(40), p(40);
    for (float& x : z) x = dist(gen);
    softmax_row(z.data(), 40, true, Format{}, p.data());
    std::vector<double> pd(p.begin(), p.end());
    const double want = reference_jacobian_norm_explicit(pd);
    const double got = std::sqrt(jacobian_norm_squared(p.data(), 40));
    // Float lanes sum ≤ 40 non-negative terms: relative error ≤ 40 · 6e-8 ≈ 2.4e-6, so 5e-6.
    EXPECT_NEAR(got, want, 5e-6 * want + 1e-30) << spread;
  }
}

// The softmax in double: p = exp(z − max z) / Σ exp(z − max z).
std::vector<double> softmax_double(const std::vector<float>& z) {
  double m = -std::numeric_limits<double>::infinity(), sum = 0;
  for (float x : z) m = std::max(m, static_cast<double>(x));
  std::vector<double> p(z.size());
  for (std::size_t j = 0; j < z.size(); ++j) sum += (p[j] = std::exp(z[j] - m));
  for (double& x : p) x /= sum;
  return p;
}

// Both orders of summing the exps against the double softmax. Tolerance 1e-6 absolute: exp_fast
// is within 2 ulp, and a float sum of <= 100 terms in (0, 1] is off by <= 100 · 6e-8 relative.
TEST(EngineSoftmaxRow, BothSumOrdersMatchTheDoubleSoftmax) {
  std::mt19937 gen(11);
  for (int n : {8, 13, 64, 100}) {
    std::normal_distribution<float> dist(0.0f, 3.0f);
    std::vector<float> z(n), lanes(n), ordered(n);
    for (float& x : z) x = dist(gen);
    softmax_row(z.data(), n, true, Format{}, lanes.data());
    softmax_row<IndexOrderSums>(z.data(), n, true, Format{}, ordered.data());
    const std::vector<double> want = softmax_double(z);
    for (int j = 0; j < n; ++j) {
      EXPECT_NEAR(lanes[j], want[j], 1e-6) << n << " " << j;
      EXPECT_NEAR(ordered[j], want[j], 1e-6) << n << " " << j;
    }
  }
}

// In index order the exps are added one after another (tolerance: none, the same float sum), and
// an exp below FLT_MIN is 0; the engine's order keeps it subnormal.
TEST(EngineSoftmaxRow, IndexOrderSumsInOrderAndFlushesSubnormalExps) {
  std::vector<float> z = {0.0f, 1.0f, -2.0f, 0.5f, -88.0f, 3.0f, 0.25f, -1.0f, 2.0f};
  const int n = static_cast<int>(z.size());
  std::vector<float> p(n), lanes(n);
  softmax_row<IndexOrderSums>(z.data(), n, true, Format{}, p.data());
  softmax_row(z.data(), n, true, Format{}, lanes.data());
  EXPECT_EQ(p[4], 0.0f);
  EXPECT_GT(lanes[4], 0.0f);
  float sum = 0.0f;
  std::vector<float> e(n);
  for (int j = 0; j < n; ++j) {
    float lane[simd::W] = {z[j] - 3.0f};
    simd::storeu(lane, simd::exp_fast(simd::loadu(lane)));
    e[j] = j == 4 ? 0.0f : lane[0];
    sum = sum + e[j];
  }
  for (int j = 0; j < n; ++j) EXPECT_EQ(p[j], e[j] / sum) << j;
}

// dS = p ⊙ (dp − ⟨p, dp⟩) · slope · scale · after against double (tolerance 1e-6 relative to the
// largest term: float products and a float dot product of 40 terms).
TEST(EngineSoftmaxBackward, MatchesTheDoubleJacobianProduct) {
  std::mt19937 gen(5);
  std::normal_distribution<float> dist;
  const int n = 40;
  std::vector<float> z(n), p(n), dp(n), slope(n), ds(n);
  for (int j = 0; j < n; ++j) z[j] = dist(gen), dp[j] = dist(gen), slope[j] = 0.5f + 0.01f * j;
  softmax_row(z.data(), n, true, Format{}, p.data());
  const std::vector<const float*> slopes = {nullptr, slope.data()};
  for (const float* s : slopes)
    for (float after : {1.0f, 2.5f}) {
      softmax_backward_row(p.data(), dp.data(), n, s, 0.125f, after, ds.data());
      double r = 0;
      for (int j = 0; j < n; ++j) r += static_cast<double>(p[j]) * dp[j];
      for (int j = 0; j < n; ++j) {
        const double want = p[j] * (dp[j] - r) * (s ? s[j] : 1.0) * 0.125 * after;
        EXPECT_NEAR(ds[j], want, 1e-6) << j;
      }
    }
}

// The trainer's entropy against −Σ p ln p in double (tolerance 1e-6 relative: log_fast_normal is
// within 2 ulp of each float term), and equal to weight_row_stats' to 1e-6 (its float lanes).
TEST(EngineSoftmaxRow, EntropyInIndexOrderMatchesDouble) {
  std::mt19937 gen(9);
  for (float spread : {0.1f, 1.0f, 8.0f, 30.0f}) {
    std::normal_distribution<float> dist(0.0f, spread);
    const int n = 37;
    std::vector<float> z(n), p(n), tmp(n + simd::W);
    for (float& x : z) x = dist(gen);
    softmax_row(z.data(), n, true, Format{}, p.data());
    double want = 0;
    for (float x : p)
      if (x > std::numeric_limits<float>::min()) want -= x * std::log(static_cast<double>(x));
    const double got = entropy_in_index_order(p.data(), n, tmp.data());
    EXPECT_NEAR(got, want, 1e-6 * want + 1e-12) << spread;
    EXPECT_NEAR(weight_row_stats(p.data(), n).entropy, got, 1e-6 * want + 1e-7) << spread;
  }
}

}  // namespace
}  // namespace attnscale
