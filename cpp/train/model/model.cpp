// Optimized float32 forward + backward of the trainer's model (see train.hpp for the model).
//
// Layout of the work for one batch:
//   1. projected vocabulary tables Pq = E Wq, Pk = E Wk, Pv = E Wv ((2T+16) x dk): a position's
//      q is then (Pq[a] + Pq[b] + Pq[c]) / sqrt(3), far cheaper than projecting B*T positions;
//   2. per example: Q, K, V (QK-norm'ed with its gains when the copy has it; rounded), Q K^T
//      (rounded), times s, s ln T and soft-capped (rounded), softmax (exp and weights rounded),
//      O = A V (rounded), logits, cross-entropy; then the backward pass of that example, whose
//      dQ, dK, dV rows are scattered into the gradients of the tables;
//   3. dWq = E^T dPq (same for k, v) and dE = dPq Wq^T + dPk Wk^T + dPv Wv^T.
// Every product is the engine's GEMM (gemm/gemm.hpp: plain k order per element, no FMA), QK-norm
// the engine's kernel with float sums; the few other reductions (softmax sums, row dot products,
// metrics) run sequentially in index order. That is what makes the results identical in every
// build.
#include "train/model/model.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "gemm/gemm.hpp"
#include "kernels/logit_transform.hpp"
#include "kernels/qk_norm.hpp"
#include "kernels/softmax_row.hpp"
#include "stats/entropy_bound.hpp"
#include "train/model/attention_tally.hpp"
#include "train/model/detmath.hpp"
#include "train/model/weight_bound.hpp"

