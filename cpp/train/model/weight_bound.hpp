// The weightBound metric (train.hpp): Zhai et al. 2023's weight-side bound on the attention
// logits, |z_ij| = |s q_i.k_j| <= |s| ||W_q W_k^T||_2 ||x_i|| ||x_j||, over one step's batch.
#pragma once

#include "train/model/model.hpp"

namespace attnscale::train {

// Matrix squarings of qk_spectral_bound: the bound is trace(G^8)^(1/16) with G = M^T M, at most
// 29.7 % above ||M||_2 (64^(1/16)); measured 0-5.4 % above (random and trained weights, the test).
inline constexpr int kSpectralSquarings = 2;

// An upper bound on the spectral norm of M = W_q W_k^T (D x D; W_q is D x dk row-major, WkT is
// W_k^T, dk x D row-major). With G = M^T M (eigenvalues l_1 >= ... >= l_D >= 0) and m = 2^(q+1)
// after q squarings, trace(G^m) = sum l_i^m lies in [l_1^m, D l_1^m], so
//   ||M||_2 <= trace(G^m)^(1/(2m)) <= D^(1/(2m)) ||M||_2     (q = 2, m = 8: at most 29.7 % above).
// Products in float32 with the engine's GEMM (gemm/gemm.hpp), each matrix rescaled by an exact
// power of two before it is squared; the roots by IEEE sqrt: the same bits in every build. It
// bounds the norm of the float32 M up to that rounding (relative ~1e-6;
// tests/cpp/train/test_train_weight_bound.cpp measures it against a double Jacobi eigensolver). NaN
// when a weight is not finite, 0 when M = 0. scratch: 3 D^2 floats.
double qk_spectral_bound(const float* Wq, const float* WkT, int D, int dk, int squarings,
                         float* scratch);

// max over the batch's positions of ||x_i||^2, x_i = (E[a_i] + E[T + b_i] + E[T + 16 + c_i]) / sqrt
// 3 (train.hpp): the squares in float32, summed in a fixed order (relative error ~1e-6). part: 8
// floats of scratch.
double max_input_norm2(const Params<float>& p, const Batch& batch, float* part);

// The metric: without QK-norm |scale| ||W_q W_k^T||_2 max ||x_i||^2; with QK-norm
// |scale| sqrt(maxQ2 maxK2), the largest squared norms of the normalised, gained and rounded rows
// q^, k^ that the forward multiplied; times the length factor when set. Before the soft-cap.
// ws.WkT must hold W_k^T.
double weight_bound(const Params<float>& p, const Batch& batch, const LogitSpec& spec, double maxQ2,
                    double maxK2, FloatScratch& ws);

}  // namespace attnscale::train
