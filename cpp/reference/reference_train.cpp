// Plain double-precision reference of the trainer's model (forward + hand-written backward),
// written independently of the optimized path: no projected vocabulary tables, no transposed
// copies, no SIMD, std::exp / std::log / std::tanh; QK-norm is the engine's reference
// (kernels/qk_norm.hpp). Used by the gradient checks (tests/cpp/train/test_train_grad.cpp).
#include "reference/reference_train.hpp"

#include <algorithm>
#include <cmath>

#include "kernels/qk_norm.hpp"

namespace attnscale::train {

namespace {

// One row x (length n) -> y = gain * x^ with the engine's reference QK-norm; keeps x^ and
// 1/sqrt(var + eps) for the backward.
void qk_norm_row(QkNorm kind, const double* gain, const double* x, double* y, double* normed,
                 double& r, int n) {
  r = normalize_row_reference(kind, x, n, normed);
  for (int c = 0; c < n; ++c) y[c] = normed[c] * gain[c];
}

// dy (gradient of y) -> dx, adding the gain's gradient to dgain.
void qk_norm_row_backward(QkNorm kind, const double* gain, const double* normed, double r,
                          const double* dy, double* dx, double* dgain, int n) {
  for (int c = 0; c < n; ++c) {
    if (dgain) dgain[c] += dy[c] * normed[c];
    dx[c] = dy[c] * gain[c];
  }
  normalize_row_backward_reference(kind, normed, r, n, dx);
}

}  // namespace

namespace {

// One example's tokens, the buffers of its forward and backward, and the logit spec's numbers.
struct Example {
  const Params<double>& p;
  const LogitSpec& spec;
  int T, D, dk, nV;
  double r;     // 1/√3: the three role tokens are summed and scaled by it
  double invN;  // 1/(B·T): the loss is the mean over the batch's positions
  double mult;  // z = softcap(mult · q̂·k̂): scale times the length factor
  double cap;
  bool normed;
  const std::int32_t *key = nullptr, *val = nullptr, *qry = nullptr, *tgt = nullptr;
  std::vector<double> X, Q, K, V, S, P, O, Z, dZ, dO, dP, dS, dQ, dK, dV, dX, Qpre, Kpre, Qn, Kn,
      rq, rk, U;

