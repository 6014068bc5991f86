// Optimized float32 forward + backward of the trainer's model (see train.hpp for the model).
//
// Layout of the work for one batch:
//   1. projected vocabulary tables Pq = E Wq, Pk = E Wk, Pv = E Wv ((2T+16) x dk): a position's
//      q is then (Pq[a] + Pq[b] + Pq[c]) / sqrt(3), far cheaper than projecting B*T positions;
//   2. per example: Q, K, V (rounded), Q K^T (rounded), times s (rounded), softmax (exp and
//      weights rounded), O = A V (rounded), logits, cross-entropy; then the backward pass of that
//      example, whose dQ, dK, dV rows are scattered into the gradients of the tables;
//   3. dWq = E^T dPq (same for k, v) and dE = dPq Wq^T + dPk Wk^T + dPv Wv^T.
// Every product is kernels.hpp's gemm (vectorised along output rows, fixed order per element);
// the few reductions (softmax sums, row dot products, metrics) run sequentially in index order.
// That is what makes the results identical in every build (see kernels.hpp).
#include "train/model.hpp"

#include <cmath>
#include <cstring>
#include <limits>

#include "train/detmath.hpp"
#include "train/kernels.hpp"

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

// Forward of example e up to the attention output: ws.Q, K, V, Kt, S (= weights), O.
// Assumes ws.Pq/Pk/Pv hold the projected tables of p.
void forward_attention(const Dims& d, const Batch& batch, int e, float scale, Format fmt,
                       FloatScratch& ws) {
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
  round_if(fmt, ws.Q.data(), Tdk);
  round_if(fmt, ws.K.data(), Tdk);
  round_if(fmt, ws.V.data(), Tdk);
  transpose(T, dk, ws.K.data(), ws.Kt.data());
  gemm(T, T, dk, ws.Q.data(), dk, 1, ws.Kt.data(), T, ws.S.data(), T, false);
  // as the attention run does: the raw fp32 dot products rounded, then scaled and rounded again
  round_if(fmt, ws.S.data(), static_cast<std::size_t>(T) * T);
  if (scale != 1.0f) {
    scale_inplace(ws.S.data(), scale, static_cast<std::size_t>(T) * T);
    round_if(fmt, ws.S.data(), static_cast<std::size_t>(T) * T);
  }
  softmax_rows(ws.S.data(), T, fmt);
  gemm(T, dk, T, ws.S.data(), T, 1, ws.V.data(), dk, ws.O.data(), dk, false);
  round_if(fmt, ws.O.data(), Tdk);
}

void project_tables(const Params<float>& p, FloatScratch& ws) {
  const Dims& d = p.dims;
  const int nvoc = d.vocab();
  gemm(nvoc, d.dk, d.D, p.E.data(), d.D, 1, p.Wq.data(), d.dk, ws.Pq.data(), d.dk, false);
  gemm(nvoc, d.dk, d.D, p.E.data(), d.D, 1, p.Wk.data(), d.dk, ws.Pk.data(), d.dk, false);
  gemm(nvoc, d.dk, d.D, p.E.data(), d.D, 1, p.Wv.data(), d.dk, ws.Pv.data(), d.dk, false);
}

double sum_squares(const std::vector<float>& x) {
  double s = 0.0;
  for (float v : x) s += static_cast<double>(v) * static_cast<double>(v);
  return s;
}

}  // namespace

void FloatScratch::resize(const Dims& d) {
  const std::size_t nvoc = static_cast<std::size_t>(d.vocab()), D = static_cast<std::size_t>(d.D),
                    dk = static_cast<std::size_t>(d.dk), T = static_cast<std::size_t>(d.T),
                    nV = static_cast<std::size_t>(d.nV);
  for (auto* v : {&Pq, &Pk, &Pv, &dPq, &dPk, &dPv}) v->assign(nvoc * dk, 0.0f);
  for (auto* v : {&WqT, &WkT, &WvT}) v->assign(dk * D, 0.0f);
  WoT.assign(nV * dk, 0.0f);
  for (auto* v : {&Q, &K, &V, &Kt, &Vt, &O, &dO, &dQ, &dK, &dV}) v->assign(T * dk, 0.0f);
  S.assign(T * T, 0.0f);
  dP.assign(T * T, 0.0f);
  Z.assign(T * nV, 0.0f);
  dZ.assign(T * nV, 0.0f);
  tmp.assign((T > nV ? T : nV) + simd::W, 0.0f);
}

