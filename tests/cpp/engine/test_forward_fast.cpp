// The fp32 attention forward against its references: the panel GEMM against a plain
// loop (bit for bit), exp2_nonpositive against std::exp2, and AttentionForward against the float64
// attention_forward_reference on awkward shapes (causal, T not a multiple of the row block or of
// the panel width, d_k = 1, 3, 4096, with and without max subtraction), plus the non-finite paths.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <tuple>
#include <vector>

#include "gemm/panel_gemm.hpp"
#include "kernels/attention_forward.hpp"
#include "simd/fast_math.hpp"

namespace attnscale {
namespace {

std::vector<float> uniform_matrix(std::size_t n, unsigned seed, float lo = -1.0f, float hi = 1.0f) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> m(n);
  for (float& x : m) x = dist(gen);
  return m;
}

// Tolerance: none. The tile accumulates c = 0; c = c + a·b in k order (no FMA: -ffp-contract=off),
// as the plain loop does, for both B layouts the forward packs (Kᵀ read from K, and V).
TEST(ForwardPanelGemm, MatchesPlainLoopBitForBit) {
  for (auto [M, N, K] :
       {std::tuple{1, 1, 1}, {2, 3, 5}, {3, 16, 7}, {17, 33, 9}, {16, 64, 128}, {5, 129, 513}}) {
    const auto a = uniform_matrix(static_cast<std::size_t>(M) * K, 1);
    const auto bRows = uniform_matrix(static_cast<std::size_t>(K) * N, 2);  // B row-major (V)
    const auto bCols =
        uniform_matrix(static_cast<std::size_t>(N) * K, 3);  // B = Xᵀ, X row-major (K)
    std::vector<float> got(static_cast<std::size_t>(M) * N), want(got.size());
    panel::panel_gemm(M, N, K, a.data(), K, bRows.data(), N, 1, got.data(), N);
    panel::panel_gemm_reference(M, N, K, a.data(), K, bRows.data(), N, 1, want.data(), N);
    ASSERT_EQ(got, want) << M << "x" << N << "x" << K << " row-major B";
    panel::panel_gemm(M, N, K, a.data(), K, bCols.data(), 1, K, got.data(), N);
    panel::panel_gemm_reference(M, N, K, a.data(), K, bCols.data(), 1, K, want.data(), N);
    ASSERT_EQ(got, want) << M << "x" << N << "x" << K << " transposed B";
  }
}

float exp2_nonpositive_scalar(float x) {
  alignas(64) float lane[simd::W] = {};
  lane[0] = x;
  simd::storeu(lane, simd::exp2_nonpositive(simd::loadu(lane)));
  return lane[0];
}

// Tolerance: 2.5e-7 relative to std::exp2 where the result is normal (x ≥ -126): the fitted
// polynomial's 1.8e-7 on [-1/2, 1/2], plus the rounding of its last step and of the exact
// power-of-two factor's product.
TEST(ForwardExp, NonPositiveWithinItsBoundOverItsDomain) {
  double worst = 0;
  for (float x = -126.0f; x <= 0.0f; x += 0.0009765625f) {
    const double want = std::exp2(static_cast<double>(x));
    worst = std::max(worst, std::fabs(exp2_nonpositive_scalar(x) - want) / want);
  }
  EXPECT_LT(worst, 2.5e-7);
}

TEST(ForwardExp, NonPositiveEdges) {
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_EQ(exp2_nonpositive_scalar(0.0f), 1.0f);
  EXPECT_EQ(exp2_nonpositive_scalar(-0.0f), 1.0f);
  EXPECT_EQ(exp2_nonpositive_scalar(-1.0f), 0.5f);
  EXPECT_EQ(exp2_nonpositive_scalar(-inf), 0.0f);
  EXPECT_EQ(exp2_nonpositive_scalar(-1000.0f), 0.0f);
  EXPECT_TRUE(std::isnan(exp2_nonpositive_scalar(std::nanf(""))));
  // Tiny arguments, and |r| = 1/2 at the edges of the reduction.
  for (float x : {-1e-38f, -1e-30f, -1e-10f, -1e-5f, -0.4999f, -0.5f, -0.5001f, -99.5f}) {
    const double want = std::exp2(static_cast<double>(x));
    EXPECT_NEAR(exp2_nonpositive_scalar(x), want, 2.5e-7 * want) << x;
  }
  // Subnormal results: within one subnormal step of the true value above 2^-126.5, exactly 0
  // below (by design: an absolute error under 8.3e-39).
  for (float x : {-125.9f, -126.0f, -126.2f, -126.4f, -126.49f}) {
    const double want = std::exp2(static_cast<double>(x));
    EXPECT_NEAR(exp2_nonpositive_scalar(x), want, std::max(2.5e-7 * want, 1.5e-45)) << x;
  }
  for (float x : {-126.51f, -127.0f, -130.0f, -150.0f})
    EXPECT_EQ(exp2_nonpositive_scalar(x), 0.0f) << x;
}

struct Case {
  int T, d;
  bool causal, subtractMax;
};

double max_abs_diff(const std::vector<float>& got, const std::vector<double>& want) {
  double worst = 0;
  for (std::size_t i = 0; i < got.size(); ++i) worst = std::max(worst, std::fabs(got[i] - want[i]));
  return worst;
}

// Tolerance: |O − O_ref| ≤ 1e-5 with q, k, v uniform in [−1, 1] and s = 1/√d_k (so |O| ≤ 1).
// The float errors are a few ulp of each logit (d_k products summed in fp32: relative ~√d_k·6e-8,
// and logits are O(1) after the scale), ~2 ulp of each exp, and the fp32 sums over T keys; the
// largest seen here is ~2e-7, so 1e-5 leaves a 50× margin while still catching any wrong index,
// mask or max (those give errors of order 0.1).
TEST(ForwardFast, MatchesFloat64ReferenceOnAwkwardShapes) {
  std::vector<Case> cases;
  for (int T : {1, 2, 3, 15, 16, 17, 31, 33, 100, 130})
    for (int d : {1, 3, 4, 16, 17, 64, 129})
      for (bool causal : {false, true})
        for (bool subtractMax : {true, false}) cases.push_back({T, d, causal, subtractMax});
  for (int T : {1, 7, 40})
    cases.push_back({T, 4096, false, true}), cases.push_back({T, 4096, true, true});
  cases.push_back({300, 130, true, true});
  cases.push_back({257, 513, false, true});
  AttentionForward forward;  // one object for all shapes: buffers are reused, large to small
  for (const Case& c : cases) {
    const std::size_t n = static_cast<std::size_t>(c.T) * c.d;
    const auto q = uniform_matrix(n, 11), k = uniform_matrix(n, 12), v = uniform_matrix(n, 13);
    const ForwardShape shape{c.T,           c.d,      static_cast<float>(1.0 / std::sqrt(c.d)),
                             c.subtractMax, c.causal, Format{}};
    std::vector<float> o(n, std::nanf(""));
    std::vector<double> want(n);
    forward.run(shape, q.data(), k.data(), v.data(), o.data());
    attention_forward_reference(shape, q.data(), k.data(), v.data(), want.data());
    EXPECT_LE(max_abs_diff(o, want), 1e-5) << "T=" << c.T << " d=" << c.d << " causal=" << c.causal
                                           << " subtractMax=" << c.subtractMax;
  }
}

// QK-norm, length scale and soft-cap take the rounded path with q̂, k̂ normalized in
// fp32: with s = 1/√d_k the logits are O(1)·s·ln T ≤ ~3, so the 1e-5 argument above holds with the
// normalization's few ulp and tanh_fast's 2 ulp added.
TEST(ForwardFast, LogitSchemesMatchFloat64Reference) {
  AttentionForward forward;
  for (QkNorm norm : {QkNorm::none, QkNorm::rms, QkNorm::layer})
    for (float cap : {0.0f, 2.0f})
      for (double len : {0.0, 0.43})
        for (bool causal : {false, true}) {
          const int T = 33, d = 17;
          const std::size_t n = static_cast<std::size_t>(T) * d;
          const auto q = uniform_matrix(n, 21), k = uniform_matrix(n, 22),
                     v = uniform_matrix(n, 23);
          const ForwardShape shape{
              T, d, static_cast<float>(1.0 / std::sqrt(d)), true, causal, Format{}, norm, len, cap};
          std::vector<float> o(n, std::nanf(""));
          std::vector<double> want(n);
          forward.run(shape, q.data(), k.data(), v.data(), o.data());
          attention_forward_reference(shape, q.data(), k.data(), v.data(), want.data());
          EXPECT_LE(max_abs_diff(o, want), 1e-5)
              << qk_norm_name(norm) << " cap=" << cap << " len=" << len << " causal=" << causal;
        }
}

// Large logits (s = 1, |q·k| up to ~40): max subtraction is what keeps exp finite; the relative
// tolerance is the same argument as above on a larger scale of logits.
TEST(ForwardFast, LargeLogitsWithMaxSubtraction) {
  const int T = 70, d = 48;
  const std::size_t n = static_cast<std::size_t>(T) * d;
  const auto q = uniform_matrix(n, 21, -3, 3), k = uniform_matrix(n, 22, -3, 3),
             v = uniform_matrix(n, 23);
  for (bool causal : {false, true}) {
    const ForwardShape shape{T, d, 1.0f, true, causal, Format{}};
    std::vector<float> o(n);
    std::vector<double> want(n);
    AttentionForward forward;
    forward.run(shape, q.data(), k.data(), v.data(), o.data());
    attention_forward_reference(shape, q.data(), k.data(), v.data(), want.data());
    EXPECT_LE(max_abs_diff(o, want), 2e-5) << "causal=" << causal;
  }
}

// Same inputs, same object or a fresh one, before or after other shapes: the same bits.
TEST(ForwardFast, ReusedBuffersGiveIdenticalResults) {
  const int T = 77, d = 40;
  const std::size_t n = static_cast<std::size_t>(T) * d;
  const auto q = uniform_matrix(n, 31), k = uniform_matrix(n, 32), v = uniform_matrix(n, 33);
  const ForwardShape shape{T, d, 0.2f, true, true, Format{}};
  AttentionForward fresh, reused;
  std::vector<float> a(n), b(n);
  fresh.run(shape, q.data(), k.data(), v.data(), a.data());
  const auto big = uniform_matrix(300 * 200, 34);
  std::vector<float> bigOut(big.size());
  reused.run({300, 200, 0.1f, true, false, Format{}}, big.data(), big.data(), big.data(),
             bigOut.data());
  reused.run(shape, q.data(), k.data(), v.data(), b.data());
  EXPECT_EQ(a, b);
}

// A NaN in one query row, or an infinite one (logits ±inf): that row is NaN as in the reference
// (the softmax_row fallback), every other row stays finite and correct.
TEST(ForwardFast, NonFiniteRowsFollowTheReference) {
  const int T = 40, d = 8;
  const std::size_t n = static_cast<std::size_t>(T) * d;
  auto q = uniform_matrix(n, 41), k = uniform_matrix(n, 42), v = uniform_matrix(n, 43);
  q[5 * d + 3] = std::nanf("");
  q[9 * d + 0] = std::numeric_limits<float>::infinity();  // row 9: logits ±inf
  for (bool subtractMax : {true, false}) {
    const ForwardShape shape{T, d, 1.0f, subtractMax, false, Format{}};
    std::vector<float> o(n);
    std::vector<double> want(n);
    AttentionForward forward;
    forward.run(shape, q.data(), k.data(), v.data(), o.data());
    attention_forward_reference(shape, q.data(), k.data(), v.data(), want.data());
    for (std::size_t i = 0; i < n; ++i) {
      ASSERT_EQ(std::isnan(o[i]), std::isnan(want[i]))
          << "element " << i << " subtractMax=" << subtractMax;
      if (!std::isnan(want[i])) {
        ASSERT_NEAR(o[i], want[i], 1e-5) << "element " << i;
      }
    }
  }
}

}  // namespace
}  // namespace attnscale
