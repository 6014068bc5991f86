// The lowest entropy a softmax row can have for a given spread of its logits (Zhai et al. 2023,
// "Stabilizing Transformer Training by Preventing Attention Entropy Collapse", Theorem 3.1, in the
// form docs/science.md derives and checks: "The entropy floor").
#pragma once

namespace attnscale {

// For T logits z whose centred norm ‖z − mean(z)‖₂ is at most σ, the entropy (nats) of softmax(z)
// is at least
//   B(T, σ) = ln(1 + (T−1)β) + σ√(T(T−1))·β / (1 + (T−1)β),   β = exp(−σ√(T/(T−1))),
// with equality for one logit σ√(T/(T−1)) above T−1 equal ones. B(T, 0) = ln T, B decreases in σ
// towards 0, and B(1, σ) = 0. NaN for T < 1, σ < 0 or NaN; 0 for σ = +inf.
// Built from IEEE + − × ÷ √ and exact power-of-two scalings only (no libm exp or log, which round
// differently in glibc and Emscripten's musl): the same bits natively and in both wasm builds.
// Relative error below 1e-14 against a long-double evaluation (tests/cpp/stats).
double entropy_lower_bound(double seqLen, double sigma);

}  // namespace attnscale
