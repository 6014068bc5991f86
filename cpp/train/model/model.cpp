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
// Every product is kernels.hpp's gemm (vectorised along output rows, fixed order per element);
// the few reductions (softmax sums, row dot products, metrics) run sequentially in index order.
// That is what makes the results identical in every build (see kernels.hpp).
#include "train/model/model.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "stats/entropy_bound.hpp"
#include "train/model/detmath.hpp"
#include "train/model/kernels.hpp"
#include "train/model/qk_norm.hpp"
#include "train/model/weight_bound.hpp"

namespace attnscale::train {

namespace {

constexpr float kInvSqrt3 = 0.577350269189625764f;

void round_if(Format fmt, float* x, std::size_t n) {
  if (fmt.precision != Precision::fp32) round_inplace(fmt, x, n);
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

// x = x * r, n floats
void scale_inplace(float* x, float r, std::size_t n) {
  std::size_t i = 0;
  const simd::vf rv(r);
  for (; i + simd::W <= n; i += simd::W) simd::storeu(x + i, simd::loadu(x + i) * rv);
  for (; i < n; ++i) x[i] = x[i] * r;
}

float row_max(const float* x, int n) {
  float m = x[0];
  for (int j = 1; j < n; ++j) m = x[j] > m ? x[j] : m;
  if (std::isnan(m)) return m;
  for (int j = 0; j < n; ++j)
    if (std::isnan(x[j])) return x[j];
  return m;
}

// Largest element (vectorised). A row holding a NaN may give any value here, which is harmless:
// the row's weights come out all NaN either way (NaN - m or x - NaN poisons the sum).
float row_max_fast(const float* x, int n) {
  constexpr int W = static_cast<int>(simd::W);
  int j = 0;
  float m = x[0];
  if (n >= W) {
    simd::vf acc = simd::loadu(x);
    for (j = W; j + W <= n; j += W) acc = simd::vmax(acc, simd::loadu(x + j));
    m = simd::reduce_max(acc);
  }
  for (; j < n; ++j) m = x[j] > m ? x[j] : m;
  return m;
}

// Whether any element exceeds t (NaN never does).
bool any_above(const float* x, int n, float t) {
  constexpr int W = static_cast<int>(simd::W);
  const simd::vf tv(t);
  int j = 0;
  for (; j + W <= n; j += W)
    if (simd::any(simd::loadu(x + j) > tv)) return true;
  for (; j < n; ++j)
    if (x[j] > t) return true;
  return false;
}

// Rows of S (T x T) become attention weights, with the format's rounding of the exponentials and
// of the weights.
void softmax_rows(float* S, int T, Format fmt) {
  for (int i = 0; i < T; ++i) {
    float* s = S + static_cast<std::size_t>(i) * T;
    const simd::vf mv(row_max_fast(s, T));
    apply_vf(s, static_cast<std::size_t>(T), [mv](simd::vf x) { return exp_vf(x - mv); });
  }
  round_if(fmt, S, static_cast<std::size_t>(T) * T);
  for (int i = 0; i < T; ++i) {
    float* s = S + static_cast<std::size_t>(i) * T;
    float z = 0.0f;
    for (int j = 0; j < T; ++j) z = z + s[j];
    const simd::vf zv(z);
    apply_vf(s, static_cast<std::size_t>(T), [zv](simd::vf x) { return x / zv; });
  }
  round_if(fmt, S, static_cast<std::size_t>(T) * T);
}

// -sum p ln p of one row (0 ln 0 = 0; NaN weights give NaN); tmp holds >= n + W floats.
double row_entropy(const float* p, int n, float* tmp) {
  std::memcpy(tmp, p, sizeof(float) * static_cast<std::size_t>(n));
  apply_vf(tmp, static_cast<std::size_t>(n), [](simd::vf x) {
    const simd::vf h = -(x * log_vf(x));
    return simd::select(x <= simd::vf(std::numeric_limits<float>::min()), simd::vf(0.0f), h);
  });
  double h = 0.0;
  for (int j = 0; j < n; ++j) h += static_cast<double>(tmp[j]);
  return h;
}

// What one step's attention rows say, for the metrics (train.hpp). Added to in example and row
// order; NaN, once met, stays (a non-finite logit or weight shows).
struct AttentionTally {
  double entropySum = 0.0, minRowEntropy = std::numeric_limits<double>::infinity();
  double maxAbsLogit = 0.0, maxCentredNorm = 0.0;  // over the logits the softmax gets
  double maxQ2 = 0.0, maxK2 = 0.0;                 // largest ||q^||^2, ||k^||^2 (QK-norm only)
  long long saturated = 0;
};

double nan_max(double m, double x) { return std::isnan(m) || x <= m ? m : x; }
double nan_min(double m, double x) { return std::isnan(m) || x >= m ? m : x; }

// The largest |z| and centred row norm ||z - mean z||_2 of the T x T logits S, in double. Reads
// S only: the forward pass goes on with the same bits.
void tally_logits(const float* S, int T, AttentionTally& t) {
  for (int i = 0; i < T; ++i) {
    const float* z = S + static_cast<std::size_t>(i) * T;
    double sum = 0.0;
    for (int j = 0; j < T; ++j) {
      sum += static_cast<double>(z[j]);
      t.maxAbsLogit = nan_max(t.maxAbsLogit, std::fabs(static_cast<double>(z[j])));
    }
    const double mean = sum / T;
    double squares = 0.0;
    for (int j = 0; j < T; ++j) {
      const double d = static_cast<double>(z[j]) - mean;
      squares += d * d;
    }
    t.maxCentredNorm = nan_max(t.maxCentredNorm, std::sqrt(squares));
  }
}

// The largest squared norm of the T rows of x (T x dk) and m, in double.
double max_row_norm2(const float* x, int T, int dk, double m) {
  for (int t = 0; t < T; ++t) {
    double ss = 0.0;
    for (int c = 0; c < dk; ++c) {
      const double v = static_cast<double>(x[static_cast<std::size_t>(t) * dk + c]);
      ss += v * v;
    }
    m = nan_max(m, ss);
  }
  return m;
}

// The weights' metrics of one example (P: T x T weights): saturated rows and row entropies.
void tally_weights(const float* P, int T, float* tmp, AttentionTally& t) {
  for (int i = 0; i < T; ++i) {
    const float* row = P + static_cast<std::size_t>(i) * T;
    if (any_above(row, T, 0.99f)) ++t.saturated;  // largest weight > 0.99
    const double h = row_entropy(row, T, tmp);
    t.entropySum += h;
    t.minRowEntropy = nan_min(t.minRowEntropy, h);
  }
}

// The logits after the raw q.k (already rounded): times scale, times the length factor, then the
// soft-cap (its tanh kept in ws.Th for the backward), then rounded. Without a length factor or a
// cap this is the original path: scale and round only when the scale is not 1.
void shape_logits(const LogitSpec& spec, Format fmt, int T, FloatScratch& ws) {
  const std::size_t TT = static_cast<std::size_t>(T) * T;
  const float scale = static_cast<float>(spec.scale);
  if (spec.softcap == 0.0 && spec.lengthFactor == 0.0) {
    if (scale != 1.0f) {
      scale_inplace(ws.S.data(), scale, TT);
      round_if(fmt, ws.S.data(), TT);
    }
    return;
  }
  if (scale != 1.0f) scale_inplace(ws.S.data(), scale, TT);
  if (spec.lengthFactor != 0.0)
    scale_inplace(ws.S.data(), static_cast<float>(spec.lengthFactor), TT);
  if (spec.softcap > 0.0) {
    const float c = static_cast<float>(spec.softcap);
    std::memcpy(ws.Th.data(), ws.S.data(), sizeof(float) * TT);
    const simd::vf cv(c);
    apply_vf(ws.Th.data(), TT, [cv](simd::vf u) { return tanh_vf(u / cv); });
    for (std::size_t i = 0; i < TT; ++i) ws.S[i] = c * ws.Th[i];
  }
  round_if(fmt, ws.S.data(), TT);
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
    qk_norm_rows(spec.qkNorm, p.gq.data(), ws.Q.data(), ws.Qn.data(), ws.rq.data(), T, dk);
    qk_norm_rows(spec.qkNorm, p.gk.data(), ws.K.data(), ws.Kn.data(), ws.rk.data(), T, dk);
  }
  round_if(fmt, ws.Q.data(), Tdk);
  round_if(fmt, ws.K.data(), Tdk);
  round_if(fmt, ws.V.data(), Tdk);
  if (tally && spec.qkNorm != QkNorm::none) {
    tally->maxQ2 = max_row_norm2(ws.Q.data(), T, dk, tally->maxQ2);
    tally->maxK2 = max_row_norm2(ws.K.data(), T, dk, tally->maxK2);
  }
  transpose(T, dk, ws.K.data(), ws.Kt.data());
  gemm(T, T, dk, ws.Q.data(), dk, 1, ws.Kt.data(), T, ws.S.data(), T, false);
  // as the attention run does: the raw fp32 dot products rounded, then scaled and rounded again
  round_if(fmt, ws.S.data(), static_cast<std::size_t>(T) * T);
  shape_logits(spec, fmt, T, ws);
  if (tally) tally_logits(ws.S.data(), T, *tally);
  softmax_rows(ws.S.data(), T, fmt);
  gemm(T, dk, T, ws.S.data(), T, 1, ws.V.data(), dk, ws.O.data(), dk, false);
  round_if(fmt, ws.O.data(), Tdk);
}

// kernels.hpp's gemm out of line, for the products that run once per step (the tables, the
// weights' gradients, weightBound's): they share one copy of the kernel, which keeps the wasm
// build small, while the per-example products stay inlined where they are called.
[[gnu::noinline]] void gemm_once(int M, int N, int K, const float* A, std::ptrdiff_t ars,
                                 std::ptrdiff_t acs, const float* B, std::ptrdiff_t ldb, float* C,
                                 std::ptrdiff_t ldc, bool accumulate) {
  gemm(M, N, K, A, ars, acs, B, ldb, C, ldc, accumulate);
}

void project_tables(const Params<float>& p, FloatScratch& ws) {
  const Dims& d = p.dims;
  const int nvoc = d.vocab();
  gemm_once(nvoc, d.dk, d.D, p.E.data(), d.D, 1, p.Wq.data(), d.dk, ws.Pq.data(), d.dk, false);
  gemm_once(nvoc, d.dk, d.D, p.E.data(), d.D, 1, p.Wk.data(), d.dk, ws.Pk.data(), d.dk, false);
  gemm_once(nvoc, d.dk, d.D, p.E.data(), d.D, 1, p.Wv.data(), d.dk, ws.Pv.data(), d.dk, false);
}

double sum_squares(const std::vector<float>& x) {
  double s = 0.0;
  for (float v : x) s += static_cast<double>(v) * static_cast<double>(v);
  return s;
}

}  // namespace

void square_product(int D, int K, const float* A, std::ptrdiff_t ars, std::ptrdiff_t acs,
                    const float* B, float* C) {
  gemm_once(D, D, K, A, ars, acs, B, D, C, D, false);
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

void float_loss_and_grad(const Params<float>& p, const Batch& batch, const LogitSpec& spec,
                         Format fmt, Params<float>& g, StepMetrics& metrics, FloatScratch& ws) {
  const Dims& d = p.dims;
  const int T = d.T, dk = d.dk, D = d.D, nV = d.nV, nvoc = d.vocab(), B = batch.B;
  const bool normed = spec.qkNorm != QkNorm::none;
  if (g.dims.dk != dk || g.dims.T != T || g.E.size() != p.E.size() || g.gq.size() != p.gq.size())
    g.resize(d, normed);
  std::fill(g.gq.begin(), g.gq.end(), 0.0f);
  std::fill(g.gk.begin(), g.gk.end(), 0.0f);
  const float scale = static_cast<float>(spec.scale);
  const bool capped = spec.softcap > 0.0;
  const float lengthFactor = static_cast<float>(spec.lengthFactor);
  project_tables(p, ws);
  transpose(D, dk, p.Wq.data(), ws.WqT.data());
  transpose(D, dk, p.Wk.data(), ws.WkT.data());
  transpose(D, dk, p.Wv.data(), ws.WvT.data());
  transpose(dk, nV, p.Wo.data(), ws.WoT.data());
  for (auto* v : {&ws.dPq, &ws.dPk, &ws.dPv}) std::fill(v->begin(), v->end(), 0.0f);

  const float invN = static_cast<float>(1.0 / (static_cast<double>(B) * T));
  double loss = 0.0;
  long long correct = 0;
  AttentionTally tally;
  float* tmp = ws.tmp.data();

  for (int e = 0; e < B; ++e) {
    forward_attention(p, batch, e, spec, fmt, ws, &tally);
    const float* P = ws.S.data();
    tally_weights(P, T, tmp, tally);
    // read-out and cross-entropy
    gemm(T, nV, dk, ws.O.data(), dk, 1, p.Wo.data(), nV, ws.Z.data(), nV, false);
    const std::int32_t* tgt = &batch.target[static_cast<std::size_t>(e) * T];
    for (int i = 0; i < T; ++i) {
      const float* z = &ws.Z[static_cast<std::size_t>(i) * nV];
      float* dz = &ws.dZ[static_cast<std::size_t>(i) * nV];
      const float m = row_max(z, nV);
      int best = 0;
      for (int v = 1; v < nV; ++v)
        if (z[v] > z[best]) best = v;
      if (best == tgt[i] && !std::isnan(m)) ++correct;
      for (int v = 0; v < nV; ++v) tmp[v] = z[v] - m;
      apply_vf(tmp, static_cast<std::size_t>(nV), [](simd::vf x) { return exp_vf(x); });
      float sum = 0.0f;
      for (int v = 0; v < nV; ++v) sum = sum + tmp[v];
      loss += det_log(static_cast<double>(sum)) - static_cast<double>(z[tgt[i]] - m);
      for (int v = 0; v < nV; ++v) dz[v] = (tmp[v] / sum - (v == tgt[i] ? 1.0f : 0.0f)) * invN;
    }
    // backward: read-out
    gemm(dk, nV, T, ws.O.data(), 1, dk, ws.dZ.data(), nV, g.Wo.data(), nV, e > 0);
    gemm(T, dk, nV, ws.dZ.data(), nV, 1, ws.WoT.data(), dk, ws.dO.data(), dk, false);
    // O = A V
    transpose(T, dk, ws.V.data(), ws.Vt.data());
    gemm(T, T, dk, ws.dO.data(), dk, 1, ws.Vt.data(), T, ws.dP.data(), T, false);
    gemm(T, dk, T, P, 1, T, ws.dO.data(), dk, ws.dV.data(), dk, false);
    // softmax and scale: dS = A * (dA - rowdot(A, dA)) * s, in place in dP; with a soft-cap
    // times its derivative 1 - tanh^2 before the scale, and times the length factor after it
    for (int i = 0; i < T; ++i) {
      const float* a = P + static_cast<std::size_t>(i) * T;
      float* da = &ws.dP[static_cast<std::size_t>(i) * T];
      float dot = 0.0f;
      for (int j = 0; j < T; ++j) dot = dot + a[j] * da[j];
      if (!capped && lengthFactor == 0.0f) {
        int j = 0;
        const simd::vf dv(dot), sv(scale);
        for (; j + static_cast<int>(simd::W) <= T; j += static_cast<int>(simd::W))
          simd::storeu(da + j, simd::loadu(a + j) * (simd::loadu(da + j) - dv) * sv);
        for (; j < T; ++j) da[j] = a[j] * (da[j] - dot) * scale;
        continue;
      }
      const float* th = &ws.Th[static_cast<std::size_t>(i) * T];
      for (int j = 0; j < T; ++j) {
        float v = a[j] * (da[j] - dot);
        if (capped) v = v * (1.0f - th[j] * th[j]);
        v = v * scale;
        if (lengthFactor != 0.0f) v = v * lengthFactor;
        da[j] = v;
      }
    }
    const float* dS = ws.dP.data();
    gemm(T, dk, T, dS, T, 1, ws.K.data(), dk, ws.dQ.data(), dk, false);
    gemm(T, dk, T, dS, 1, T, ws.Q.data(), dk, ws.dK.data(), dk, false);
    if (normed) {
      qk_norm_rows_backward(spec.qkNorm, p.gq.data(), ws.Qn.data(), ws.rq.data(), ws.dQ.data(),
                            g.gq.data(), T, dk);
      qk_norm_rows_backward(spec.qkNorm, p.gk.data(), ws.Kn.data(), ws.rk.data(), ws.dK.data(),
                            g.gk.data(), T, dk);
    }
    // scatter into the table gradients
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
  // tables -> weights and embeddings
  gemm_once(D, dk, nvoc, p.E.data(), 1, D, ws.dPq.data(), dk, g.Wq.data(), dk, false);
  gemm_once(D, dk, nvoc, p.E.data(), 1, D, ws.dPk.data(), dk, g.Wk.data(), dk, false);
  gemm_once(D, dk, nvoc, p.E.data(), 1, D, ws.dPv.data(), dk, g.Wv.data(), dk, false);
  gemm_once(nvoc, D, dk, ws.dPq.data(), dk, 1, ws.WqT.data(), D, g.E.data(), D, false);
  gemm_once(nvoc, D, dk, ws.dPk.data(), dk, 1, ws.WkT.data(), D, g.E.data(), D, true);
  gemm_once(nvoc, D, dk, ws.dPv.data(), dk, 1, ws.WvT.data(), D, g.E.data(), D, true);

  const double n = static_cast<double>(B) * T;
  metrics.loss = loss / n;
  metrics.accuracy = static_cast<double>(correct) / n;
  metrics.entropy = tally.entropySum / n;
  metrics.saturatedFraction = static_cast<double>(tally.saturated) / n;
  metrics.gradNormWq = std::sqrt(sum_squares(g.Wq));
  metrics.gradNormWk = std::sqrt(sum_squares(g.Wk));
  metrics.maxLogit = tally.maxAbsLogit;
  metrics.minRowEntropy = tally.minRowEntropy;
  metrics.entropyFloor = entropy_lower_bound(T, tally.maxCentredNorm);
  metrics.weightBound = weight_bound(p, batch, spec, tally.maxQ2, tally.maxK2, ws);
}

}  // namespace attnscale::train