  Example(const Params<double>& params, const LogitSpec& s, int B)
      : p(params),
        spec(s),
        T(params.dims.T),
        D(params.dims.D),
        dk(params.dims.dk),
        nV(params.dims.nV),
        r(1.0 / std::sqrt(3.0)),
        invN(1.0 / (static_cast<double>(B) * T)),
        mult(s.scale * (s.lengthFactor != 0.0 ? s.lengthFactor : 1.0)),
        cap(s.softcap),
        normed(s.qkNorm != QkNorm::none) {
    for (auto* v : {&X, &dX}) v->assign(T * D, 0.0);
    for (auto* v : {&Q, &K, &V, &O, &dO, &dQ, &dK, &dV, &Qpre, &Kpre, &Qn, &Kn})
      v->assign(T * dk, 0.0);
    for (auto* v : {&S, &P, &dP, &dS, &U}) v->assign(T * T, 0.0);
    for (auto* v : {&Z, &dZ}) v->assign(T * nV, 0.0);
    for (auto* v : {&rq, &rk}) v->assign(T, 0.0);
  }
};

// X from the embeddings, then Q, K, V, with QK-norm and its gains where the spec has it.
void embed_and_project(Example& x) {
  const Params<double>& p = x.p;
  const Dims& d = p.dims;
  const int T = x.T, D = x.D, dk = x.dk;
  for (int j = 0; j < T; ++j)
    for (int m = 0; m < D; ++m)
      x.X[j * D + m] = (p.E[x.key[j] * D + m] + p.E[d.value_row(x.val[j]) * D + m] +
                        p.E[d.query_row(x.qry[j]) * D + m]) *
                       x.r;
  for (int j = 0; j < T; ++j)
    for (int c = 0; c < dk; ++c) {
      double q = 0, k = 0, v = 0;
      for (int m = 0; m < D; ++m) {
        q += x.X[j * D + m] * p.Wq[m * dk + c];
        k += x.X[j * D + m] * p.Wk[m * dk + c];
        v += x.X[j * D + m] * p.Wv[m * dk + c];
      }
      x.Q[j * dk + c] = q, x.K[j * dk + c] = k, x.V[j * dk + c] = v;
    }
  if (!x.normed) return;
  x.Qpre = x.Q, x.Kpre = x.K;
  for (int j = 0; j < T; ++j) {
    qk_norm_row(x.spec.qkNorm, p.gq.data(), &x.Qpre[j * dk], &x.Q[j * dk], &x.Qn[j * dk], x.rq[j],
                dk);
    qk_norm_row(x.spec.qkNorm, p.gk.data(), &x.Kpre[j * dk], &x.K[j * dk], &x.Kn[j * dk], x.rk[j],
                dk);
  }
}

// The attention weights P, O = PV and the read-out's logits Z; adds each position's cross-entropy
// to `loss` (in the same order as one sum over the batch) and leaves its gradient in dZ.
void attend_and_read_out(Example& x, double& loss) {
  const int T = x.T, dk = x.dk, nV = x.nV;
  for (int i = 0; i < T; ++i) {
    double mx = -INFINITY;
    for (int j = 0; j < T; ++j) {
      double s = 0;
      for (int c = 0; c < dk; ++c) s += x.Q[i * dk + c] * x.K[j * dk + c];
      x.U[i * T + j] = s * x.mult;
      x.S[i * T + j] = x.cap > 0 ? x.cap * std::tanh(x.U[i * T + j] / x.cap) : x.U[i * T + j];
      mx = std::fmax(mx, x.S[i * T + j]);
    }
    double z = 0;
    for (int j = 0; j < T; ++j) z += (x.P[i * T + j] = std::exp(x.S[i * T + j] - mx));
    for (int j = 0; j < T; ++j) x.P[i * T + j] /= z;
  }
  for (int i = 0; i < T; ++i)
    for (int c = 0; c < dk; ++c) {
      double o = 0;
      for (int j = 0; j < T; ++j) o += x.P[i * T + j] * x.V[j * dk + c];
      x.O[i * dk + c] = o;
    }
  for (int i = 0; i < T; ++i) {
    double mx = -INFINITY;
    for (int v = 0; v < nV; ++v) {
      double z = 0;
      for (int c = 0; c < dk; ++c) z += x.O[i * dk + c] * x.p.Wo[c * nV + v];
      x.Z[i * nV + v] = z;
      mx = std::fmax(mx, z);
    }
    double sum = 0;
    for (int v = 0; v < nV; ++v) sum += std::exp(x.Z[i * nV + v] - mx);
    loss += std::log(sum) - (x.Z[i * nV + x.tgt[i]] - mx);
    for (int v = 0; v < nV; ++v)
      x.dZ[i * nV + v] =
          (std::exp(x.Z[i * nV + v] - mx) / sum - (v == x.tgt[i] ? 1.0 : 0.0)) * x.invN;
  }
}

// dZ back through the read-out (into g.Wo), O = PV (dP, dV), the softmax, the soft-cap and the
// multiplier (dS), to dQ and dK.
void backward_to_qk(Example& x, Params<double>& g) {
  const int T = x.T, dk = x.dk, nV = x.nV;
  for (int c = 0; c < dk; ++c)
    for (int v = 0; v < nV; ++v) {
      double s = 0;
      for (int i = 0; i < T; ++i) s += x.O[i * dk + c] * x.dZ[i * nV + v];
      g.Wo[c * nV + v] += s;
    }
  for (int i = 0; i < T; ++i)
    for (int c = 0; c < dk; ++c) {
      double s = 0;
      for (int v = 0; v < nV; ++v) s += x.dZ[i * nV + v] * x.p.Wo[c * nV + v];
      x.dO[i * dk + c] = s;
    }
  for (int i = 0; i < T; ++i)
    for (int j = 0; j < T; ++j) {
      double s = 0;
      for (int c = 0; c < dk; ++c) s += x.dO[i * dk + c] * x.V[j * dk + c];
      x.dP[i * T + j] = s;
    }
  for (int j = 0; j < T; ++j)
    for (int c = 0; c < dk; ++c) {
      double s = 0;
      for (int i = 0; i < T; ++i) s += x.P[i * T + j] * x.dO[i * dk + c];
      x.dV[j * dk + c] = s;
    }
  // softmax (Jacobian diag(p) - p p^T), the soft-cap (1 - tanh^2), then the multiplier
  for (int i = 0; i < T; ++i) {
    double dot = 0;
    for (int j = 0; j < T; ++j) dot += x.P[i * T + j] * x.dP[i * T + j];
    for (int j = 0; j < T; ++j) {
      const double th = x.cap > 0 ? std::tanh(x.U[i * T + j] / x.cap) : 0.0;
      x.dS[i * T + j] = x.P[i * T + j] * (x.dP[i * T + j] - dot) * (1.0 - th * th) * x.mult;
    }
  }
  for (int i = 0; i < T; ++i)
    for (int c = 0; c < dk; ++c) {
      double sq = 0, sk = 0;
      for (int j = 0; j < T; ++j) {
        sq += x.dS[i * T + j] * x.K[j * dk + c];
        sk += x.dS[j * T + i] * x.Q[j * dk + c];
      }
      x.dQ[i * dk + c] = sq;
      x.dK[i * dk + c] = sk;
    }
}

// dQ and dK back through QK-norm (into the gains' gradients), the projections and the
// embeddings.
void backward_to_embeddings(Example& x, Params<double>& g) {
  const Params<double>& p = x.p;
  const Dims& d = p.dims;
  const int T = x.T, D = x.D, dk = x.dk;
  if (x.normed) {
    std::vector<double> row(dk);
    for (int j = 0; j < T; ++j) {
      qk_norm_row_backward(x.spec.qkNorm, p.gq.data(), &x.Qn[j * dk], x.rq[j], &x.dQ[j * dk],
                           row.data(), g.gq.data(), dk);
      std::copy(row.begin(), row.end(), x.dQ.begin() + j * dk);
      qk_norm_row_backward(x.spec.qkNorm, p.gk.data(), &x.Kn[j * dk], x.rk[j], &x.dK[j * dk],
                           row.data(), g.gk.data(), dk);
      std::copy(row.begin(), row.end(), x.dK.begin() + j * dk);
    }
  }
  for (int m = 0; m < D; ++m)
    for (int c = 0; c < dk; ++c) {
      double sq = 0, sk = 0, sv = 0;
      for (int j = 0; j < T; ++j) {
        sq += x.X[j * D + m] * x.dQ[j * dk + c];
        sk += x.X[j * D + m] * x.dK[j * dk + c];
        sv += x.X[j * D + m] * x.dV[j * dk + c];
      }
      g.Wq[m * dk + c] += sq;
      g.Wk[m * dk + c] += sk;
      g.Wv[m * dk + c] += sv;
    }
  for (int j = 0; j < T; ++j)
    for (int m = 0; m < D; ++m) {
      double s = 0;
      for (int c = 0; c < dk; ++c)
        s += x.dQ[j * dk + c] * p.Wq[m * dk + c] + x.dK[j * dk + c] * p.Wk[m * dk + c] +
             x.dV[j * dk + c] * p.Wv[m * dk + c];
      x.dX[j * D + m] = s * x.r;
    }
  for (int j = 0; j < T; ++j)
    for (int m = 0; m < D; ++m) {
      g.E[x.key[j] * D + m] += x.dX[j * D + m];
      g.E[d.value_row(x.val[j]) * D + m] += x.dX[j * D + m];
      g.E[d.query_row(x.qry[j]) * D + m] += x.dX[j * D + m];
    }
}

}  // namespace

double reference_loss_and_grad(const Params<double>& p, const Batch& batch, const LogitSpec& spec,
                               Params<double>* grads) {
  const int T = p.dims.T, B = batch.B;
  if (grads) grads->resize(p.dims, spec.qkNorm != QkNorm::none);
  Example x(p, spec, B);
  double loss = 0.0;
  for (int e = 0; e < B; ++e) {
    x.key = &batch.key[e * T];
    x.val = &batch.val[e * T];
    x.qry = &batch.qry[e * T];
    x.tgt = &batch.target[e * T];
    embed_and_project(x);
    attend_and_read_out(x, loss);
    if (!grads) continue;
    backward_to_qk(x, *grads);
    backward_to_embeddings(x, *grads);
  }
  return loss * x.invN;
}

}  // namespace attnscale::train
