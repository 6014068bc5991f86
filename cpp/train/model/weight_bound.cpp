// The weightBound metric (weight_bound.hpp): the spectral norm bound by repeated squaring, the
// inputs' largest norm, and their product.
#include "train/model/weight_bound.hpp"

#include <cmath>
#include <cstddef>
#include <limits>
#include <utility>

#include "simd/batch.hpp"
#include "train/train.hpp"

namespace attnscale::train {

namespace {

// Scales x (n floats, a multiple of the vector width) by 2^-e so that its largest |x| lies in
// [1/2, 1), by two power-of-two factors that are normal floats: exact, but for entries that fall
// below 2^-126 on the way. Returns false (e untouched) when x holds a non-finite value or is all
// zeros; `zero` says which. The maximum is exact in any order; a NaN or inf shows in the sum of
// x * 0, NaN in any order.
[[gnu::noinline]] bool normalise(float* x, std::size_t n, int& e, bool& zero) {
  using simd::vf;
  vf mx(0.0f), probe(0.0f);
  for (std::size_t i = 0; i < n; i += simd::W) {
    const vf v = simd::loadu(x + i);
    mx = simd::vmax(mx, simd::abs(v));
    probe = probe + v * vf(0.0f);
  }
  const float m = simd::reduce_max(mx);
  if (std::isnan(simd::reduce_add(probe))) return zero = false, false;
  if (m == 0.0f) return zero = true, false;
  std::frexp(m, &e);
  const vf f1(std::ldexp(1.0f, -e / 2)), f2(std::ldexp(1.0f, -e - (-e / 2)));
  for (std::size_t i = 0; i < n; i += simd::W) simd::storeu(x + i, simd::loadu(x + i) * f1 * f2);
  return true;
}

// sum x_i^2 in double (n a multiple of 4), four partial sums over the indices mod 4.
double sum_squares(const float* x, std::size_t n) {
  double p0 = 0.0, p1 = 0.0, p2 = 0.0, p3 = 0.0;
  for (std::size_t i = 0; i < n; i += 4) {
    const double a = x[i], b = x[i + 1], c = x[i + 2], d = x[i + 3];
    p0 += a * a, p1 += b * b, p2 += c * c, p3 += d * d;
  }
  return (p0 + p1) + (p2 + p3);
}

// x^(1/2^k) by k square roots.
double root2k(double x, int k) {
  for (int i = 0; i < k; ++i) x = std::sqrt(x);
  return x;
}

}  // namespace

double qk_spectral_bound(const float* Wq, const float* WkT, int D, int dk, int squarings,
                         float* scratch) {
  const std::size_t DD = static_cast<std::size_t>(D) * D;
  float* M = scratch;
  float* H = scratch + DD;
  float* H2 = scratch + 2 * DD;
  square_product(D, dk, {Wq, dk}, WkT, M);  // M = W_q W_k^T
  int e = 0;
  bool zero = false;
  if (!normalise(M, DD, e, zero)) return zero ? 0.0 : std::numeric_limits<double>::quiet_NaN();
  long long x = 2LL * e;                     // M^T M = H 2^x
  square_product(D, D, {M, D, true}, M, H);  // H = M^T M (scaled)
  for (int s = 0; s < squarings; ++s) {
    if (!normalise(H, DD, e, zero)) return zero ? 0.0 : std::numeric_limits<double>::quiet_NaN();
    x += e;
    square_product(D, D, {H, D}, H, H2);
    std::swap(H, H2);
    x *= 2;  // G^(2^(s+1)) = H 2^x
  }
  // trace(G^m) = ||H||_F^2 2^(2x), m = 2^(q+1); ||M||_2 <= trace(G^m)^(1/2^(q+2))
  const double f2 = sum_squares(H, DD);
  const int k = squarings + 2;
  const long long r = 1LL << k, t = 2 * x;
  const long long q = t >= 0 ? t / r : -((-t + r - 1) / r);  // floor(t / r)
  const int rem = static_cast<int>(t - q * r);               // in [0, r)
  return std::ldexp(root2k(f2, k) * root2k(std::ldexp(1.0, rem), k), static_cast<int>(q));
}

double max_input_norm2(const Params<float>& p, const Batch& batch, float* part) {
  const Dims& d = p.dims;
  const int D = d.D;
  // Eight partial sums of (a + b + c)^2, partial l over the indices l (mod 8): one vector of
  // accumulators at 8 lanes, two at 4, eight at 1, each summed in the same order (the same bits).
  constexpr int W = static_cast<int>(simd::W), kParts = 8, kAcc = kParts / W;
  static_assert(kParts % W == 0 && kModelDim % kParts == 0, "8 partial sums over whole vectors");
  double best = 0.0;
  for (std::size_t at = 0; at < batch.key.size(); ++at) {
    const float* a = &p.E[static_cast<std::size_t>(batch.key[at]) * D];
    const float* b = &p.E[static_cast<std::size_t>(d.value_row(batch.val[at])) * D];
    const float* c = &p.E[static_cast<std::size_t>(d.query_row(batch.qry[at])) * D];
    simd::vf acc[kAcc];
    for (simd::vf& v : acc) v = simd::vf(0.0f);
    for (int i = 0; i < D; i += kParts)
      for (int l = 0; l < kAcc; ++l) {
        const int j = i + l * W;
        const simd::vf v = simd::loadu(a + j) + simd::loadu(b + j) + simd::loadu(c + j);
        acc[l] = acc[l] + v * v;
      }
    for (int l = 0; l < kAcc; ++l) simd::storeu(part + l * W, acc[l]);
    const double ss =
        (((static_cast<double>(part[0]) + part[1]) + (static_cast<double>(part[2]) + part[3])) +
         ((static_cast<double>(part[4]) + part[5]) + (static_cast<double>(part[6]) + part[7]))) /
        3.0;
    best = std::isnan(best) || ss <= best ? best : ss;  // NaN, once met, stays
  }
  return best;
}

double weight_bound(const Params<float>& p, const Batch& batch, const LogitSpec& spec, double maxQ2,
                    double maxK2, FloatScratch& ws) {
  double b;
  if (spec.qkNorm != QkNorm::none) {
    b = std::sqrt(maxQ2) * std::sqrt(maxK2);
  } else {
    const Dims& d = p.dims;
    b = qk_spectral_bound(p.Wq.data(), ws.WkT.data(), d.D, d.dk, kSpectralSquarings, ws.Mw.data()) *
        max_input_norm2(p, batch, ws.Mw.data());
  }
  b *= std::fabs(static_cast<double>(static_cast<float>(spec.scale)));
  if (spec.lengthFactor != 0.0)
    b *= std::fabs(static_cast<double>(static_cast<float>(spec.lengthFactor)));
  return b;
}

}  // namespace attnscale::train
