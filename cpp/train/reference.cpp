// Plain double-precision reference of the trainer's model (forward + hand-written backward),
// written independently of the optimized path: no projected vocabulary tables, no transposed
// copies, no SIMD, std::exp / std::log / std::tanh. Used by the gradient checks
// (tests/cpp/train/test_train_grad.cpp).
#include <algorithm>
#include <cmath>

#include "train/model.hpp"

namespace attnscale::train {

namespace {

// One row x (length n) -> y = gain * norm(x); keeps norm(x) and 1/sqrt(var + eps) for the backward.
void qk_norm_row(QkNorm kind, const double* gain, const double* x, double* y, double* normed,
                 double& r, int n) {
  double mean = 0;
  if (kind == QkNorm::layer) {
    for (int c = 0; c < n; ++c) mean += x[c];
    mean /= n;
  }
  double var = 0;
  for (int c = 0; c < n; ++c) var += (x[c] - mean) * (x[c] - mean);
  r = 1.0 / std::sqrt(var / n + static_cast<double>(kQkNormEps));
  for (int c = 0; c < n; ++c) {
    normed[c] = (x[c] - mean) * r;
    y[c] = normed[c] * gain[c];
  }
}

// dy (gradient of y) -> dx, adding the gain's gradient to dgain.
void qk_norm_row_backward(QkNorm kind, const double* gain, const double* normed, double r,
                          const double* dy, double* dx, double* dgain, int n) {
  double mean = 0, dot = 0;
  for (int c = 0; c < n; ++c) {
    if (dgain) dgain[c] += dy[c] * normed[c];
    const double dn = dy[c] * gain[c];
    mean += dn;
    dot += dn * normed[c];
  }
  mean = kind == QkNorm::layer ? mean / n : 0.0;
  dot /= n;
  for (int c = 0; c < n; ++c) dx[c] = r * (dy[c] * gain[c] - mean - normed[c] * dot);
}

}  // namespace

double reference_loss_and_grad(const Params<double>& p, const Batch& batch, const LogitSpec& spec,
                               Params<double>* grads) {
  const Dims& d = p.dims;
  const int T = d.T, D = d.D, dk = d.dk, nV = d.nV, B = batch.B;
  const double r = 1.0 / std::sqrt(3.0);
  const double invN = 1.0 / (static_cast<double>(B) * T);
  const bool normed = spec.qkNorm != QkNorm::none;
  // z = softcap(scale * q^.k^ * lengthFactor): the factor on q^.k^ before the cap
  const double mult = spec.scale * (spec.lengthFactor != 0.0 ? spec.lengthFactor : 1.0);
  const double cap = spec.softcap;
  if (grads) {
    grads->resize(d, normed);
  }
  std::vector<double> X(T * D), Q(T * dk), K(T * dk), V(T * dk), S(T * T), P(T * T), O(T * dk),
      Z(T * nV), dZ(T * nV), dO(T * dk), dP(T * T), dS(T * T), dQ(T * dk), dK(T * dk), dV(T * dk),
      dX(T * D), Qpre(T * dk), Kpre(T * dk), Qn(T * dk), Kn(T * dk), rq(T), rk(T), U(T * T);
  double loss = 0.0;
  for (int e = 0; e < B; ++e) {
    const std::int32_t* key = &batch.key[e * T];
    const std::int32_t* val = &batch.val[e * T];
    const std::int32_t* qry = &batch.qry[e * T];
    const std::int32_t* tgt = &batch.target[e * T];
    for (int j = 0; j < T; ++j)
      for (int m = 0; m < D; ++m)
        X[j * D + m] = (p.E[key[j] * D + m] + p.E[d.value_row(val[j]) * D + m] +
                        p.E[d.query_row(qry[j]) * D + m]) *
                       r;
    for (int j = 0; j < T; ++j)
      for (int c = 0; c < dk; ++c) {
        double q = 0, k = 0, v = 0;
        for (int m = 0; m < D; ++m) {
          q += X[j * D + m] * p.Wq[m * dk + c];
          k += X[j * D + m] * p.Wk[m * dk + c];
          v += X[j * D + m] * p.Wv[m * dk + c];
        }
        Q[j * dk + c] = q, K[j * dk + c] = k, V[j * dk + c] = v;
      }
    if (normed) {
      Qpre = Q, Kpre = K;
      for (int j = 0; j < T; ++j) {
        qk_norm_row(spec.qkNorm, p.gq.data(), &Qpre[j * dk], &Q[j * dk], &Qn[j * dk], rq[j], dk);
        qk_norm_row(spec.qkNorm, p.gk.data(), &Kpre[j * dk], &K[j * dk], &Kn[j * dk], rk[j], dk);
      }
    }
    for (int i = 0; i < T; ++i) {
      double mx = -INFINITY;
      for (int j = 0; j < T; ++j) {
        double s = 0;
        for (int c = 0; c < dk; ++c) s += Q[i * dk + c] * K[j * dk + c];
        U[i * T + j] = s * mult;
        S[i * T + j] = cap > 0 ? cap * std::tanh(U[i * T + j] / cap) : U[i * T + j];
        mx = std::fmax(mx, S[i * T + j]);
      }
      double z = 0;
      for (int j = 0; j < T; ++j) z += (P[i * T + j] = std::exp(S[i * T + j] - mx));
      for (int j = 0; j < T; ++j) P[i * T + j] /= z;
    }
    for (int i = 0; i < T; ++i)
      for (int c = 0; c < dk; ++c) {
        double o = 0;
        for (int j = 0; j < T; ++j) o += P[i * T + j] * V[j * dk + c];
        O[i * dk + c] = o;
      }
    for (int i = 0; i < T; ++i) {
      double mx = -INFINITY;
      for (int v = 0; v < nV; ++v) {
        double z = 0;
        for (int c = 0; c < dk; ++c) z += O[i * dk + c] * p.Wo[c * nV + v];
        Z[i * nV + v] = z;
        mx = std::fmax(mx, z);
      }
      double sum = 0;
      for (int v = 0; v < nV; ++v) sum += std::exp(Z[i * nV + v] - mx);
      loss += std::log(sum) - (Z[i * nV + tgt[i]] - mx);
      for (int v = 0; v < nV; ++v)
        dZ[i * nV + v] = (std::exp(Z[i * nV + v] - mx) / sum - (v == tgt[i] ? 1.0 : 0.0)) * invN;
    }
    if (!grads) continue;
    Params<double>& g = *grads;
    // read-out
    for (int c = 0; c < dk; ++c)
      for (int v = 0; v < nV; ++v) {
        double s = 0;
        for (int i = 0; i < T; ++i) s += O[i * dk + c] * dZ[i * nV + v];
        g.Wo[c * nV + v] += s;
      }
    for (int i = 0; i < T; ++i)
      for (int c = 0; c < dk; ++c) {
        double s = 0;
        for (int v = 0; v < nV; ++v) s += dZ[i * nV + v] * p.Wo[c * nV + v];
        dO[i * dk + c] = s;
      }
    // O = P V
    for (int i = 0; i < T; ++i)
      for (int j = 0; j < T; ++j) {
        double s = 0;
        for (int c = 0; c < dk; ++c) s += dO[i * dk + c] * V[j * dk + c];
        dP[i * T + j] = s;
      }
    for (int j = 0; j < T; ++j)
      for (int c = 0; c < dk; ++c) {
        double s = 0;
        for (int i = 0; i < T; ++i) s += P[i * T + j] * dO[i * dk + c];
        dV[j * dk + c] = s;
      }
    // softmax (Jacobian diag(p) - p p^T), the soft-cap (1 - tanh^2), then the multiplier
    for (int i = 0; i < T; ++i) {
      double dot = 0;
      for (int j = 0; j < T; ++j) dot += P[i * T + j] * dP[i * T + j];
      for (int j = 0; j < T; ++j) {
        const double th = cap > 0 ? std::tanh(U[i * T + j] / cap) : 0.0;
        dS[i * T + j] = P[i * T + j] * (dP[i * T + j] - dot) * (1.0 - th * th) * mult;
      }
    }
    for (int i = 0; i < T; ++i)
      for (int c = 0; c < dk; ++c) {
        double sq = 0, sk = 0;
        for (int j = 0; j < T; ++j) {
          sq += dS[i * T + j] * K[j * dk + c];
          sk += dS[j * T + i] * Q[j * dk + c];
        }
        dQ[i * dk + c] = sq;
        dK[i * dk + c] = sk;
      }
    if (normed) {
      std::vector<double> row(dk);
      for (int j = 0; j < T; ++j) {
        qk_norm_row_backward(spec.qkNorm, p.gq.data(), &Qn[j * dk], rq[j], &dQ[j * dk], row.data(),
                             grads->gq.data(), dk);
        std::copy(row.begin(), row.end(), dQ.begin() + j * dk);
        qk_norm_row_backward(spec.qkNorm, p.gk.data(), &Kn[j * dk], rk[j], &dK[j * dk], row.data(),
                             grads->gk.data(), dk);
        std::copy(row.begin(), row.end(), dK.begin() + j * dk);
      }
    }
    // projections
    for (int m = 0; m < D; ++m)
      for (int c = 0; c < dk; ++c) {
        double sq = 0, sk = 0, sv = 0;
        for (int j = 0; j < T; ++j) {
          sq += X[j * D + m] * dQ[j * dk + c];
          sk += X[j * D + m] * dK[j * dk + c];
          sv += X[j * D + m] * dV[j * dk + c];
        }
        g.Wq[m * dk + c] += sq;
        g.Wk[m * dk + c] += sk;
        g.Wv[m * dk + c] += sv;
      }
    for (int j = 0; j < T; ++j)
      for (int m = 0; m < D; ++m) {
        double s = 0;
        for (int c = 0; c < dk; ++c)
          s += dQ[j * dk + c] * p.Wq[m * dk + c] + dK[j * dk + c] * p.Wk[m * dk + c] +
               dV[j * dk + c] * p.Wv[m * dk + c];
        dX[j * D + m] = s * r;
      }
    for (int j = 0; j < T; ++j)
      for (int m = 0; m < D; ++m) {
        g.E[key[j] * D + m] += dX[j * D + m];
        g.E[d.value_row(val[j]) * D + m] += dX[j * D + m];
        g.E[d.query_row(qry[j]) * D + m] += dX[j * D + m];
      }
  }
  return loss * invN;
}

}  // namespace attnscale::train
