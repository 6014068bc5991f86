// The engine's run against the double reference, field by field (shared by the run and the
// logit-scheme tests).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>

#include "config/config.hpp"
#include "engine/attention_engine.hpp"
#include "reference/reference_run.hpp"

namespace attnscale {

inline Config make(int dk, int T, ScaleMode scale = ScaleMode::sqrt) {
  Config c;
  c.dk = dk;
  c.seqLen = T;
  c.scaleMode = scale;
  c.blockSize = std::min(c.blockSize, T);
  return c;
}

inline bool same_double(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

// Tolerances: the engine works in float32 (products summed in fp32 over ≤ 96 terms, fast exp within
// 2 ulp), the reference in double. Relative 2e-5 on statistics of O(1) values covers
// ~sqrt(T·d)·6e-8 accumulated rounding with margin. A weight moves by p·Δz when its logit z
// moves by Δz ≈ √d·6e-8·|z|, so weights get 2e-7·√d·max(1, max|z|) absolute.
inline void expect_close_to_reference(const Config& c) {
  AttentionEngine engine;
  const RunResult got = engine.run(c);
  const ReferenceResult want = reference_run(c, reference_inputs(c));
  const auto& g = got.stats;
  const auto& w = want.stats;
  auto near = [](double a, double b, double rel) {
    return std::fabs(a - b) <= rel * std::max(1.0, std::fabs(b));
  };
  for (const auto& f : scalar_fields()) {
    const double a = f.get(g), b = f.get(w);
    if (std::isnan(b)) {
      EXPECT_TRUE(std::isnan(a)) << f.name;
      continue;
    }
    // The median can fall between two rows whose norms differ by float noise; allow 1e-4 there.
    const double rel = std::string(f.name) == "jacobianNormMedian" ? 1e-4 : 2e-5;
    EXPECT_TRUE(near(a, b, rel)) << f.name << ": engine " << a << " vs reference " << b
                                 << " dk=" << c.dk << " T=" << c.seqLen;
  }
  double worst = 0;
  for (std::size_t i = 0; i < want.attention.size(); ++i)
    worst = std::max(worst, std::fabs(got.attention[i] - want.attention[i]));
  const double zmax = std::max({1.0, std::fabs(w.logitMax), std::fabs(w.logitMin)});
  EXPECT_LT(worst, 2e-7 * std::sqrt(static_cast<double>(c.dk)) * zmax);
}

// Central differences of the reference's L(Q, K) = Σ O ⊙ G in double, step 1e-5, at every
// `stride`-th entry of Q and K: truncation error O(h²) ~ 1e-10, so the analytic gradient must agree
// to 1e-6 relative (plus 1e-9 absolute for tiny entries).
inline void expect_reference_gradients_match_finite_differences(const Config& c,
                                                                std::size_t stride) {
  const ReferenceInputs in = reference_inputs(c);
  const ReferenceResult base = reference_run(c, in);
  auto loss = [&](const ReferenceInputs& x) {
    const ReferenceResult r = reference_run(c, x);
    double L = 0;
    for (std::size_t i = 0; i < r.output.size(); ++i) L += r.output[i] * x.g[i];
    return L;
  };
  const double h = 1e-5;
  for (std::size_t idx = 0; idx < in.q.size(); idx += stride)
    for (int which = 0; which < 2; ++which) {
      ReferenceInputs plus = in, minus = in;
      (which == 0 ? plus.q : plus.k)[idx] += h;
      (which == 0 ? minus.q : minus.k)[idx] -= h;
      const double numeric = (loss(plus) - loss(minus)) / (2 * h);
      const double analytic = (which == 0 ? base.gradQ : base.gradK)[idx];
      EXPECT_NEAR(analytic, numeric, 1e-6 * std::fabs(numeric) + 1e-9)
          << (which ? "K" : "Q") << idx << " qkNorm=" << qk_norm_name(c.qkNorm)
          << " softcap=" << c.softcap << " lengthScale=" << c.lengthScale;
    }
}

}  // namespace attnscale
