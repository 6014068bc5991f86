// Internals of the trainer shared with the tests: the task generator, the initialiser, the
// optimized float32 forward/backward (its plain double-precision reference is in reference/).
// See train.hpp for the model and task definition.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "config/logit_schemes.hpp"
#include "gemm/gemm.hpp"
#include "precision/format.hpp"

namespace attnscale::train {

struct Dims {
  int T = 32;  // sequence length = number of keys = number of queries
  int dk = 64;
  int D = 64;   // d_model
  int nV = 16;  // value tokens
  int vocab() const { return 2 * T + nV; }
  int value_row(int b) const { return T + b; }
  int query_row(int c) const { return T + nV + c; }
};

// One batch: for example e and position j, key/value/query token and target value id.
struct Batch {
  int B = 0, T = 0;
  std::vector<std::int32_t> key, val, qry, target;  // B*T each, index e*T + j
};

// Counter-based RNG: a 64-bit hash of (seed, stream, a, b).
std::uint64_t hash4(std::uint64_t seed, std::uint64_t stream, std::uint64_t a, std::uint64_t b);
// Uniform in [0, 1) with 53 random bits.
double uniform01(std::uint64_t h);
// Standard normal keyed by (seed, tensor, index): Marsaglia polar method on hashed uniforms,
// with det_log (no libm), so the same bits everywhere.
double normal_at(std::uint32_t seed, std::uint32_t tensor, std::uint64_t index);

// Examples [0, B) of batch number `step` for this seed (stream 1); the fixed example shown by
// attention() is example 0 of stream 2.
void make_batch(std::uint32_t seed, std::uint64_t stream, std::uint64_t step, int B, int T, int nV,
                Batch& out);

inline constexpr int kParamTensors = 7;  // E, Wq, Wk, Wv, Wo, gq, gk

template <class F>
struct Params {
  Dims dims;
  std::vector<F> E;   // vocab x D
  std::vector<F> Wq;  // D x dk
  std::vector<F> Wk;  // D x dk
  std::vector<F> Wv;  // D x dk
  std::vector<F> Wo;  // dk x nV
  std::vector<F> gq;  // dk: QK-norm gain on q^ (empty for a copy without QK-norm)
  std::vector<F> gk;  // dk: QK-norm gain on k^
  // All zeros; `gains` sizes gq and gk too.
  void resize(const Dims& d, bool gains = false) {
    dims = d;
    E.assign(static_cast<std::size_t>(d.vocab()) * d.D, F(0));
    Wq.assign(static_cast<std::size_t>(d.D) * d.dk, F(0));
    Wk.assign(Wq.size(), F(0));
    Wv.assign(Wq.size(), F(0));
    Wo.assign(static_cast<std::size_t>(d.dk) * d.nV, F(0));
    gq.assign(gains ? static_cast<std::size_t>(d.dk) : 0, F(0));
    gk.assign(gq.size(), F(0));
  }
  // Tensor i in the order E, Wq, Wk, Wv, Wo, gq, gk.
  std::vector<F>& tensor(int i) {
    return i == 0 ? E : i == 1 ? Wq : i == 2 ? Wk : i == 3 ? Wv : i == 4 ? Wo : i == 5 ? gq : gk;
  }
  const std::vector<F>& tensor(int i) const {
    return i == 0 ? E : i == 1 ? Wq : i == 2 ? Wk : i == 3 ? Wv : i == 4 ? Wo : i == 5 ? gq : gk;
  }
};

// How one copy turns q.k into the softmax's input (train.hpp): QK-norm (with the gains gq, gk of
// Params), then z = softcap(scale * q^.k^ * lengthFactor). lengthFactor = s ln T, 0 = off;
// softcap 0 = off.
struct LogitSpec {
  double scale = 1.0;
  QkNorm qkNorm = QkNorm::none;
  double softcap = 0.0;
  double lengthFactor = 0.0;
};

// Initial parameters (float values; the double reference takes the same floats).
void init_params(const Dims& d, double initScale, std::uint32_t seed, Params<float>& out);

struct StepMetrics {
  double loss = 0, accuracy = 0, entropy = 0, saturatedFraction = 0, gradNormWq = 0, gradNormWk = 0;
  double maxLogit = 0, minRowEntropy = 0, entropyFloor = 0, weightBound = 0;  // train.hpp
};

// Scratch buffers of the optimized path, sized for one Dims.
struct FloatScratch {
  std::vector<float> Pq, Pk, Pv;     // projected vocabulary tables, vocab x dk
  std::vector<float> dPq, dPk, dPv;  // their gradients
  std::vector<float> WqT, WkT, WvT, WoT;
  std::vector<float> Q, K, V, Kt, Vt, S, O, Z, dZ, dO, dP, dQ, dK, dV;
  std::vector<float> Qn, Kn, rq, rk;  // QK-norm: normalized rows before the gain, 1/sqrt(var + eps)
  std::vector<float> Th;              // soft-cap: the rounded q.k of every logit, then its slope
  std::vector<float> Mw;              // weight_bound.hpp's scratch, 3 D x D
  std::vector<float> tmp;
  void resize(const Dims& d);
};

// Optimized float32 loss + gradients of one batch (mean over B*T positions) with the copy's logit
// spec and forward rounding to `fmt`. Fills grads (same shapes as params) and metrics.
void float_loss_and_grad(const Params<float>& p, const Batch& batch, const LogitSpec& spec,
                         Format fmt, Params<float>& grads, StepMetrics& metrics, FloatScratch& ws);

// Attention weights of example e of the batch (T x T) under p, with the same rounding, into `out`;
// and into q and k (T x dk each) the rows whose product they come from: after QK-norm and its
// gains, rounded to `fmt`, before the scale. Any of out, q, k may be null (not wanted).
void float_attention(const Params<float>& p, const Batch& batch, int e, const LogitSpec& spec,
                     Format fmt, float* out, FloatScratch& ws, float* q = nullptr,
                     float* k = nullptr);

// C = A B, D x D, with A (D x K, or its transpose) and B (K x D) row-major: the engine's
// bit-exact GEMM (gemm/gemm.hpp), as every product of the model (weight_bound.cpp's products).
void square_product(int D, int K, MatrixView A, const float* B, float* C);

}  // namespace attnscale::train
