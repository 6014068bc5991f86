// Estimators of the sweep's statistics from a sample of r of the T query rows, and their standard
// errors (W. G. Cochran, Sampling Techniques, 3rd ed., 1977: the § below).
//
// The design (estimate_rows): a systematic sample with one random start, row
//   i_j = ⌊(j + u)·T/r⌋,  j = 0 … r − 1,  u uniform in [0, 1)
// drawn from the seed's hash. It is stratified (one row in each of the r strata [jT/r, (j+1)T/r))
// and every row has the same inclusion probability r/T (the interval of u that picks a row has
// length r/T, up to u's 2^-32 grid), so the sample sum times T/r is unbiased for the total over
// all T rows whatever the rows' values (Horvitz–Thompson), causal trend included. The rows are a
// pure function of (T, r, seed), so a config always gets the same rows.
//
// Variance: one systematic sample has no unbiased variance estimator of its own (§8.11); we use
// the simple random sample's, v(ȳ) = (1 − f)·s²/r with f = r/T and s² the sample variance of the
// per-row values (§2.4–2.5). Without `causal` the rows are i.i.d. given K and V, a population in
// random order, where systematic and simple random sampling have the same variance on average
// (§8.5); with `causal` a row's value trends with the keys it sees (i + 1), and under a linear
// trend the systematic sample is the more precise (§8.6), so the formula errs on the safe side.
#pragma once

#include <vector>

namespace attnscale {

struct Estimate {
  double value = 0;
  double se = 0;  // standard error; 0 when the value is exact
};

// Ratio of totals Σy/Σx over all T rows (a mean over the visible entries: y a row's sum, x its
// count): the ratio estimator R̂ = Σ_S y / Σ_S x, with the linearized variance (§6.3–6.4)
//   v(R̂) = (1 − f)/(r x̄²) · Σ_S (y_i − R̂ x_i)²/(r − 1).
// Consistent; its bias is O(1/r): |bias|/SE ≤ CV(x̄) = CV(x)·√((1 − f)/r) (§6.8), at most
// 0.58/√r here (causal rows' counts i + 1 have CV ≈ 1/√3; without `causal` every count is T).
Estimate ratio_estimate(const std::vector<double>& y, const std::vector<double>& x, int population);

// Mean μ and population σ = √(E[z²] − E[z]²) of the finite entries pooled over all rows, from each
// sampled row's count n_i, sum A_i and squares C_i = Σ_j (z_ij − μ̂)² around the pooled sample
// mean μ̂ = ΣA/Σn. μ as a ratio (above); σ by the delta method on σ² = ΣB/Σn − μ² (B_i = Σ z²):
// the linearized residual of row i is ((B_i − m₂n_i) − 2μ(A_i − μn_i))/(2σ) = (C_i − σ̂²n_i)/(2σ̂),
// so v(σ̂) = (1 − f)/(r n̄²) · Σ_S (C_i − σ̂² n_i)² / ((r − 1)·4σ̂²). Bias O(1/r), as for a ratio.
struct MomentEstimates {
  Estimate mean, std;
};
MomentEstimates moment_estimates(const std::vector<double>& count, const std::vector<double>& sum,
                                 const std::vector<double>& squares, int population);

// A mean over rows of y whose value depends on whether the row's softmax is saturated (largest
// weight > 0.99): entropy, largest weight, Jacobian norm. As the softmax saturates, the rows'
// values pile up at their bound (0 nats, a weight of 1) and the mean is carried by the few rows
// that are not saturated; a sample with none of them has a sample variance near 0 (1e-24 nats)
// and would claim certainty. So the variance is that of the mean post-stratified on the two kinds
// (§5A.9), with the kinds' shares by Agresti–Coull as in share_estimate, p̃ = (n_sat + 2)/(n + 4):
//   v = (1 − f)·[Σ_h Σ_{i∈h} (y_i − ȳ_h)²/((n − 1)·n) + p̃(1 − p̃)·Δ²/(n + 4)],  Δ = ȳ_sat − ȳ_unsat.
// A sample whose rows are all saturated takes Δ = unsaturatedFar − ȳ_sat, unsaturatedFar being
// the value farthest from saturation a row can take; one with a single unsaturated row adds that
// row's unknown spread, ((unsaturatedFar − ȳ_sat)/2)², at its share 3/(n + 4). A sample with no
// saturated row gets no such term: its values lie inside their range, where a row's largest
// weight varies smoothly with its logits' spread and the sample variance shows how far the
// population reaches (the plain s²/n). The value is the plain mean of y over the rows with use[i].
Estimate saturation_mean_estimate(const std::vector<double>& y, const std::vector<char>& use,
                                  const std::vector<char>& saturated, double unsaturatedFar,
                                  int population);

// A share k/n of `trials` sampled rows (all r, or the finite ones) with a property. The value is
// the sample share; the SE is Agresti–Coull's, √((1 − f) p̃(1 − p̃)/(n + 4)) with
// p̃ = (k + 2)/(n + 4) (A. Agresti, B. A. Coull, Am. Stat. 52, 1998), instead of √(p̂(1 − p̂)/n),
// which is 0 when the sample shows all or none of the rows saturated and would claim the exact
// share with certainty.
Estimate share_estimate(double successes, double trials, int sampleRows, int population);

}  // namespace attnscale
