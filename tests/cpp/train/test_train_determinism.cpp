// Determinism of the trainer: same settings + seed -> the same bits.
#include <gtest/gtest.h>

#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include "fnv_hash.hpp"
#include "train/train.hpp"

using attnscale::kTrainMetrics;
using attnscale::TrainConfig;
using attnscale::Trainer;

namespace {

struct Curves {
  std::vector<std::int32_t> steps;
  std::vector<double> metrics;
};

Curves run(Trainer& t, int n) {
  Curves r;
  r.steps.resize(n);
  r.metrics.resize(static_cast<std::size_t>(t.copies()) * kTrainMetrics * n);
  t.step(n, r.steps.data(), r.metrics.data());
  return r;
}

bool same_bits(const void* a, const void* b, std::size_t bytes) {
  return std::memcmp(a, b, bytes) == 0;
}

template <class T>
bool same_bits(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() && same_bits(a.data(), b.data(), a.size() * sizeof(T));
}

void expect_same_state(const Trainer& a, const Trainer& b) {
  ASSERT_EQ(a.copies(), b.copies());
  for (int c = 0; c < a.copies(); ++c) {
    EXPECT_TRUE(same_bits(a.attention(c), b.attention(c))) << c;
    const auto pa = a.params(c), pb = b.params(c);
    EXPECT_TRUE(same_bits(*pa.E, *pb.E));
    EXPECT_TRUE(same_bits(*pa.Wq, *pb.Wq));
    EXPECT_TRUE(same_bits(*pa.Wk, *pb.Wk));
    EXPECT_TRUE(same_bits(*pa.Wv, *pb.Wv));
    EXPECT_TRUE(same_bits(*pa.Wo, *pb.Wo));
  }
}

// The hash of the first six metrics of every copy (loss … gradNormWk) in the layout they had
// alone, copy by copy: the golden hashes predate maxLogit, minRowEntropy and entropyFloor, whose
// values come after them in each copy's block, and still hold.
constexpr int kFirstMetrics = 6;
std::uint64_t fnv_first_metrics(std::uint64_t h, const Curves& r, int copies, int n) {
  for (int c = 0; c < copies; ++c)
    h = fnv(h, &r.metrics[static_cast<std::size_t>(c) * kTrainMetrics * n],
            static_cast<std::size_t>(kFirstMetrics) * n * sizeof(double));
  return h;
}

}  // namespace

TEST(TrainDeterminism, TwoRunsAreBitIdentical) {
  TrainConfig c;
  c.dk = 24, c.seqLen = 20, c.batchSize = 6, c.seed = 42, c.hasCustom = true, c.customScale = 0.3;
  for (auto opt : {attnscale::Optimizer::adam, attnscale::Optimizer::sgd}) {
    c.optimizer = opt;
    c.learningRate = opt == attnscale::Optimizer::adam ? 1e-3 : 0.5;
    Trainer a(c), b(c);
    const Curves ra = run(a, 30), rb = run(b, 30);
    EXPECT_TRUE(same_bits(ra.metrics, rb.metrics));
    EXPECT_TRUE(same_bits(ra.steps, rb.steps));
    expect_same_state(a, b);
  }
  // with precision emulation too
  c.optimizer = attnscale::Optimizer::adam;
  c.format.precision = attnscale::Precision::fp16;
  Trainer a(c), b(c);
  EXPECT_TRUE(same_bits(run(a, 10).metrics, run(b, 10).metrics));
  expect_same_state(a, b);
}

TEST(TrainDeterminism, ResetReplaysAndChunkingDoesNotMatter) {
  TrainConfig c;
  c.dk = 16, c.seqLen = 16, c.batchSize = 4;
  Trainer t(c);
  const Curves first = run(t, 20);
  t.reset();
  EXPECT_EQ(t.steps_done(), 0);
  Curves again = run(t, 7);
  const Curves rest = run(t, 13);
  EXPECT_EQ(rest.steps[0], 8);
  // re-assemble the chunked layout into one 20-step layout
  std::vector<double> joined(first.metrics.size());
  for (int r = 0; r < t.copies() * kTrainMetrics; ++r) {
    for (int s = 0; s < 7; ++s) joined[r * 20 + s] = again.metrics[r * 7 + s];
    for (int s = 0; s < 13; ++s) joined[r * 20 + 7 + s] = rest.metrics[r * 13 + s];
  }
  EXPECT_TRUE(same_bits(first.metrics, joined));
}

// Same initialisation and same batches for every copy: a custom multiplier equal to 1/sqrt(d_k)
// (0.125 at d_k 64, exact) reproduces the sqrt copy bit for bit, step after step.
TEST(TrainDeterminism, CopiesShareInitialisationAndBatches) {
  TrainConfig c;
  c.hasCustom = true;
  c.customScale = 0.125;
  c.batchSize = 4;
  Trainer t(c);
  for (int k = 1; k < t.copies(); ++k) EXPECT_TRUE(same_bits(*t.params(0).Wq, *t.params(k).Wq));
  const int n = 15;
  const Curves r = run(t, n);
  const std::size_t block = static_cast<std::size_t>(kTrainMetrics) * n;
  EXPECT_TRUE(same_bits(&r.metrics[1 * block], &r.metrics[3 * block], block * sizeof(double)));
  EXPECT_FALSE(same_bits(&r.metrics[0 * block], &r.metrics[1 * block], block * sizeof(double)));
  EXPECT_TRUE(same_bits(t.attention(t.copy_index("sqrt")), t.attention(t.copy_index("custom"))));
}

