// Gradient checks of the trainer, for every logit scheme.
//  * The double reference's analytic gradient of every parameter against central finite
//    differences of its own loss, for each logit scheme: the three scalings and a custom one,
//    QK-norm (rms, layer, with its gains), soft-caps and the length factor.
//  * The optimized float32 forward/backward against the double reference, for the same schemes.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <vector>

#include "reference/reference_train.hpp"
#include "train/model/model.hpp"
#include "train/train.hpp"

namespace {

using attnscale::train::Batch;
using attnscale::train::Dims;
using attnscale::train::Params;

using attnscale::QkNorm;
using attnscale::train::kParamTensors;
using attnscale::train::LogitSpec;

Params<double> to_double(const Params<float>& p) {
  Params<double> d;
  d.resize(p.dims, !p.gq.empty());
  for (int t = 0; t < kParamTensors; ++t)
    for (std::size_t i = 0; i < p.tensor(t).size(); ++i) d.tensor(t)[i] = p.tensor(t)[i];
  return d;
}

const char* kTensorNames[kParamTensors] = {"E", "Wq", "Wk", "Wv", "Wo", "gq", "gk"};

struct Scheme {
  const char* name;
  LogitSpec spec;
};

// Every way a copy can form its logits, each factor on its own and in the combinations the
// findings use. The soft-caps are small enough (0.5, 2) that tanh really bends the logits here.
std::vector<Scheme> schemes(int dk, int T) {
  const double sqrtScale = 1.0 / std::sqrt(static_cast<double>(dk));
  const double lnT = std::log(static_cast<double>(T));
  return {{"none", {1.0, QkNorm::none, 0.0, 0.0}},
          {"sqrt", {sqrtScale, QkNorm::none, 0.0, 0.0}},
          {"linear", {1.0 / dk, QkNorm::none, 0.0, 0.0}},
          {"custom", {0.37, QkNorm::none, 0.0, 0.0}},
          {"rms+sqrt", {sqrtScale, QkNorm::rms, 0.0, 0.0}},
          {"layer+sqrt", {sqrtScale, QkNorm::layer, 0.0, 0.0}},
          {"cap0.5", {1.0, QkNorm::none, 0.5, 0.0}},
          {"cap2", {1.0, QkNorm::none, 2.0, 0.0}},
          {"sqrt+len", {sqrtScale, QkNorm::none, 0.0, 0.43 * lnT}},
          {"all", {sqrtScale, QkNorm::layer, 2.0, 0.43 * lnT}}};
}

// Gains away from 1 (0.5 .. 1.5), so that a wrong gain gradient or a gain missing from the
// forward pass cannot hide behind the initial value.
void perturb_gains(Params<float>& p, const LogitSpec& spec) {
  if (spec.qkNorm == QkNorm::none) {
    p.gq.clear();
    p.gk.clear();
    return;
  }
  const int dk = p.dims.dk;
  p.gq.resize(static_cast<std::size_t>(dk));
  p.gk.resize(static_cast<std::size_t>(dk));
  for (int c = 0; c < dk; ++c) {
    p.gq[static_cast<std::size_t>(c)] = 0.5f + static_cast<float>((c * 7) % 11) / 10.0f;
    p.gk[static_cast<std::size_t>(c)] = 1.5f - static_cast<float>((c * 5) % 11) / 10.0f;
  }
}

}  // namespace

// Central differences with h = 1e-5 on a loss of size ~3 in double: the rounding part of the
// error is ~eps * L / h ~ 1e-11 and the truncation part h^2 * L''' / 6 ~ 1e-10 for the O(1..10)
// third derivatives here, so the tolerance |analytic - numeric| <= 1e-8 + 1e-6 |analytic| keeps a
// wide margin (measured worst: ~1% of it) while any wrong term of the backward pass (errors of
// the size of the gradient, 1e-4..1e-1) fails. Every entry of E, Wq, Wk, Wv, Wo (and the QK-norm
// gains gq, gk) is checked (T 8, d_k 4, d_model 64, batch 2: 2,880 parameters, 2,888 with the
// gains, for each of the ten schemes).
TEST(TrainGrad, ReferenceMatchesFiniteDifferencesEveryParameter) {
  Dims d;
  d.T = 8;
  d.dk = 4;
  d.D = attnscale::kModelDim;
  d.nV = attnscale::kValueTokens;
  Params<float> pf;
  attnscale::train::init_params(d, 1.0, 7u, pf);
  Batch batch;
  attnscale::train::make_batch(7u, 1, 0, 2, d.T, d.nV, batch);
  const double h = 1e-5;
  for (const Scheme& s : schemes(d.dk, d.T)) {
    perturb_gains(pf, s.spec);
    Params<double> p = to_double(pf);
    Params<double> g;
    attnscale::train::reference_loss_and_grad(p, batch, s.spec, &g);
    double worst = 0.0;
    for (int t = 0; t < kParamTensors; ++t) {
      for (std::size_t i = 0; i < p.tensor(t).size(); ++i) {
        double& w = p.tensor(t)[i];
        const double w0 = w;
        w = w0 + h;
        const double lp = attnscale::train::reference_loss_and_grad(p, batch, s.spec, nullptr);
        w = w0 - h;
        const double lm = attnscale::train::reference_loss_and_grad(p, batch, s.spec, nullptr);
        w = w0;
        const double num = (lp - lm) / (2 * h);
        const double ana = g.tensor(t)[i];
        const double err = std::fabs(ana - num);
        worst = std::fmax(worst, err / (1e-8 + 1e-6 * std::fabs(ana)));
        ASSERT_LE(err, 1e-8 + 1e-6 * std::fabs(ana)) << s.name << " " << kTensorNames[t] << "[" << i
                                                     << "] analytic " << ana << " numeric " << num;
      }
    }
    std::printf("[ gradcheck ] %-10s worst error / tolerance = %.3g\n", s.name, worst);
  }
}

