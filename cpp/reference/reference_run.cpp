#include "reference/reference_run.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "kernels/qk_norm.hpp"
#include "rng/counter_normal.hpp"
#include "stats/logit_theory.hpp"
#include "stats/summary.hpp"

namespace attnscale {

namespace {
// fp32 stays in double (the reference's own precision); other formats round through float.
double round_to(const Config& c, double x) {
  if (c.format.precision == Precision::fp32) return x;
  return round_reference(c.format, static_cast<float>(x));
}
}  // namespace

ReferenceInputs reference_inputs(const Config& c) {
  ReferenceInputs in;
  in.seqLen = c.seqLen;
  in.dk = c.dk;
  const int T = c.seqLen, d = c.dk;
  std::vector<float> zq(d), zk(d), zv(d), zg(d);
  const float mu = static_cast<float>(c.mean), sigma = static_cast<float>(c.std);
  const float rho = static_cast<float>(c.correlation);
  const float rhoBar = static_cast<float>(std::sqrt(1.0 - c.correlation * c.correlation));
  for (int t = 0; t < T; ++t) {
    fill_normal_row(c.seed, Tensor::q, t, d, zq.data());
    fill_normal_row(c.seed, Tensor::kIndependent, t, d, zk.data());
    fill_normal_row(c.seed, Tensor::v, t, d, zv.data());
    fill_normal_row(c.seed, Tensor::upstreamGrad, t, d, zg.data());
    for (int i = 0; i < d; ++i) {
      const float q = mu + sigma * zq[i];
      const float k = mu + sigma * (rho * zq[i] + rhoBar * zk[i]);
      in.q.push_back(round_reference(c.format, q));
      in.k.push_back(round_reference(c.format, k));
      in.v.push_back(round_reference(c.format, zv[i]));
      in.g.push_back(zg[i]);
    }
  }
  return in;
}

double reference_jacobian_norm_explicit(const std::vector<double>& p) {
  double sum = 0;
  for (std::size_t i = 0; i < p.size(); ++i)
    for (std::size_t j = 0; j < p.size(); ++j) {
      const double jij = (i == j ? p[i] : 0.0) - p[i] * p[j];
      sum += jij * jij;
    }
  return std::sqrt(sum);
}

namespace {
// QK-norm of every row of x (T × d) in double, rounded to the format as the engine stores x̂;
// inv[t] = 1/√(… + ε) of row t.
std::vector<double> reference_normalize(const Config& c, const std::vector<double>& x, int T, int d,
                                        std::vector<double>& inv) {
  std::vector<double> out(x.size());
  inv.assign(T, 1.0);
  for (int t = 0; t < T; ++t) {
    double* row = &out[static_cast<std::size_t>(t) * d];
    inv[t] = normalize_row_reference(c.qkNorm, &x[static_cast<std::size_t>(t) * d], d, row);
    for (int i = 0; i < d; ++i) row[i] = round_to(c, row[i]);
  }
  return out;
}

// ∂L/∂x = J ∂L/∂x̂ for every row.
void reference_normalize_backward(QkNorm norm, const std::vector<double>& xhat,
                                  const std::vector<double>& inv, int T, int d,
                                  std::vector<double>& g) {
  for (int t = 0; t < T; ++t) {
    const std::size_t row = static_cast<std::size_t>(t) * d;
    normalize_row_backward_reference(norm, &xhat[row], inv[t], d, &g[row]);
  }
}
}  // namespace

namespace {

// The logits of every (query, key) pair, z = round(cap(round(q̂·k̂) · s · ℓ_i)) with
// cap(u) = c·tanh(u/c) and ℓ_i = lengthScale · ln n_i, and what the backward needs of them.
struct ReferenceLogits {
  std::vector<double> qn, kn;       // q̂ and k̂ (q and k without QK-norm), T×d
  std::vector<double> qInv, kInv;   // 1/√(… + ε) of each row (QK-norm only)
  std::vector<double> rowFactor;    // ℓ_i, 1 when off
  std::vector<double> raw, normed;  // round(q·k), round(q̂·k̂), T×T
  std::vector<double> z, capSlope;  // the logits and 1 − tanh² of the cap (1 when off), T×T
};

ReferenceLogits reference_logits(const Config& c, const ReferenceInputs& in, double s) {
  const int T = c.seqLen, d = c.dk;
  const bool norm = c.qkNorm != QkNorm::none;
  ReferenceLogits L;
  L.qn = norm ? reference_normalize(c, in.q, T, d, L.qInv) : in.q;
  L.kn = norm ? reference_normalize(c, in.k, T, d, L.kInv) : in.k;
  L.rowFactor.assign(T, 1.0);
  if (c.lengthScale > 0)
    for (int i = 0; i < T; ++i)
      L.rowFactor[i] = c.lengthScale * std::log(visible_keys(i, T, c.causal));
  L.raw.resize(static_cast<std::size_t>(T) * T);
  L.normed.resize(L.raw.size());
  L.z.resize(L.raw.size());
  L.capSlope.assign(L.raw.size(), 1.0);
  for (int i = 0; i < T; ++i)
    for (int j = 0; j < T; ++j) {
      double dot = 0, ndot = 0;
      for (int k = 0; k < d; ++k) {
        dot += in.q[i * d + k] * in.k[j * d + k];
        ndot += L.qn[i * d + k] * L.kn[j * d + k];
      }
      L.raw[i * T + j] = round_to(c, dot);
      L.normed[i * T + j] = round_to(c, ndot);
      double u = L.normed[i * T + j] * s * L.rowFactor[i];
      if (c.softcap > 0) {
        const double th = std::tanh(u / c.softcap);
        u = c.softcap * th;
        L.capSlope[i * T + j] = 1 - th * th;
      }
      L.z[i * T + j] = round_to(c, u);
    }
  return L;
}

// Mean and σ of m (T×T) over the pairs the mask lets through, and where wanted its smallest and
// largest finite value and how many are not finite (left out of the moments).
void visible_moments(const Config& c, const std::vector<double>& m, double& mean, double& sd,
                     double* lo, double* hi, std::uint64_t* nonFinite) {
  const int T = c.seqLen;
  double sum = 0, sumSq = 0, n = 0, mn = INFINITY, mx = -INFINITY;
  std::uint64_t bad = 0;
  for (int i = 0; i < T; ++i)
    for (int j = 0; j < visible_keys(i, T, c.causal); ++j) {
      const double x = m[i * T + j];
      if (!std::isfinite(x)) {
        ++bad;
        continue;
      }
      sum += x;
      n += 1;
      mn = std::min(mn, x);
      mx = std::max(mx, x);
    }
  mean = sum / n;
  for (int i = 0; i < T; ++i)
    for (int j = 0; j < visible_keys(i, T, c.causal); ++j) {
      const double x = m[i * T + j];
      if (std::isfinite(x)) sumSq += (x - mean) * (x - mean);
    }
  sd = std::sqrt(sumSq / n);
  if (lo) *lo = mn;
  if (hi) *hi = mx;
  if (nonFinite) *nonFinite = bad;
}

// The softmax of every row of z into out.attention, with each row's entropy, largest weight and
// Jacobian norm, and their means over the finite rows into out.stats.
void reference_softmax(const Config& c, const std::vector<double>& z, ReferenceResult& out) {
  const int T = c.seqLen;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  RunStats& st = out.stats;
  std::vector<double>& p = out.attention;
  p.assign(static_cast<std::size_t>(T) * T, 0.0);
  out.rowEntropy.resize(T);
  out.rowMaxWeight.resize(T);
  out.rowJacobianNorm.resize(T);
  double hSum = 0, hMaxSum = 0, wSum = 0, jSum = 0, saturated = 0, finiteRows = 0;
  std::vector<float> rowNorms;
  for (int i = 0; i < T; ++i) {
    const int n = visible_keys(i, T, c.causal);
    double m = 0;
    if (c.subtractMax) {
      m = -INFINITY;
      for (int j = 0; j < n; ++j) m = std::max(m, z[i * T + j]);
    }
    double l = 0;
    for (int j = 0; j < n; ++j) {
      const double e = round_to(c, std::exp(z[i * T + j] - m));
      st.nonFinite.exp += std::isfinite(e) ? 0 : 1;
      p[i * T + j] = e;
      l += e;
    }
    bool finite = true;
    double h = 0, w = 0, s2 = 0, s3 = 0;
    for (int j = 0; j < n; ++j) {
      const double x = round_to(c, p[i * T + j] / l);
      p[i * T + j] = x;
      if (!std::isfinite(x)) {
        finite = false;
        ++st.nonFinite.weights;
        continue;
      }
      if (x > 0) h -= x * std::log(x);
      w = std::max(w, x);
      s2 += x * x;
      s3 += x * x * x;
    }
    hMaxSum += std::log(static_cast<double>(n));
    const double jn = std::sqrt(std::max(0.0, s2 - 2 * s3 + s2 * s2));
    out.rowEntropy[i] = finite ? h : nan;
    out.rowMaxWeight[i] = finite ? w : nan;
    out.rowJacobianNorm[i] = finite ? jn : nan;
    if (!finite) continue;
    rowNorms.push_back(static_cast<float>(jn));
    finiteRows += 1;
    hSum += h;
    wSum += w;
    jSum += jn;
    saturated += w > 0.99 ? 1 : 0;
  }
  st.entropy = hSum / finiteRows;
  st.entropyMax = hMaxSum / T;
  st.maxWeight = wSum / finiteRows;
  st.saturatedFraction = saturated / finiteRows;
  st.jacobianNormMean = jSum / finiteRows;
  st.jacobianNormMedian = median_of_finite(rowNorms);
  st.nonFiniteRows = T - finiteRows;
}

// O = PV, rounded to the format, into out.output.
void reference_output(const Config& c, const ReferenceInputs& in, ReferenceResult& out) {
  const int T = c.seqLen, d = c.dk;
  const std::vector<double>& p = out.attention;
  out.output.assign(static_cast<std::size_t>(T) * d, 0.0);
  for (int i = 0; i < T; ++i)
    for (int k = 0; k < d; ++k) {
      double o = 0;
      for (int j = 0; j < T; ++j) o += p[i * T + j] * in.v[j * d + k];
      out.output[i * d + k] = round_to(c, o);
      out.stats.nonFinite.output += std::isfinite(out.output[i * d + k]) ? 0 : 1;
    }
}

// The backward of L = Σ O ⊙ G into out.gradQ and out.gradK, and their RMS into out.stats.
void reference_backward(const Config& c, const ReferenceInputs& in, const ReferenceLogits& L,
                        double s, ReferenceResult& out) {
  const int T = c.seqLen, d = c.dk;
  const std::vector<double>& p = out.attention;
  std::vector<double> ds(static_cast<std::size_t>(T) * T, 0.0);
  for (int i = 0; i < T; ++i) {
    const int n = visible_keys(i, T, c.causal);
    std::vector<double> dp(n);
    double r = 0;
    for (int j = 0; j < n; ++j) {
      double v = 0;
      for (int k = 0; k < d; ++k) v += in.g[i * d + k] * in.v[j * d + k];
      dp[j] = v;
      r += p[i * T + j] * v;
    }
    for (int j = 0; j < n; ++j)
      ds[i * T + j] = s * L.rowFactor[i] * L.capSlope[i * T + j] * p[i * T + j] * (dp[j] - r);
  }
  out.gradQ.assign(static_cast<std::size_t>(T) * d, 0.0);
  out.gradK.assign(static_cast<std::size_t>(T) * d, 0.0);
  for (int i = 0; i < T; ++i)
    for (int j = 0; j < T; ++j)
      for (int k = 0; k < d; ++k) {
        out.gradQ[i * d + k] += ds[i * T + j] * L.kn[j * d + k];
        out.gradK[j * d + k] += ds[i * T + j] * L.qn[i * d + k];
      }
  if (c.qkNorm != QkNorm::none) {
    reference_normalize_backward(c.qkNorm, L.qn, L.qInv, T, d, out.gradQ);
    reference_normalize_backward(c.qkNorm, L.kn, L.kInv, T, d, out.gradK);
  }
  auto rmsOf = [](const std::vector<double>& x) {
    double sum = 0;
    for (double v : x) sum += v * v;
    return std::sqrt(sum / static_cast<double>(x.size()));
  };
  out.stats.gradNormQ = rmsOf(out.gradQ);
  out.stats.gradNormK = rmsOf(out.gradK);
}

}  // namespace

ReferenceResult reference_run(const Config& c, const ReferenceInputs& in) {
  const double s = scale_factor(c);
  ReferenceResult out;
  RunStats& st = out.stats;
  st.scaleFactor = s;
  st.largestFinite = largest_finite(c.format.precision);
  st.rawLogitStdTheory =
      raw_logit_std_theory(c.dk, c.seqLen, c.causal, c.mean, c.std, c.correlation);

  ReferenceLogits L = reference_logits(c, in, s);
  visible_moments(c, L.raw, st.rawLogitMean, st.rawLogitStd, nullptr, nullptr, nullptr);
  double normMean = 0;
  visible_moments(c, L.normed, normMean, st.normLogitStd, nullptr, nullptr, nullptr);
  visible_moments(c, L.z, st.logitMean, st.logitStd, &st.logitMin, &st.logitMax,
                  &st.nonFinite.logits);

  reference_softmax(c, L.z, out);
  reference_output(c, in, out);
  st.onlineMaxAbsDiff =
      c.softmax == SoftmaxMode::online ? 0.0 : std::numeric_limits<double>::quiet_NaN();
  reference_backward(c, in, L, s, out);
  st.firstNonFiniteStage = st.nonFinite.logits    ? Stage::logits
                           : st.nonFinite.exp     ? Stage::exp
                           : st.nonFinite.weights ? Stage::weights
                           : st.nonFinite.output  ? Stage::output
                                                  : Stage::none;
  out.rawLogits = std::move(L.raw);
  out.normLogits = std::move(L.normed);
  out.logits = std::move(L.z);
  return out;
}

}  // namespace attnscale
