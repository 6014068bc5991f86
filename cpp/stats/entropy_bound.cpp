#include "stats/entropy_bound.hpp"

#include <cmath>
#include <limits>

#include "simd/fast_math.hpp"

namespace attnscale {

namespace {

// e^−x for x >= 0: x = n ln 2 + r with |r| <= ln2/2 (Cody–Waite: n·ln2Hi is exact), e^−r from its
// Taylor series to degree 16 (truncation below 1e-22), then the exact scaling by 2^−n.
double exp_neg(double x) {
  if (x > 746.0) return 0.0;
  constexpr double kLog2e = 1.44269504088896338700, kLn2Hi = 6.93147180369123816490e-01,
                   kLn2Lo = 1.90821492927058770002e-10;
  const double n = std::nearbyint(x * kLog2e);
  const double y = -((x - n * kLn2Hi) - n * kLn2Lo);
  double p = 1.0;
  for (int k = 16; k >= 1; --k) p = 1.0 + y * p / k;
  return std::ldexp(p, -static_cast<int>(n));
}

// ln(1 + x) for x >= 0: below 1 from 2 atanh(u), u = x / (2 + x) <= 1/3 (series to u^37, no
// cancellation for tiny x); from 1 on, 1 + x loses nothing that matters and log_double takes it.
double log1p_nonnegative(double x) {
  if (x >= 1.0) return simd::log_double(1.0 + x);
  const double u = x / (2.0 + x), u2 = u * u;
  double s = 1.0 / 37.0;
  for (int k = 35; k >= 1; k -= 2) s = s * u2 + 1.0 / k;
  return 2.0 * u * s;
}

}  // namespace

double entropy_lower_bound(double seqLen, double sigma) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  if (!(seqLen >= 1.0) || !(sigma >= 0.0)) return nan;
  if (seqLen == 1.0 || sigma == std::numeric_limits<double>::infinity()) return 0.0;
  const double T = seqLen;
  const double beta = exp_neg(sigma * std::sqrt(T / (T - 1.0)));
  const double spread = (T - 1.0) * beta;
  return log1p_nonnegative(spread) + sigma * std::sqrt(T * (T - 1.0)) * beta / (1.0 + spread);
}

}  // namespace attnscale
