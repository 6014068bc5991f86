// The shared sweep (SweepJob): every scaling's point equals `run` with that scale at that d_k bit
// for bit, however the work is split into steps; and the kernels it is built from against their
// plain references. Tolerance everywhere: none (same operations in the same order).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <vector>

#include "config/config.hpp"
#include "engine/attention_engine.hpp"
#include "gemm/gemm.hpp"
#include "gemm/panel_gemm.hpp"
#include "kernels/online_softmax.hpp"
#include "rng/counter_normal.hpp"

namespace attnscale {
namespace {

bool same_double(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

bool same_floats(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

void expect_same_stats(const RunStats& a, const RunStats& b, const std::string& where) {
  for (const auto& f : scalar_fields())
    EXPECT_TRUE(same_double(f.get(a), f.get(b)))
        << f.name << " " << where << ": " << f.get(a) << " vs " << f.get(b);
  EXPECT_EQ(a.nonFinite.logits, b.nonFinite.logits) << where;
  EXPECT_EQ(a.nonFinite.exp, b.nonFinite.exp) << where;
  EXPECT_EQ(a.nonFinite.weights, b.nonFinite.weights) << where;
  EXPECT_EQ(a.nonFinite.output, b.nonFinite.output) << where;
  EXPECT_EQ(a.firstNonFiniteStage, b.firstNonFiniteStage) << where;
}

Config base(int T) {
  Config c;
  c.seqLen = T;
  c.blockSize = std::min(c.blockSize, T);
  return c;
}

std::vector<Config> with_scales(const Config& c) {
  std::vector<Config> out;
  for (ScaleMode m : {ScaleMode::none, ScaleMode::sqrt, ScaleMode::linear, ScaleMode::custom}) {
    Config s = c;
    s.scaleMode = m;
    s.customScale = 0.37;
    out.push_back(s);
  }
  return out;
}

// Every point of every scaling against a fresh run; `budget` > 0 drives the job in slices of
// that many microseconds (stopping between steps), 0 runs each point in one call.
void expect_points_equal_runs(const Config& c, const std::vector<int>& dks, int budgetUs = 0) {
  const std::vector<Config> configs = with_scales(c);
  SweepJob job(configs, dks);
  AttentionEngine engine;
  for (int d : dks) {
    ASSERT_FALSE(job.done());
    ASSERT_EQ(job.nextDk(), d);
    if (budgetUs > 0) {
      int calls = 0;
      while (!job.advance(Clock::now() + std::chrono::microseconds(budgetUs))) ++calls;
      if (d == dks.back()) {
        EXPECT_GT(calls, 0) << "the budget never interrupted a point";
      }
    } else {
      ASSERT_TRUE(job.advance(Clock::time_point::max()));
    }
    const std::vector<RunResult>& point = job.point();
    ASSERT_EQ(point.size(), configs.size());
    for (std::size_t s = 0; s < configs.size(); ++s) {
      Config one = configs[s];
      one.dk = d;
      const RunResult single = engine.run(one);
      const std::string where = "scale #" + std::to_string(s) + " dk=" + std::to_string(d);
      expect_same_stats(point[s].stats, single.stats, where);
      EXPECT_TRUE(same_floats(point[s].rowJacobianNorm, single.rowJacobianNorm)) << where;
    }
  }
  EXPECT_TRUE(job.done());
  EXPECT_FALSE(job.advance(Clock::time_point::max()));
}

TEST(SweepScales, EveryScaleEqualsRunBitForBit) {
  Config c = base(37);
  expect_points_equal_runs(c, {1, 2, 4, 8, 16, 100, 300, 3});
}

TEST(SweepScales, CausalBrokenAssumptionsAndNoMaxSubtraction) {
  Config c = base(33);
  c.causal = true;
  c.mean = 0.4;
  c.std = 1.7;
  c.correlation = -0.6;
  expect_points_equal_runs(c, {5, 64, 260});
  c.subtractMax = false;
  c.causal = false;
  expect_points_equal_runs(c, {1, 50, 2});
}

TEST(SweepScales, LowPrecisionAndOverflowingFormats) {
  Config c = base(24);
  c.format.precision = Precision::fp16;
  c.mean = 9;
  expect_points_equal_runs(c, {16, 512, 1024});  // d·μ² > 65504: unscaled fp16 logits overflow
  c.format.precision = Precision::fp8e4m3;
  c.format.saturate = true;
  expect_points_equal_runs(c, {4, 64});
  c.format.precision = Precision::fp8e5m2;
  c.format.saturate = false;
  expect_points_equal_runs(c, {8, 300});
}

TEST(SweepScales, OnlineSoftmax) {
  Config c = base(29);
  c.softmax = SoftmaxMode::online;
  c.blockSize = 5;
  c.causal = true;
  expect_points_equal_runs(c, {3, 40, 257});
}

TEST(SweepScales, StoppingBetweenStepsChangesNothing) {
  Config c = base(160);
  c.causal = true;
  expect_points_equal_runs(c, {1, 64, 700}, 1);
  c.softmax = SoftmaxMode::online;
  expect_points_equal_runs(c, {2, 300}, 1);
}

std::vector<float> random_matrix(int rows, int cols, unsigned seed) {
  std::mt19937 gen(seed);
  std::normal_distribution<float> dist;
  std::vector<float> m(static_cast<std::size_t>(rows) * cols);
  for (float& x : m) x = dist(gen);
  return m;
}

TEST(SweepKernels, PackedAccumulateEqualsPlainLoop) {
  for (auto [M, N, K] :
       {std::tuple{1, 1, 1}, {3, 5, 7}, {17, 33, 9}, {64, 70, 256}, {5, 129, 13}}) {
    // B stored transposed (N × K), as the engine packs Kᵀ from K.
    auto A = random_matrix(M, K, 1), Bt = random_matrix(N, K, 2), C0 = random_matrix(M, N, 3);
    std::vector<float> B(static_cast<std::size_t>(K) * N);
    transpose(N, K, Bt.data(), K, B.data(), N);
    auto C1 = C0;
    std::vector<float> panels(static_cast<std::size_t>(panel::panel_count(N)) * K *
                              panel::kPanelWidth);
    panel::pack_panels(K, N, Bt.data(), 1, K, panels.data());
    auto lower = C0;
    panel::accumulate_packed(M, N, K, A.data(), K, panels.data(), C0.data(), N);
    gemm_accumulate_reference(M, N, 0, K, {A.data(), K}, {B.data(), N}, C1.data(), N);
    ASSERT_EQ(C0, C1) << M << "x" << N << "x" << K;
    panel::accumulate_packed(M, N, K, A.data(), K, panels.data(), lower.data(), N, 3);
    for (int i = 0; i < M; ++i)
      for (int n = 0; n <= std::min(N - 1, 3 + i); ++n)
        ASSERT_EQ(lower[i * N + n], C1[i * N + n]) << M << "x" << N << "x" << K << " lower";
  }
}

// multiply_rows, with and without leaving out the exact zeros of A, against the plain loop: B
// read by rows and by columns, k-blocks split (K > 256), odd M, N not a whole panel; A mostly ±0.
TEST(SweepKernels, MultiplyRowsSkippingZerosEqualsPlainLoop) {
  for (auto [M, N, K] : {std::tuple{1, 1, 1}, {7, 5, 3}, {33, 40, 300}, {18, 16, 513}}) {
    auto A = random_matrix(M, K, 4), B = random_matrix(K, N, 5);
    for (std::size_t i = 0; i < A.size(); ++i)
      if (i % 7 != 3) A[i] = i % 2 ? -0.0f : 0.0f;
    std::vector<float> panels(panel::multiply_rows_panel_floats(N, K));
    for (auto [rowStride, colStride] : {std::pair<long, long>{N, 1}, {1, K}}) {
      std::vector<float> Bs(B.size());
      for (int k = 0; k < K; ++k)
        for (int n = 0; n < N; ++n) Bs[k * rowStride + n * colStride] = B[k * N + n];
      std::vector<float> want(static_cast<std::size_t>(M) * N);
      panel::panel_gemm_reference(M, N, K, A.data(), K, Bs.data(), rowStride, colStride,
                                  want.data(), N);
      for (bool skip : {false, true}) {
        std::vector<float> got(want.size(), 7.0f);
        panel::multiply_rows(M, N, K, A.data(), K, Bs.data(), rowStride, colStride, got.data(), N,
                             panels.data(), skip);
        EXPECT_TRUE(same_floats(got, want)) << M << "x" << N << "x" << K << " skip " << skip;
        // Lower triangles (row i is row row0 + i of the whole): the entries on and left of the
        // diagonal are the same.
        for (int row0 : {0, 9}) {
          std::fill(got.begin(), got.end(), 7.0f);
          panel::multiply_rows(M, N, K, A.data(), K, Bs.data(), rowStride, colStride, got.data(), N,
                               panels.data(), skip, row0);
          for (int i = 0; i < M; ++i)
            for (int n = 0; n <= std::min(N - 1, row0 + i); ++n)
              ASSERT_EQ(std::memcmp(&got[i * N + n], &want[i * N + n], sizeof(float)), 0)
                  << M << "x" << N << "x" << K << " row0 " << row0 << " at " << i << "," << n;
        }
      }
    }
  }
}

// multiply_rows_packed against multiply_rows: B packed once, k-block by k-block, for packedN >= N
// columns (the first N of which are B), then the first N columns computed; every variant of
// multiply_rows gives the same bits.
TEST(SweepKernels, MultiplyRowsPackedEqualsMultiplyRows) {
  for (auto [M, N, K, extra] :
       {std::tuple{1, 1, 1, 0}, {7, 5, 3, 4}, {33, 40, 300, 0}, {18, 16, 513, 9}}) {
    const int packedN = N + extra;
    auto A = random_matrix(M, K, 6), B = random_matrix(K, packedN, 7);
    for (std::size_t i = 0; i < A.size(); ++i)
      if (i % 5 == 1) A[i] = 0.0f;
    std::vector<float> panels(panel::multiply_rows_panel_floats(N, K));
    std::vector<float> packed(panel::packed_rows_floats(packedN, K));
    for (int k0 = 0; k0 < K; k0 += panel::kRowsBlock)
      panel::pack_rows_block(k0, packedN, K, B.data(), packedN, 1, packed.data());
    for (bool skip : {false, true})
      for (int row0 : {-1, 0, 9}) {
        std::vector<float> want(static_cast<std::size_t>(M) * N, 7.0f), got(want);
        panel::multiply_rows(M, N, K, A.data(), K, B.data(), packedN, 1, want.data(), N,
                             panels.data(), skip, row0);
        panel::multiply_rows_packed(M, N, K, A.data(), K, packed.data(), packedN, got.data(), N,
                                    skip, row0);
        EXPECT_TRUE(same_floats(got, want)) << M << "x" << N << "x" << K << " packed for "
                                            << packedN << " skip " << skip << " row0 " << row0;
      }
  }
}

// Unscaled logits at d_k >> T: most weights are exactly 0, so the Gram products skip dS's zeros.
TEST(SweepScales, SaturatedSoftmaxEqualsRunBitForBit) {
  Config c = base(24);
  expect_points_equal_runs(c, {2048, 4096});
}

TEST(SweepKernels, OnlineSoftmaxRowBlocksEqualOnePass) {
  const int T = 23, dv = 11;
  auto z = random_matrix(T, T, 8), v = random_matrix(T, dv, 9);
  std::vector<float> whole(T * dv), blocks(T * dv), scratch;
  const OnlineSoftmaxShape shape{T, dv, true, true, 4};
  online_softmax_output(shape, Format{}, z.data(), v.data(), dv, whole.data(), scratch);
  for (int r0 = 0; r0 < T; r0 += 6)
    online_softmax_rows(shape, Format{}, z.data(), v.data(), dv, r0, std::min(T, r0 + 6),
                        blocks.data() + r0 * dv, scratch);
  EXPECT_EQ(whole, blocks);
}

TEST(SweepKernels, NormalColumnsEqualTheRowsColumns) {
  std::vector<float> row(600), block(77);
  fill_normal_row(3, Tensor::v, 9, 600, row.data());
  fill_normal_columns(3, Tensor::v, 9, 301, 77, block.data());
  EXPECT_EQ(std::vector<float>(row.begin() + 301, row.begin() + 378), block);
  ColumnHashes hashes;
  hashes.compute(301, 77);
  std::vector<float> hashed(77);
  fill_normal_hashed(3, Tensor::v, 9, hashes, hashed.data());
  EXPECT_EQ(block, hashed);
}

}  // namespace
}  // namespace attnscale
