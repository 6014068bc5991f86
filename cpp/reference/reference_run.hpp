// The plain reference of AttentionEngine::run: scalar loops, double precision throughout (with
// the format's rounding applied at the same stages when a low precision is configured). Tests
// compare the SIMD engine against it; it is never used by the page.
#pragma once

#include <vector>

#include "config/config.hpp"
#include "engine/run_result.hpp"

namespace attnscale {

struct ReferenceInputs {
  int seqLen = 0, dk = 0;
  std::vector<double> q, k, v, g;  // T×d each, as the engine samples and rounds them
};

ReferenceInputs reference_inputs(const Config& c);

struct ReferenceResult {
  RunStats stats;
  std::vector<double> attention;     // T×T
  std::vector<double> output;        // T×d
  std::vector<double> gradQ, gradK;  // T×d
  std::vector<double> rowEntropy, rowMaxWeight, rowJacobianNorm;
  std::vector<double> rawLogits, normLogits, logits;  // T×T: round(q·k), round(q̂·k̂) and z
};

ReferenceResult reference_run(const Config& c, const ReferenceInputs& in);

// ‖diag(p) − ppᵀ‖_F by building the matrix (for tests of the closed form; O(n²)).
double reference_jacobian_norm_explicit(const std::vector<double>& p);

}  // namespace attnscale
