// The σ of raw logits q·k that the sampling model predicts, over the visible (query, key) pairs.
#pragma once

namespace attnscale {

// Components are N(μ, σ²); q_t,i and k_t,i of the same token are correlated with ρ; all else is
// independent. For a pair of different tokens, q·k = Σ_i q_i k_i has
//   mean d μ²,            variance d (σ⁴ + 2 μ² σ²);
// for a token with itself (the diagonal),
//   mean d (μ² + ρσ²),    variance d (σ⁴(1 + ρ²) + 2 μ² σ² (1 + ρ)).
// The σ over all visible pairs is that of the mixture (diagonal share 1/T, or 2/(T+1) causal).
// With μ = 0, σ = 1, ρ = 0 it is √d.
double raw_logit_std_theory(int dk, int seqLen, bool causal, double mean, double std,
                            double correlation);

}  // namespace attnscale
