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

}  // namespace attnscale