// Golden values of the default config (d_k 64, T 32, batch 16, Adam 1e-3, initScale 1, fp32,
// seed 1) after 50 steps. The same bits came out of em++ builds of this library run in Node 20,
// with wasm SIMD (-msimd128 -msse4.1) and without (scalar): the curves are identical natively and
// in wasm, not merely close. A JS test can assert the same numbers.
TEST(TrainDeterminism, GoldenValuesSharedWithWasm) {
  Trainer t(TrainConfig{});
  const int n = 50;
  const Curves r = run(t, n);
  const std::size_t block = static_cast<std::size_t>(kTrainMetrics) * n;
  const double sqrtLoss50 = r.metrics[1 * block + 0 * n + n - 1];
  const double noneAcc50 = r.metrics[0 * block + 1 * n + n - 1];
  std::uint64_t h = 1469598103934665603ULL;
  h = fnv_first_metrics(h, r, t.copies(), n);
  for (int c = 0; c < t.copies(); ++c) {
    const auto a = t.attention(c);
    h = fnv(h, a.data(), a.size() * sizeof(float));
    const auto p = t.params(c);
    for (const auto* v : {p.E, p.Wq, p.Wk, p.Wv, p.Wo})
      h = fnv(h, v->data(), v->size() * sizeof(float));
  }
  std::printf("[ golden ] sqrt loss@50 %.17g  none accuracy@50 %.17g  hash %016" PRIx64 "\n",
              sqrtLoss50, noneAcc50, h);
  EXPECT_EQ(sqrtLoss50, 2.7568238181718967);
  EXPECT_EQ(noneAcc50, 0.06640625);
  EXPECT_EQ(h, 0xdb59bec7cc18fcdaULL);
}

namespace {

// The five newer schemes of the training findings (docs/science.md), as CopySpec aggregates:
// { name, scaleMode, customScale, qkNorm, softcap, lengthScale }.
std::vector<attnscale::CopySpec> newer_schemes() {
  using attnscale::QkNorm;
  using attnscale::ScaleMode;
  return {{"rms", ScaleMode::sqrt, 1.0, QkNorm::rms, 0, 0},
          {"layer", ScaleMode::sqrt, 1.0, QkNorm::layer, 0, 0},
          {"cap5", ScaleMode::none, 1.0, QkNorm::none, 5, 0},
          {"cap50", ScaleMode::none, 1.0, QkNorm::none, 50, 0},
          {"logn", ScaleMode::sqrt, 1.0, QkNorm::none, 0, 0.43}};
}

}  // namespace

// Listing the default copies explicitly trains exactly what the defaults train.
TEST(TrainDeterminism, ExplicitDefaultCopiesAreTheDefaults) {
  TrainConfig plain;
  plain.hasCustom = true;
  plain.customScale = 0.3;
  TrainConfig listed;
  listed.copies = attnscale::resolved_copies(plain);
  ASSERT_EQ(listed.copies.size(), 4u);
  Trainer a(plain), b(listed);
  ASSERT_EQ(b.error(), "");
  const Curves ra = run(a, 12), rb = run(b, 12);
  EXPECT_TRUE(same_bits(ra.metrics, rb.metrics));
  expect_same_state(a, b);
}

// Golden values of the newer schemes (QK-norm with learnable gains, soft-caps, s ln T), shared
// with wasm like the defaults' golden values: tests/js/engine/train.test.js asserts the same
// numbers in the SIMD and the scalar build.
TEST(TrainDeterminism, NewerSchemesGoldenValuesSharedWithWasm) {
  TrainConfig c;
  c.copies = newer_schemes();
  Trainer t(c);
  ASSERT_EQ(t.error(), "");
  const int n = 20;
  const Curves r = run(t, n);
  std::uint64_t h = 1469598103934665603ULL;
  h = fnv_first_metrics(h, r, t.copies(), n);
  for (int k = 0; k < t.copies(); ++k) {
    const auto a = t.attention(k);
    h = fnv(h, a.data(), a.size() * sizeof(float));
    const auto p = t.params(k);
    for (const auto* v : {p.E, p.Wq, p.Wk, p.Wv, p.Wo, p.gq, p.gk})
      h = fnv(h, v->data(), v->size() * sizeof(float));
  }
  const std::size_t block = static_cast<std::size_t>(kTrainMetrics) * n;
  const double rmsLoss = r.metrics[0 * block + 0 * n + n - 1];
  const double cap5Loss = r.metrics[2 * block + 0 * n + n - 1];
  const double lognEntropy = r.metrics[4 * block + 2 * n + n - 1];
  std::printf(
      "[ golden ] rms loss@20 %.17g  cap5 loss@20 %.17g  logn entropy@20 %.17g  hash %016" PRIx64
      "\n",
      rmsLoss, cap5Loss, lognEntropy, h);
  EXPECT_EQ(rmsLoss, 2.8190186985654404);
  EXPECT_EQ(cap5Loss, 2.8305303774080497);
  EXPECT_EQ(lognEntropy, 2.7899671192517985);
  EXPECT_EQ(h, 0x5f1c96d7822cf68dULL);
  // the QK-norm gains moved away from 1 (they are trained)
  EXPECT_NE((*t.params(0).gq)[0], 1.0f);
}