namespace attnscale::train {

namespace {

constexpr float kInvSqrt3 = 0.577350269189625764f;

void round_if(Format fmt, float* x, std::size_t n) {
  if (fmt.precision != Precision::fp32) round_inplace(fmt, x, n);
}

// C (M x N) = A B, or C += A B, with B K x N row-major: the engine's bit-exact GEMM
// (gemm/gemm.hpp). C starts from zeros, so each element is 0 + a b + ... in plain k order.
void product(int M, int N, int K, MatrixView A, const float* B, float* C, bool accumulate = false) {
  if (!accumulate) std::fill_n(C, static_cast<std::size_t>(M) * N, 0.0f);
  gemm_accumulate(M, N, 0, K, A, {B, N}, C, N);
}

// Row-major x (rows x cols) as A, and its transpose.
MatrixView rows_of(const float* x, int cols) { return {x, cols}; }
MatrixView columns_of(const float* x, int cols) { return {x, cols, true}; }

// out (cols x rows) = x (rows x cols)^T
void transpose_of(int rows, int cols, const float* x, float* out) {
  transpose(rows, cols, x, cols, out, rows);
}

// QK-norm of the T rows of x with the copy's gains: n = normalize(x) kept in `normed` and its
// 1/sqrt(.. + eps) in r for the backward, then x = n * gain. The sums are float, in index order.
void qk_norm_with_gain(QkNorm kind, const float* gain, float* x, float* normed, float* r, int T,
                       int dk) {
  for (int t = 0; t < T; ++t) {
    float* row = x + static_cast<std::size_t>(t) * dk;
    float* n = normed + static_cast<std::size_t>(t) * dk;
    r[t] = normalize_row<FloatSums>(kind, row, dk, n);
    for (int c = 0; c < dk; ++c) row[c] = n[c] * gain[c];
  }
}

// Backward of qk_norm_with_gain: the gain's gradient added to dgain, then dx in place over dy.
void qk_norm_with_gain_backward(QkNorm kind, const float* gain, const float* normed, const float* r,
                                float* dy, float* dgain, int T, int dk) {
  for (int t = 0; t < T; ++t) {
    float* d = dy + static_cast<std::size_t>(t) * dk;
    const float* n = normed + static_cast<std::size_t>(t) * dk;
    for (int c = 0; c < dk; ++c) {
      dgain[c] = dgain[c] + d[c] * n[c];
      d[c] = d[c] * gain[c];
    }
    normalize_row_backward<FloatSums>(kind, n, r[t], dk, d);
  }
}

// out = ((a + b) + c) * r, n floats
void add3_scale(float* out, const float* a, const float* b, const float* c, float r, int n) {
  int i = 0;
  const simd::vf rv(r);
  for (; i + static_cast<int>(simd::W) <= n; i += static_cast<int>(simd::W))
    simd::storeu(out + i, (simd::loadu(a + i) + simd::loadu(b + i) + simd::loadu(c + i)) * rv);
  for (; i < n; ++i) out[i] = (a[i] + b[i] + c[i]) * r;
}

// y = y + x * r, n floats
void axpy(float* y, const float* x, float r, int n) {
  int i = 0;
  const simd::vf rv(r);
  for (; i + static_cast<int>(simd::W) <= n; i += static_cast<int>(simd::W))
    simd::storeu(y + i, simd::loadu(y + i) + simd::loadu(x + i) * rv);
  for (; i < n; ++i) y[i] = y[i] + x[i] * r;
}

float row_max(const float* x, int n) {
  float m = x[0];
  for (int j = 1; j < n; ++j) m = x[j] > m ? x[j] : m;
  if (std::isnan(m)) return m;
  for (int j = 0; j < n; ++j)
    if (std::isnan(x[j])) return x[j];
  return m;
}

// Rows of S (T x T) become attention weights: the engine's softmax row with its exps summed in
// index order and those below FLT_MIN flushed, the format's rounding of the exps and the weights.
void softmax_rows(float* S, int T, Format fmt) {
  for (int i = 0; i < T; ++i) {
    float* s = S + static_cast<std::size_t>(i) * T;
    softmax_row<IndexOrderSums>(s, T, true, fmt, s);
  }
}

// The engine's logit transform for a copy: scale, then the length factor s ln T (given whole as
// the row factor, so only whether lengthScale is 0 matters here), then the soft-cap.
LogitTransform transform_of(const LogitSpec& spec) {
  return {static_cast<float>(spec.scale), spec.lengthFactor, static_cast<float>(spec.softcap)};
}

// The logits after the raw q.k (already rounded): the engine's transform_logits, the rounded q.k
// kept in ws.Th first when the soft-cap's backward needs it.
void shape_logits(const LogitSpec& spec, Format fmt, int T, FloatScratch& ws) {
  const std::size_t TT = static_cast<std::size_t>(T) * T;
  if (spec.softcap > 0.0) std::memcpy(ws.Th.data(), ws.S.data(), sizeof(float) * TT);
  transform_logits(transform_of(spec), static_cast<float>(spec.lengthFactor), fmt, ws.S.data(), TT);
}

// Forward of example e up to the attention output: ws.Q, K, V, Kt, S (= weights), O.
// Assumes ws.Pq/Pk/Pv hold the projected tables of p. With a tally, also its logits' metrics.
void forward_attention(const Params<float>& p, const Batch& batch, int e, const LogitSpec& spec,
                       Format fmt, FloatScratch& ws, AttentionTally* tally = nullptr) {
  const Dims& d = p.dims;
  const int T = d.T, dk = d.dk;
  const std::size_t Tdk = static_cast<std::size_t>(T) * dk;
  const std::int32_t* key = &batch.key[static_cast<std::size_t>(e) * T];
  const std::int32_t* val = &batch.val[static_cast<std::size_t>(e) * T];
  const std::int32_t* qry = &batch.qry[static_cast<std::size_t>(e) * T];
  for (int j = 0; j < T; ++j) {
    const std::size_t ra = static_cast<std::size_t>(key[j]) * dk;
    const std::size_t rb = static_cast<std::size_t>(d.value_row(val[j])) * dk;
    const std::size_t rc = static_cast<std::size_t>(d.query_row(qry[j])) * dk;
    const std::size_t o = static_cast<std::size_t>(j) * dk;
    add3_scale(&ws.Q[o], &ws.Pq[ra], &ws.Pq[rb], &ws.Pq[rc], kInvSqrt3, dk);
    add3_scale(&ws.K[o], &ws.Pk[ra], &ws.Pk[rb], &ws.Pk[rc], kInvSqrt3, dk);
    add3_scale(&ws.V[o], &ws.Pv[ra], &ws.Pv[rb], &ws.Pv[rc], kInvSqrt3, dk);
  }
  if (spec.qkNorm != QkNorm::none) {
    qk_norm_with_gain(spec.qkNorm, p.gq.data(), ws.Q.data(), ws.Qn.data(), ws.rq.data(), T, dk);
    qk_norm_with_gain(spec.qkNorm, p.gk.data(), ws.K.data(), ws.Kn.data(), ws.rk.data(), T, dk);
  }
  round_if(fmt, ws.Q.data(), Tdk);
  round_if(fmt, ws.K.data(), Tdk);
  round_if(fmt, ws.V.data(), Tdk);
  if (tally && spec.qkNorm != QkNorm::none) {
    tally->maxQ2 = max_row_norm2(ws.Q.data(), T, dk, tally->maxQ2);
    tally->maxK2 = max_row_norm2(ws.K.data(), T, dk, tally->maxK2);
  }
  transpose_of(T, dk, ws.K.data(), ws.Kt.data());
  product(T, T, dk, rows_of(ws.Q.data(), dk), ws.Kt.data(), ws.S.data());
  // as the attention run does: the raw fp32 dot products rounded, then scaled and rounded again
  round_if(fmt, ws.S.data(), static_cast<std::size_t>(T) * T);
  shape_logits(spec, fmt, T, ws);
  if (tally) tally_logits(ws.S.data(), T, *tally);
  softmax_rows(ws.S.data(), T, fmt);
  product(T, dk, T, rows_of(ws.S.data(), T), ws.V.data(), ws.O.data());
  round_if(fmt, ws.O.data(), Tdk);
}

void project_tables(const Params<float>& p, FloatScratch& ws) {
  const Dims& d = p.dims;
  const int nvoc = d.vocab();
  product(nvoc, d.dk, d.D, rows_of(p.E.data(), d.D), p.Wq.data(), ws.Pq.data());
  product(nvoc, d.dk, d.D, rows_of(p.E.data(), d.D), p.Wk.data(), ws.Pk.data());
  product(nvoc, d.dk, d.D, rows_of(p.E.data(), d.D), p.Wv.data(), ws.Pv.data());
}

double sum_squares(const std::vector<float>& x) {
  double s = 0.0;
  for (float v : x) s += static_cast<double>(v) * static_cast<double>(v);
  return s;
}

}  // namespace

void square_product(int D, int K, MatrixView A, const float* B, float* C) {
  product(D, D, K, A, B, C);
}

void FloatScratch::resize(const Dims& d) {
  const std::size_t nvoc = static_cast<std::size_t>(d.vocab()), D = static_cast<std::size_t>(d.D),
                    dk = static_cast<std::size_t>(d.dk), T = static_cast<std::size_t>(d.T),
                    nV = static_cast<std::size_t>(d.nV);
  for (auto* v : {&Pq, &Pk, &Pv, &dPq, &dPk, &dPv}) v->assign(nvoc * dk, 0.0f);
  for (auto* v : {&WqT, &WkT, &WvT}) v->assign(dk * D, 0.0f);
  WoT.assign(nV * dk, 0.0f);
  for (auto* v : {&Q, &K, &V, &Kt, &Vt, &O, &dO, &dQ, &dK, &dV, &Qn, &Kn}) v->assign(T * dk, 0.0f);
  rq.assign(T, 0.0f);
  rk.assign(T, 0.0f);
  S.assign(T * T, 0.0f);
  Th.assign(T * T, 0.0f);
  Mw.assign(3 * D * D, 0.0f);
  dP.assign(T * T, 0.0f);
  Z.assign(T * nV, 0.0f);
  dZ.assign(T * nV, 0.0f);
  tmp.assign((T > nV ? T : nV) + simd::W, 0.0f);
}

void float_attention(const Params<float>& p, const Batch& batch, int e, const LogitSpec& spec,
                     Format fmt, float* out, FloatScratch& ws, float* q, float* k) {
  project_tables(p, ws);
  forward_attention(p, batch, e, spec, fmt, ws);
  const std::size_t TT = static_cast<std::size_t>(p.dims.T) * p.dims.T;
  const std::size_t Tdk = static_cast<std::size_t>(p.dims.T) * p.dims.dk;
  if (out) std::memcpy(out, ws.S.data(), sizeof(float) * TT);
  if (q) std::memcpy(q, ws.Q.data(), sizeof(float) * Tdk);
  if (k) std::memcpy(k, ws.K.data(), sizeof(float) * Tdk);
}

namespace {

// What a step adds up over its examples: the loss, the correct predictions, the attention's tally.
struct StepSums {
  double loss = 0.0;
  long long correct = 0;
  AttentionTally tally;
};

// Sizes and zeros the gradients, and computes what every example of the step reads: the
// projected tables and the transposed weights.
void begin_step(const Params<float>& p, const LogitSpec& spec, Params<float>& g, FloatScratch& ws) {
  const Dims& d = p.dims;
  if (g.dims.dk != d.dk || g.dims.T != d.T || g.E.size() != p.E.size() ||
      g.gq.size() != p.gq.size())
    g.resize(d, spec.qkNorm != QkNorm::none);
  std::fill(g.gq.begin(), g.gq.end(), 0.0f);
  std::fill(g.gk.begin(), g.gk.end(), 0.0f);
  project_tables(p, ws);
  transpose_of(d.D, d.dk, p.Wq.data(), ws.WqT.data());
  transpose_of(d.D, d.dk, p.Wk.data(), ws.WkT.data());
  transpose_of(d.D, d.dk, p.Wv.data(), ws.WvT.data());
  transpose_of(d.dk, d.nV, p.Wo.data(), ws.WoT.data());
  for (auto* v : {&ws.dPq, &ws.dPk, &ws.dPv}) std::fill(v->begin(), v->end(), 0.0f);
}

// Read-out logits Z = O Wo of example e and their cross-entropy against the targets: the loss and
// correct predictions added to `sums`, dZ = (softmax(Z) - onehot) / N (invN = 1/N).
void cross_entropy(const Params<float>& p, const Batch& batch, int e, float invN, FloatScratch& ws,
                   StepSums& sums) {
  const int T = p.dims.T, dk = p.dims.dk, nV = p.dims.nV;
  float* tmp = ws.tmp.data();
  product(T, nV, dk, rows_of(ws.O.data(), dk), p.Wo.data(), ws.Z.data());
  const std::int32_t* tgt = &batch.target[static_cast<std::size_t>(e) * T];
  for (int i = 0; i < T; ++i) {
    const float* z = &ws.Z[static_cast<std::size_t>(i) * nV];
    float* dz = &ws.dZ[static_cast<std::size_t>(i) * nV];
    const float m = row_max(z, nV);
    int best = 0;
    for (int v = 1; v < nV; ++v)
      if (z[v] > z[best]) best = v;
    if (best == tgt[i] && !std::isnan(m)) ++sums.correct;
    for (int v = 0; v < nV; ++v) tmp[v] = z[v] - m;
    apply_vf(tmp, static_cast<std::size_t>(nV), [](simd::vf x) { return exp_vf(x); });
    float sum = 0.0f;
    for (int v = 0; v < nV; ++v) sum = sum + tmp[v];
    sums.loss += det_log(static_cast<double>(sum)) - static_cast<double>(z[tgt[i]] - m);
    for (int v = 0; v < nV; ++v) dz[v] = (tmp[v] / sum - (v == tgt[i] ? 1.0f : 0.0f)) * invN;
  }
}

// dS from dA in place in ws.dP, by the engine's softmax backward: dS = A * (dA - rowdot(A, dA)),
// with a soft-cap times its slope 1 - tanh^2 (from the rounded q.k in ws.Th), times the scale,
// then times the length factor.
void softmax_backward(const LogitSpec& spec, int T, FloatScratch& ws) {
  const std::size_t TT = static_cast<std::size_t>(T) * T;
  const float lengthFactor = static_cast<float>(spec.lengthFactor);
  const bool capped = spec.softcap > 0.0;
  if (capped) logit_slopes(transform_of(spec), lengthFactor, ws.Th.data(), ws.Th.data(), TT, false);
  for (int i = 0; i < T; ++i) {
    const std::size_t row = static_cast<std::size_t>(i) * T;
    softmax_backward_row(&ws.S[row], &ws.dP[row], T, capped ? &ws.Th[row] : nullptr,
                         static_cast<float>(spec.scale), lengthFactor != 0.0f ? lengthFactor : 1.0f,
                         &ws.dP[row]);
  }
}

// Backward of example e from dZ: Wo's gradient (accumulated over the examples), then dO, dA, dV,
// dS, dQ and dK, through QK-norm when the copy has it (the gains' gradients added to g).
void backward_attention(const Params<float>& p, const LogitSpec& spec, int e, Params<float>& g,
                        FloatScratch& ws) {
  const int T = p.dims.T, dk = p.dims.dk, nV = p.dims.nV;
  product(dk, nV, T, columns_of(ws.O.data(), dk), ws.dZ.data(), g.Wo.data(), e > 0);
  product(T, dk, nV, rows_of(ws.dZ.data(), nV), ws.WoT.data(), ws.dO.data());
  // O = A V
  transpose_of(T, dk, ws.V.data(), ws.Vt.data());
  product(T, T, dk, rows_of(ws.dO.data(), dk), ws.Vt.data(), ws.dP.data());
  product(T, dk, T, columns_of(ws.S.data(), T), ws.dO.data(), ws.dV.data());
  softmax_backward(spec, T, ws);
  product(T, dk, T, rows_of(ws.dP.data(), T), ws.K.data(), ws.dQ.data());
  product(T, dk, T, columns_of(ws.dP.data(), T), ws.Q.data(), ws.dK.data());
  if (spec.qkNorm != QkNorm::none) {
    qk_norm_with_gain_backward(spec.qkNorm, p.gq.data(), ws.Qn.data(), ws.rq.data(), ws.dQ.data(),
                               g.gq.data(), T, dk);
    qk_norm_with_gain_backward(spec.qkNorm, p.gk.data(), ws.Kn.data(), ws.rk.data(), ws.dK.data(),
                               g.gk.data(), T, dk);
  }
}

// Adds example e's dQ, dK, dV rows into the gradients of the tables, at the three tokens each
// position's input sums (each times 1/sqrt(3)).
void scatter_rows(const Dims& d, const Batch& batch, int e, FloatScratch& ws) {
  const int T = d.T, dk = d.dk;
  const std::int32_t* key = &batch.key[static_cast<std::size_t>(e) * T];
  const std::int32_t* val = &batch.val[static_cast<std::size_t>(e) * T];
  const std::int32_t* qry = &batch.qry[static_cast<std::size_t>(e) * T];
  for (int j = 0; j < T; ++j) {
    const std::size_t o = static_cast<std::size_t>(j) * dk;
    const std::size_t rows[3] = {static_cast<std::size_t>(key[j]) * dk,
                                 static_cast<std::size_t>(d.value_row(val[j])) * dk,
                                 static_cast<std::size_t>(d.query_row(qry[j])) * dk};
    for (std::size_t r : rows) {
      axpy(&ws.dPq[r], &ws.dQ[o], kInvSqrt3, dk);
      axpy(&ws.dPk[r], &ws.dK[o], kInvSqrt3, dk);
      axpy(&ws.dPv[r], &ws.dV[o], kInvSqrt3, dk);
    }
  }
}

// Tables' gradients to the weights' and the embeddings': dWq = E^T dPq (k, v alike),
// dE = dPq Wq^T + dPk Wk^T + dPv Wv^T.
void weight_gradients(const Params<float>& p, FloatScratch& ws, Params<float>& g) {
  const int dk = p.dims.dk, D = p.dims.D, nvoc = p.dims.vocab();
  product(D, dk, nvoc, columns_of(p.E.data(), D), ws.dPq.data(), g.Wq.data());
  product(D, dk, nvoc, columns_of(p.E.data(), D), ws.dPk.data(), g.Wk.data());
  product(D, dk, nvoc, columns_of(p.E.data(), D), ws.dPv.data(), g.Wv.data());
  product(nvoc, D, dk, rows_of(ws.dPq.data(), dk), ws.WqT.data(), g.E.data());
  product(nvoc, D, dk, rows_of(ws.dPk.data(), dk), ws.WkT.data(), g.E.data(), true);
  product(nvoc, D, dk, rows_of(ws.dPv.data(), dk), ws.WvT.data(), g.E.data(), true);
}

void fill_metrics(const Params<float>& p, const Batch& batch, const LogitSpec& spec,
                  const StepSums& sums, const Params<float>& g, FloatScratch& ws,
                  StepMetrics& metrics) {
  const double n = static_cast<double>(batch.B) * p.dims.T;
  const AttentionTally& tally = sums.tally;
  metrics.loss = sums.loss / n;
  metrics.accuracy = static_cast<double>(sums.correct) / n;
  metrics.entropy = tally.entropySum / n;
  metrics.saturatedFraction = static_cast<double>(tally.saturated) / n;
  metrics.gradNormWq = std::sqrt(sum_squares(g.Wq));
  metrics.gradNormWk = std::sqrt(sum_squares(g.Wk));
  metrics.maxLogit = tally.maxAbsLogit;
  metrics.minRowEntropy = tally.minRowEntropy;
  metrics.entropyFloor = entropy_lower_bound(p.dims.T, tally.maxCentredNorm);
  metrics.weightBound = weight_bound(p, batch, spec, tally.maxQ2, tally.maxK2, ws);
}

}  // namespace

void float_loss_and_grad(const Params<float>& p, const Batch& batch, const LogitSpec& spec,
                         Format fmt, Params<float>& g, StepMetrics& metrics, FloatScratch& ws) {
  begin_step(p, spec, g, ws);
  const float invN = static_cast<float>(1.0 / (static_cast<double>(batch.B) * p.dims.T));
  StepSums sums;
  for (int e = 0; e < batch.B; ++e) {
    forward_attention(p, batch, e, spec, fmt, ws, &sums.tally);
    tally_weights(ws.S.data(), p.dims.T, ws.tmp.data(), sums.tally);
    cross_entropy(p, batch, e, invN, ws, sums);
    backward_attention(p, spec, e, g, ws);
    scatter_rows(p.dims, batch, e, ws);
  }
  weight_gradients(p, ws, g);
  fill_metrics(p, batch, spec, sums, g, ws, metrics);
}

}  // namespace attnscale::train
