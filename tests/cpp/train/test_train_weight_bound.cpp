// The trainer's weightBound (train.hpp, weight_bound.hpp): the spectral-norm bound against a double
// Jacobi eigensolver, and the metric against the logits recomputed in double at every step of every
// copy over a few hundred steps of several configs.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "copy_spec.hpp"
#include "logits_double.hpp"
#include "train/model/model.hpp"
#include "train/model/weight_bound.hpp"
#include "train/train.hpp"

using attnscale::kTrainMetrics;
using attnscale::QkNorm;
using attnscale::ScaleMode;
using attnscale::TrainConfig;
using attnscale::Trainer;
using attnscale::TrainMetric;

namespace {

using Mat = std::vector<double>;

// Eigenvalues of a symmetric n x n matrix (cyclic Jacobi rotations until the off-diagonal part is
// below 1e-15 of the norm), in double.
std::vector<double> jacobi_eigenvalues(Mat a, int n) {
  auto at = [&](int i, int j) -> double& { return a[static_cast<std::size_t>(i) * n + j]; };
  for (int sweep = 0; sweep < 100; ++sweep) {
    double off = 0.0, all = 0.0;
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j) (i == j ? all : off) += at(i, j) * at(i, j);
    if (off <= 1e-30 * (all + off)) break;
    for (int p = 0; p < n; ++p)
      for (int q = p + 1; q < n; ++q) {
        if (at(p, q) == 0.0) continue;
        const double theta = (at(q, q) - at(p, p)) / (2.0 * at(p, q));
        const double t =
            (theta >= 0 ? 1.0 : -1.0) / (std::fabs(theta) + std::sqrt(theta * theta + 1));
        const double c = 1.0 / std::sqrt(t * t + 1), s = t * c;
        for (int k = 0; k < n; ++k) {  // columns p, q
          const double kp = at(k, p), kq = at(k, q);
          at(k, p) = c * kp - s * kq, at(k, q) = s * kp + c * kq;
        }
        for (int k = 0; k < n; ++k) {  // rows p, q
          const double pk = at(p, k), qk = at(q, k);
          at(p, k) = c * pk - s * qk, at(q, k) = s * pk + c * qk;
        }
      }
  }
  std::vector<double> ev(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) ev[static_cast<std::size_t>(i)] = at(i, i);
  return ev;
}

// ||W_q W_k^T||_2 in double: the square root of G = M^T M's largest eigenvalue.
double exact_spectral_norm(const std::vector<float>& Wq, const std::vector<float>& Wk, int D,
                           int dk) {
  Mat M(static_cast<std::size_t>(D) * D, 0.0), G(M.size(), 0.0);
  for (int i = 0; i < D; ++i)
    for (int j = 0; j < D; ++j)
      for (int d = 0; d < dk; ++d)
        M[static_cast<std::size_t>(i) * D + j] +=
            static_cast<double>(Wq[static_cast<std::size_t>(i) * dk + d]) *
            Wk[static_cast<std::size_t>(j) * dk + d];
  for (int i = 0; i < D; ++i)
    for (int j = 0; j < D; ++j)
      for (int k = 0; k < D; ++k)
        G[static_cast<std::size_t>(i) * D + j] +=
            M[static_cast<std::size_t>(k) * D + i] * M[static_cast<std::size_t>(k) * D + j];
  const std::vector<double> ev = jacobi_eigenvalues(G, D);
  return std::sqrt(*std::max_element(ev.begin(), ev.end()));
}

double bound_of(const std::vector<float>& Wq, const std::vector<float>& Wk, int D, int dk,
                int squarings) {
  std::vector<float> WkT(Wk.size()), scratch(3 * static_cast<std::size_t>(D) * D);
  for (int i = 0; i < D; ++i)
    for (int d = 0; d < dk; ++d)
      WkT[static_cast<std::size_t>(d) * D + i] = Wk[static_cast<std::size_t>(i) * dk + d];
  return attnscale::train::qk_spectral_bound(Wq.data(), WkT.data(), D, dk, squarings,
                                             scratch.data());
}