// The float32 path (projected tables, SIMD gemm, own exp) against the double reference on the
// same float parameters and batch. Float rounding (eps 6e-8) through sums of <= a few hundred
// terms and a softmax gives relative errors ~1e-6; the stated tolerance is a relative Frobenius
// error <= 2e-4 per gradient tensor and |loss difference| <= 1e-5 (x loss).
TEST(TrainGrad, FloatPathMatchesDoubleReference) {
  struct Case {
    int T, dk, B;
    double initScale;
  };
  const Case cases[] = {{32, 64, 4, 1.0}, {9, 5, 3, 1.0}, {16, 24, 2, 0.5}, {8, 1, 2, 1.5}};
  for (const Case& c : cases) {
    Dims d;
    d.T = c.T;
    d.dk = c.dk;
    d.D = attnscale::kModelDim;
    d.nV = attnscale::kValueTokens;
    Params<float> pf;
    attnscale::train::init_params(d, c.initScale, 3u, pf);
    Batch batch;
    attnscale::train::make_batch(3u, 1, 5, c.B, d.T, d.nV, batch);
    attnscale::train::FloatScratch ws;
    ws.resize(d);
    for (Scheme s : schemes(d.dk, d.T)) {
      // One component normalizes to the constant +-1 (rms) or 0 (layer): its gradient is pure
      // rounding noise in both paths, nothing to compare.
      if (s.spec.qkNorm != QkNorm::none && d.dk == 1) continue;
      perturb_gains(pf, s.spec);
      // The float path multiplies by float32 factors: give the reference the same values.
      s.spec.scale = static_cast<float>(s.spec.scale);
      s.spec.lengthFactor = static_cast<float>(s.spec.lengthFactor);
      Params<float> gf;
      attnscale::train::StepMetrics m;
      attnscale::train::float_loss_and_grad(pf, batch, s.spec, attnscale::Format{}, gf, m, ws);
      Params<double> gd;
      const double loss =
          attnscale::train::reference_loss_and_grad(to_double(pf), batch, s.spec, &gd);
      EXPECT_NEAR(m.loss, loss, 1e-5 * loss) << s.name << " T=" << c.T << " dk=" << c.dk;
      double worst = 0.0;
      for (int t = 0; t < kParamTensors; ++t) {
        if (gd.tensor(t).empty()) continue;
        double num = 0.0, den = 0.0;
        for (std::size_t i = 0; i < gd.tensor(t).size(); ++i) {
          const double diff = gf.tensor(t)[i] - gd.tensor(t)[i];
          num += diff * diff;
          den += gd.tensor(t)[i] * gd.tensor(t)[i];
        }
        const double rel = std::sqrt(num / den);
        worst = std::fmax(worst, rel);
        EXPECT_LE(rel, 2e-4) << s.name << " " << kTensorNames[t] << " T=" << c.T << " dk=" << c.dk;
      }
      std::printf("[ float/dbl ] T=%-3d dk=%-3d %-10s worst relative error %.2e\n", c.T, c.dk,
                  s.name, worst);
      // the reported norms are the norms of these gradients
      double nq = 0.0, nk = 0.0;
      for (float v : gf.Wq) nq += static_cast<double>(v) * v;
      for (float v : gf.Wk) nk += static_cast<double>(v) * v;
      EXPECT_DOUBLE_EQ(m.gradNormWq, std::sqrt(nq));
      EXPECT_DOUBLE_EQ(m.gradNormWk, std::sqrt(nk));
    }
  }
}
