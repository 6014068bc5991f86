// The backward steps of one scaling: dS, then the gradient norms ‖dQ‖ and ‖dK‖ from the T × d_k
// products or, for d_k >= T, from the Gram matrices; and the gradient norms they give.
#include <algorithm>
#include <cmath>
#include <limits>

#include "engine/point_job/point_job.hpp"
#include "gemm/gemm.hpp"
#include "gemm/panel_gemm.hpp"
#include "kernels/qk_norm.hpp"
#include "kernels/softmax_row.hpp"
#include "simd/batch.hpp"

namespace attnscale {

namespace {

// Adds the count of exact zeros and of inf/NaN among x[0 … n) (per-lane counts in float are exact
// below 2^24 per lane: n <= 2048).
void count_zeros(const float* x, int n, std::uint64_t& zeros, std::uint64_t& nonFinite) {
  constexpr int W = static_cast<int>(simd::W);
  const simd::vf one(1.0f), none(0.0f);
  simd::vf z(0.0f), bad(0.0f);
  int j = 0;
  for (; j + W <= n; j += W) {
    const simd::vf v = simd::loadu(x + j);
    z = z + simd::select(v == none, one, none);
    bad = bad + simd::select(simd::isnan(v - v), one, none);
  }
  zeros += static_cast<std::uint64_t>(simd::reduce_add(z));
  nonFinite += static_cast<std::uint64_t>(simd::reduce_add(bad));
  for (; j < n; ++j) {
    zeros += x[j] == 0.0f ? 1 : 0;
    nonFinite += std::isfinite(x[j]) ? 0 : 1;
  }
}

// Σ x² in double, in index order (so row blocks summed one after another give the same bits as
// one pass over the whole matrix).
double sum_squares(const float* x, std::size_t n) {
  double sum = 0;
  for (std::size_t i = 0; i < n; ++i) sum += static_cast<double>(x[i]) * x[i];
  return sum;
}

// Σ_{j in rows, l <= j} w_jl · gram_jl · m_jl with w = 2 below the diagonal and 1 on it: the
// rows' share of ⟨gram, m⟩ for symmetric gram and m, from their lower triangles. `m` holds rows
// [r0, r1) with leading dimension r1; `gram` is T × T.
double lower_inner(const float* gram, int T, const float* m, int r0, int r1) {
  double sum = 0;
  for (int j = r0; j < r1; ++j) {
    const float* g = gram + static_cast<long>(j) * T;
    const float* row = m + static_cast<long>(j - r0) * r1;
    double below = 0;
    for (int l = 0; l < j; ++l) below += static_cast<double>(g[l]) * row[l];
    sum += 2 * below + static_cast<double>(g[j]) * row[j];
  }
  return sum;
}

}  // namespace

// Backward of L = Σ O ⊙ G in fp32: dP = G Vᵀ, dZ = P ⊙ (dP − rowsum(P ⊙ dP)), dS = s dZ, then
// the rows of dQ = dS K, of which only Σ dQ² is kept.
void PointJob::ds_rows(int s, int r0, int r1) {
  Workspace& ws = *ws_;
  const Config& c = (*configs_)[s];
  const int T = c.seqLen;
  const float scale = state_.scale;
  const LogitTransform& t = state_.transform;
  ws.ds.resize(static_cast<std::size_t>(T) * T);
  ws.slope.resize(T);
  for (int i = r0; i < r1; ++i) {
    const int n = visible_keys(i, T, c.causal);
    const float* p = ws.p.data() + static_cast<std::size_t>(i) * T;
    const float* dp = &ws.gradWeights[static_cast<std::size_t>(i) * T];
    float* ds = ws.ds.data() + static_cast<std::size_t>(i) * T;
    float* slope = nullptr;
    if (!t.identityBeyondScale()) {  // × ∂z/∂n beyond the scale: ℓ_i · (1 − tanh²)
      slope = ws.slope.data();
      std::copy_n(logit_source().begin() + static_cast<std::size_t>(i) * T, n, slope);
      round_inplace(c.format, slope, n);
      logit_slopes(t, length_factor(t, n), slope, slope, n);
    }
    softmax_backward_row(p, dp, n, slope, scale, 1.0f, ds);
    std::fill(ds + n, ds + T, 0.0f);
    count_zeros(ds, T, state_.dsZeros, state_.dsNonFinite);
  }
}

// The Gram products may skip dS's exact zeros (a saturated softmax's rows are mostly 0) when dS
// has no inf/NaN: then the result is the same bits (panel::multiply_rows).
bool PointJob::sparse_ds() const {
  const double T = ws_->seqLen;
  return state_.dsNonFinite == 0 && static_cast<double>(state_.dsZeros) > 0.5 * T * T;
}

// Rows [r0, r1) of one gradient, A B, of which only Σ (A B)² is kept in `squares`: A holds those
// rows (leading dimension T), B is `packedB` packed (packs_kq) or else `b` (with QK-norm the
// normalized rows, then each row of the product goes back through its normalization, `xhat` and
// `inv`).
void PointJob::gradient_rows(int s, int r0, int r1, const float* a, const float* packedB,
                             const float* b, const float* bNormed, const float* xhat,
                             const float* inv, double& squares) {
  Workspace& ws = *ws_;
  const Config& c = (*configs_)[s];
  const int T = c.seqLen, d = dk_;
  const bool norm = c.qkNorm != QkNorm::none;
  const std::size_t n = static_cast<std::size_t>(r1 - r0) * d;
  ws.rowsA.resize(n);
  if (packs_kq()) {
    panel::multiply_rows_packed(r1 - r0, d, T, a, T, packedB, d, ws.rowsA.data(), d);
  } else {
    ws.panel.resize(panel::multiply_rows_panel_floats(d, T));
    panel::multiply_rows(r1 - r0, d, T, a, T, norm ? bNormed : b, norm ? d : ws.cols, 1,
                         ws.rowsA.data(), d, ws.panel.data());
  }
  if (norm)
    for (int i = r0; i < r1; ++i)
      normalize_row_backward(c.qkNorm, xhat + static_cast<long>(i) * d, inv[i], d,
                             ws.rowsA.data() + static_cast<long>(i - r0) * d);
  squares += sum_squares(ws.rowsA.data(), n);
}

// Rows of dQ = dS K, of which only Σ dQ² is kept. With QK-norm: dQ̂ = dS K̂, then each row back
// through its normalization.
void PointJob::backward_q_rows(int s, int r0, int r1) {
  Workspace& ws = *ws_;
  gradient_rows(s, r0, r1, ws.ds.data() + static_cast<long>(r0) * ws.seqLen, ws.packedB.data(),
                ws.k.data(), ws.kn.data(), ws.qn.data(), ws.qInv.data(), state_.dqSquares);
}

// Rows [r0, r1) of dSᵀ (once every row of dS is done), into z: the scaled logits are not read
// again in this scaling.
void PointJob::transpose_ds_rows(int r0, int r1) {
  Workspace& ws = *ws_;
  const int T = ws.seqLen;
  transpose(T, r1 - r0, ws.ds.data() + r0, T, ws.z.data() + static_cast<long>(r0) * T, T);
}

// Whether K and Q are packed once for the whole point (pack_kq_block): when both fit in the
// T × T floats that dS needs packed at a larger d_k.
bool PointJob::packs_kq() const {
  const int T = ws_->seqLen;
  return 2 * panel::packed_rows_floats(dk_, T) <= panel::packed_rows_floats(T, T);
}

// K-block k0 of K and of Q, packed as the B of dQ = dS K and of dK = dSᵀ Q. The configs differ
// only in their scale, so every scaling shares them.
void PointJob::pack_kq_block(int k0) {
  Workspace& ws = *ws_;
  const int T = ws.seqLen, d = dk_;
  const bool norm = configs_->front().qkNorm != QkNorm::none;
  const std::size_t half = panel::packed_rows_floats(d, T);
  ws.packedB.ensure(2 * half);
  panel::pack_rows_block(k0, d, T, norm ? ws.kn.data() : ws.k.data(), norm ? d : ws.cols, 1,
                         ws.packedB.data());
  panel::pack_rows_block(k0, d, T, norm ? ws.qn.data() : ws.q.data(), norm ? d : ws.cols, 1,
                         ws.packedB.data() + half);
}

// Where dS and dSᵀ are packed whole for the Gram products, one after the other: in Q's buffer
// (T × cols floats, cols >= T), which nothing reads once the products are done (‖dQ‖² takes KKᵀ,
// not K or Q, and a later point writes the columns it reads); when T × T leaves no room for the
// panels' padding, in packedB.
float* PointJob::ds_packed() {
  Workspace& ws = *ws_;
  const std::size_t n = panel::packed_rows_floats(ws.seqLen, ws.seqLen);
  if (ws.q.capacity() >= n) return ws.q.data();
  ws.packedB.ensure(n);
  return ws.packedB.data();
}

// K-block k0 of a T × T B (dS for dSᵀdS, dSᵀ from its rows in z for dS dSᵀ), packed: a copy of
// rows, no transpose.
void PointJob::pack_ds_block(const float* b, int k0) {
  const int T = ws_->seqLen;
  panel::pack_rows_block(k0, T, T, b, T, 1, ds_packed());
}

// Rows of dK = dSᵀ Q (dSᵀ's rows in z).
void PointJob::backward_k_rows(int s, int r0, int r1) {
  Workspace& ws = *ws_;
  const int T = ws.seqLen;
  gradient_rows(s, r0, r1, ws.z.data() + static_cast<long>(r0) * T,
                ws.packedB.data() + panel::packed_rows_floats(dk_, T), ws.q.data(), ws.qn.data(),
                ws.kn.data(), ws.kInv.data(), state_.dkSquares);
}

// For d_k >= T the gradient norms come from T × T Gram matrices instead of the T × d_k products:
// ‖dQ‖² = ‖dS K‖² = ⟨KKᵀ, dSᵀdS⟩ and ‖dK‖² = ‖dSᵀ Q‖² = ⟨QQᵀ, dS dSᵀ⟩, 2T³ flops per scaling
// instead of 4T²d_k. KKᵀ and QQᵀ accumulate across d_k like QKᵀ (shared by every scaling).
// These steps form rows [r0, r1) of dSᵀdS (lower triangle).
void PointJob::gram_q_rows(int r0, int r1) {
  Workspace& ws = *ws_;
  const int T = ws.seqLen, rows = r1 - r0;
  ws.rowsA.resize(static_cast<std::size_t>(rows) * r1);
  const float* dsT = ws.z.data() + static_cast<long>(r0) * T;
  panel::multiply_rows_packed(rows, r1, T, dsT, T, ds_packed(), T, ws.rowsA.data(), r1, sparse_ds(),
                              r0);
  state_.dqSquares += lower_inner(ws.gramK.data(), T, ws.rowsA.data(), r0, r1);
}

// Rows [r0, r1) of dS dSᵀ (lower triangle) against QQᵀ.
void PointJob::gram_k_rows(int r0, int r1) {
  Workspace& ws = *ws_;
  const int T = ws.seqLen, rows = r1 - r0;
  ws.rowsA.resize(static_cast<std::size_t>(rows) * r1);
  panel::multiply_rows_packed(rows, r1, T, ws.ds.data() + static_cast<long>(r0) * T, T, ds_packed(),
                              T, ws.rowsA.data(), r1, sparse_ds(), r0);
  state_.dkSquares += lower_inner(ws.gramQ.data(), T, ws.rowsA.data(), r0, r1);
}

void PointJob::gradient_summary(int s) {
  RunStats& st = results_[s].stats;
  const double entries = static_cast<double>(ws_->seqLen) * dk_;
  // (The Gram form of a sum of squares can round below 0 when it is ~0.)
  st.gradNormQ = std::sqrt(std::max(0.0, state_.dqSquares) / entries);
  st.gradNormK = std::sqrt(std::max(0.0, state_.dkSquares) / entries);
}
}  // namespace attnscale