// Float32 rounding of the products (weight_bound.hpp): the bound may sit this far below the
// norm of the exact product of the float weights. Measured worst: printed below.
constexpr double kRounding = 1e-5;

void expect_spectral_bound(const std::vector<float>& Wq, const std::vector<float>& Wk, int dk,
                           const std::string& what) {
  const int D = attnscale::kModelDim;
  const double exact = exact_spectral_norm(Wq, Wk, D, dk);
  std::printf("[ spectral ] %-28s ||M||_2 %.6g  bound/norm:", what.c_str(), exact);
  for (int q = 1; q <= 4; ++q) {
    const double b = bound_of(Wq, Wk, D, dk, q);
    std::printf("  q=%d %.4f", q, b / exact);
    EXPECT_GE(b, exact * (1.0 - kRounding)) << what << " squarings " << q;
    EXPECT_LE(b, exact * std::pow(D, 1.0 / (1 << (q + 2))) * (1.0 + kRounding)) << what;
  }
  std::printf("\n");
}

}  // namespace

TEST(TrainWeightBound, SpectralBoundIsAnUpperBoundWithinItsFactor) {
  const int D = attnscale::kModelDim;
  for (int dk : {1, 4, 16, 64, 256}) {
    std::vector<float> Wq(static_cast<std::size_t>(D) * dk), Wk(Wq.size());
    for (std::size_t i = 0; i < Wq.size(); ++i) {
      Wq[i] = static_cast<float>(attnscale::train::normal_at(7, 1, i) / 8.0);
      Wk[i] = static_cast<float>(attnscale::train::normal_at(7, 2, i) / 8.0);
    }
    expect_spectral_bound(Wq, Wk, dk, "random d_k " + std::to_string(dk));
  }
  // trained weights: 1/sqrt(d_k) at a high rate, where one direction grows
  TrainConfig c;
  c.learningRate = 0.03, c.batchSize = 4;
  c.copies = {spec("sqrt", ScaleMode::sqrt)};
  Trainer t(c);
  for (int round = 0; round < 3; ++round) {
    t.step(100, nullptr, nullptr);
    expect_spectral_bound(*t.params(0).Wq, *t.params(0).Wk, c.dk,
                          "trained lr 0.03, step " + std::to_string(100 * (round + 1)));
  }
  std::vector<float> zero(static_cast<std::size_t>(D) * 8, 0.0f), bad = zero;
  EXPECT_EQ(bound_of(zero, zero, D, 8, 3), 0.0);
  bad[5] = NAN;
  EXPECT_TRUE(std::isnan(bound_of(bad, zero, D, 8, 3)));
}

