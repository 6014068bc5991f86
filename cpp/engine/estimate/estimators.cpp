#include "engine/estimate/estimators.hpp"

#include <cmath>
#include <limits>

namespace attnscale {

namespace {

constexpr double kNan = std::numeric_limits<double>::quiet_NaN();

double fpc(int sampleRows, int population) {
  return 1.0 - static_cast<double>(sampleRows) / population;
}

double sum_of(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  return s;
}

// The estimate `value` whose linearized residuals are e (one per sampled row), divided by
// `divisor`: SE = √((1 − f)/r · Σ(e − ē)²/(r − 1)) / divisor.
Estimate from_residuals(double value, const std::vector<double>& e, double divisor,
                        int population) {
  const int r = static_cast<int>(e.size());
  const double mean = sum_of(e) / r;
  double squares = 0;
  for (double x : e) squares += (x - mean) * (x - mean);
  return {value, std::sqrt(fpc(r, population) / r * squares / (r - 1)) / divisor};
}

}  // namespace

Estimate ratio_estimate(const std::vector<double>& y, const std::vector<double>& x,
                        int population) {
  const std::size_t r = y.size();
  const double sx = sum_of(x);
  if (!(sx > 0)) return {kNan, kNan};
  const double ratio = sum_of(y) / sx;
  std::vector<double> e(r);
  for (std::size_t i = 0; i < r; ++i) e[i] = y[i] - ratio * x[i];
  return from_residuals(ratio, e, sx / static_cast<double>(r), population);
}

MomentEstimates moment_estimates(const std::vector<double>& count, const std::vector<double>& sum,
                                 const std::vector<double>& squares, int population) {
  MomentEstimates out;
  out.mean = ratio_estimate(sum, count, population);
  const std::size_t r = count.size();
  const double n = sum_of(count);
  if (!(n > 0)) {
    out.std = {kNan, kNan};
    return out;
  }
  const double variance = sum_of(squares) / n, sigma = std::sqrt(variance);
  if (!(sigma > 0)) {  // every sampled entry equal: C_i = 0, no spread to linearize around
    out.std = {sigma, 0};
    return out;
  }
  std::vector<double> e(r);
  for (std::size_t i = 0; i < r; ++i) e[i] = (squares[i] - variance * count[i]) / (2 * sigma);
  out.std = from_residuals(sigma, e, n / static_cast<double>(r), population);
  return out;
}

Estimate saturation_mean_estimate(const std::vector<double>& y, const std::vector<char>& use,
                                  const std::vector<char>& saturated, double unsaturatedFar,
                                  int population) {
  const int r = static_cast<int>(y.size());
  double n[2] = {0, 0}, sum[2] = {0, 0};
  for (int i = 0; i < r; ++i)
    if (use[i]) {
      const int kind = saturated[i] ? 1 : 0;
      n[kind] += 1;
      sum[kind] += y[i];
    }
  const double total = n[0] + n[1];
  if (!(total > 0)) return {kNan, kNan};
  const double mean[2] = {n[0] > 0 ? sum[0] / n[0] : 0, n[1] > 0 ? sum[1] / n[1] : 0};
  double within = 0;
  for (int i = 0; i < r; ++i)
    if (use[i]) {
      const double c = y[i] - mean[saturated[i] ? 1 : 0];
      within += c * c;
    }
  within = total > 1 ? within / ((total - 1) * total) : 0.0;
  double gap = n[0] > 0 && n[1] > 0 ? mean[1] - mean[0] : 0.0;
  if (n[1] > 0 && n[0] == 0) gap = unsaturatedFar - mean[1];
  if (n[1] > 0 && n[0] == 1) {  // one unsaturated row: anywhere from the saturated mean to far
    const double half = (unsaturatedFar - mean[1]) / 2;
    within += 3 / (total + 4) * half * half / (total + 4);
  }
  const double tilde = (n[1] + 2) / (total + 4);
  const double between = gap == 0 ? 0.0 : tilde * (1 - tilde) * gap * gap / (total + 4);
  return {(sum[0] + sum[1]) / total, std::sqrt(fpc(r, population) * (within + between))};
}

Estimate share_estimate(double successes, double trials, int sampleRows, int population) {
  if (!(trials > 0)) return {kNan, kNan};
  const double tilde = (successes + 2) / (trials + 4);
  return {successes / trials,
          std::sqrt(fpc(sampleRows, population) * tilde * (1 - tilde) / (trials + 4))};
}

}  // namespace attnscale