void float_attention(const Params<float>& p, const Batch& batch, int e, float scale, Format fmt,
                     float* out, FloatScratch& ws) {
  project_tables(p, ws);
  forward_attention(p.dims, batch, e, scale, fmt, ws);
  std::memcpy(out, ws.S.data(), sizeof(float) * static_cast<std::size_t>(p.dims.T) * p.dims.T);
}

void float_loss_and_grad(const Params<float>& p, const Batch& batch, float scale, Format fmt,
                         Params<float>& g, StepMetrics& metrics, FloatScratch& ws) {
  const Dims& d = p.dims;
  const int T = d.T, dk = d.dk, D = d.D, nV = d.nV, nvoc = d.vocab(), B = batch.B;
  if (g.dims.dk != dk || g.dims.T != T || g.E.size() != p.E.size()) g.resize(d);
  project_tables(p, ws);
  transpose(D, dk, p.Wq.data(), ws.WqT.data());
  transpose(D, dk, p.Wk.data(), ws.WkT.data());
  transpose(D, dk, p.Wv.data(), ws.WvT.data());
  transpose(dk, nV, p.Wo.data(), ws.WoT.data());
  for (auto* v : {&ws.dPq, &ws.dPk, &ws.dPv}) std::fill(v->begin(), v->end(), 0.0f);

  const float invN = static_cast<float>(1.0 / (static_cast<double>(B) * T));
  double loss = 0.0, entropy = 0.0;
  long long correct = 0, saturated = 0;
  float* tmp = ws.tmp.data();

  for (int e = 0; e < B; ++e) {
    forward_attention(d, batch, e, scale, fmt, ws);
    const float* P = ws.S.data();
    // attention metrics
    for (int i = 0; i < T; ++i) {
      const float* row = P + static_cast<std::size_t>(i) * T;
      if (any_above(row, T, 0.99f)) ++saturated;  // largest weight > 0.99
      entropy += row_entropy(row, T, tmp);
    }
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
    // softmax and scale: dS = A * (dA - rowdot(A, dA)) * s, in place in dP
    for (int i = 0; i < T; ++i) {
      const float* a = P + static_cast<std::size_t>(i) * T;
      float* da = &ws.dP[static_cast<std::size_t>(i) * T];
      float dot = 0.0f;
      for (int j = 0; j < T; ++j) dot = dot + a[j] * da[j];
      int j = 0;
      const simd::vf dv(dot), sv(scale);
      for (; j + static_cast<int>(simd::W) <= T; j += static_cast<int>(simd::W))
        simd::storeu(da + j, simd::loadu(a + j) * (simd::loadu(da + j) - dv) * sv);
      for (; j < T; ++j) da[j] = a[j] * (da[j] - dot) * scale;
    }
    const float* dS = ws.dP.data();
    gemm(T, dk, T, dS, T, 1, ws.K.data(), dk, ws.dQ.data(), dk, false);
    gemm(T, dk, T, dS, 1, T, ws.Q.data(), dk, ws.dK.data(), dk, false);
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
  gemm(D, dk, nvoc, p.E.data(), 1, D, ws.dPq.data(), dk, g.Wq.data(), dk, false);
  gemm(D, dk, nvoc, p.E.data(), 1, D, ws.dPk.data(), dk, g.Wk.data(), dk, false);
  gemm(D, dk, nvoc, p.E.data(), 1, D, ws.dPv.data(), dk, g.Wv.data(), dk, false);
  gemm(nvoc, D, dk, ws.dPq.data(), dk, 1, ws.WqT.data(), D, g.E.data(), D, false);
  gemm(nvoc, D, dk, ws.dPk.data(), dk, 1, ws.WkT.data(), D, g.E.data(), D, true);
  gemm(nvoc, D, dk, ws.dPv.data(), dk, 1, ws.WvT.data(), D, g.E.data(), D, true);

  const double n = static_cast<double>(B) * T;
  metrics.loss = loss / n;
  metrics.accuracy = static_cast<double>(correct) / n;
  metrics.entropy = entropy / n;
  metrics.saturatedFraction = static_cast<double>(saturated) / n;
  metrics.gradNormWq = std::sqrt(sum_squares(g.Wq));
  metrics.gradNormWk = std::sqrt(sum_squares(g.Wk));
}

}  // namespace attnscale::train