namespace {

// At every step and copy, from the parameters before the step and its batch in double: weightBound
// >= every |logit| before the soft-cap (so >= maxLogit, which the cap only lowers), and
// weightBound * sqrt(T) >= the largest centred row norm sigma_max (||z - mean z|| <= ||z|| <=
// sqrt(T) max |z|). Prints how close each came, and whether weightBound >= sigma_max held, which
// is no theorem (half of a row's logits at +b and half at -b have sigma = sqrt(T) b).
void expect_bound_holds(const TrainConfig& cfg, int steps, const char* what) {
  Trainer t(cfg);
  ASSERT_EQ(t.error(), "");
  const int T = cfg.seqLen, nc = t.copies();
  const double rootT = std::sqrt(static_cast<double>(T));
  std::vector<double> m(static_cast<std::size_t>(nc) * kTrainMetrics);
  std::vector<double> closestLogit(static_cast<std::size_t>(nc), INFINITY),
      closestSigma(closestLogit);
  std::vector<int> sigmaAbove(static_cast<std::size_t>(nc), 0);
  attnscale::train::Batch batch;
  for (int s = 0; s < steps; ++s) {
    attnscale::train::make_batch(cfg.seed, 1, static_cast<std::uint64_t>(s), cfg.batchSize, T,
                                 attnscale::kValueTokens, batch);
    std::vector<double> maxAbs(static_cast<std::size_t>(nc), 0.0), sigma(maxAbs);
    for (int c = 0; c < nc; ++c)
      for (int e = 0; e < cfg.batchSize; ++e) {
        const Mat pre = attnscale::test::logits_double(t.params(c), batch, e, T, cfg.dk,
                                                       t.logit_scale(c), t.copy_spec(c), false);
        const Mat z = attnscale::test::logits_double(t.params(c), batch, e, T, cfg.dk,
                                                     t.logit_scale(c), t.copy_spec(c));
        for (int i = 0; i < T; ++i) {
          double mean = 0.0, ss = 0.0;
          for (int j = 0; j < T; ++j) mean += z[static_cast<std::size_t>(i) * T + j] / T;
          for (int j = 0; j < T; ++j) {
            const double d = z[static_cast<std::size_t>(i) * T + j] - mean;
            ss += d * d;
            maxAbs[c] = std::max(maxAbs[c], std::fabs(pre[static_cast<std::size_t>(i) * T + j]));
          }
          sigma[c] = std::max(sigma[c], std::sqrt(ss));
        }
      }
    t.step(1, nullptr, m.data());
    for (int c = 0; c < nc; ++c) {
      const double bound = m[static_cast<std::size_t>(c) * kTrainMetrics +
                             static_cast<int>(TrainMetric::weightBound)];
      const double maxLogit =
          m[static_cast<std::size_t>(c) * kTrainMetrics + static_cast<int>(TrainMetric::maxLogit)];
      const std::string where = t.copy_spec(c).name + " step " + std::to_string(s + 1);
      ASSERT_TRUE(std::isfinite(bound)) << where;
      EXPECT_GE(bound, maxAbs[c] * (1.0 - kRounding)) << where;
      EXPECT_GE(bound, maxLogit * (1.0 - kRounding)) << where;
      EXPECT_GE(bound * rootT, sigma[c] * (1.0 - kRounding)) << where;
      closestLogit[c] = std::min(closestLogit[c], bound / maxAbs[c]);
      closestSigma[c] = std::min(closestSigma[c], bound / sigma[c]);
      sigmaAbove[c] += bound >= sigma[c];
    }
  }
  for (int c = 0; c < nc; ++c)
    std::printf(
        "[ weightBound ] %-30s %-10s min bound/max|z| %6.3f  min bound/sigma_max %6.3f  "
        "bound >= sigma_max at %d of %d steps\n",
        what, t.copy_spec(c).name.c_str(), closestLogit[c], closestSigma[c], sigmaAbove[c], steps);
}

}  // namespace

TEST(TrainWeightBound, BoundsEveryLogitAtEveryStep) {
  TrainConfig c;
  c.dk = 16, c.seqLen = 16, c.batchSize = 4, c.learningRate = 1e-2;
  expect_bound_holds(c, 300, "none/sqrt/linear, adam 1e-2");
  c = TrainConfig{};
  c.dk = 16, c.seqLen = 12, c.batchSize = 4, c.initScale = 2.0;
  c.copies = {spec("none", ScaleMode::none),
              spec("rms", ScaleMode::sqrt, QkNorm::rms),
              spec("layer", ScaleMode::sqrt, QkNorm::layer),
              spec("cap5", ScaleMode::none, QkNorm::none, 5.0),
              spec("cap50", ScaleMode::none, QkNorm::none, 50.0),
              spec("logn", ScaleMode::sqrt, QkNorm::none, 0.0, 0.43)};
  expect_bound_holds(c, 200, "six schemes, initScale 2");
  c = TrainConfig{};
  c.optimizer = attnscale::Optimizer::sgd, c.learningRate = 2.0, c.batchSize = 4;
  expect_bound_holds(c, 100, "sgd 2.0 (rows collapse)");
  c = TrainConfig{};
  c.batchSize = 4, c.learningRate = 0.1;
  c.schedule = attnscale::LrSchedule::warmupCosine, c.scheduleSteps = 200;
  c.copies = {spec("sqrt", ScaleMode::sqrt), spec("layer_sqrt", ScaleMode::sqrt, QkNorm::layer)};
  expect_bound_holds(c, 200, "warmup-cosine 0.1, 200 steps");
}
