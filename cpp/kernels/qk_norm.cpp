#include "kernels/qk_norm.hpp"

#include <cmath>

namespace attnscale {

float normalize_row(QkNorm norm, const float* x, int d, float* out) {
  double mean = 0;
  if (norm == QkNorm::layer) {
    for (int i = 0; i < d; ++i) mean += x[i];
    mean /= d;
  }
  double squares = 0;
  for (int i = 0; i < d; ++i) {
    const double c = x[i] - mean;
    squares += c * c;
  }
  const float inv =
      static_cast<float>(1.0 / std::sqrt(squares / d + static_cast<double>(kQkNormEps)));
  const float m = static_cast<float>(mean);
  for (int i = 0; i < d; ++i) out[i] = (x[i] - m) * inv;
  return inv;
}

void normalize_row_backward(QkNorm norm, const float* xhat, float inv, int d, float* g) {
  double dot = 0, sum = 0;
  for (int i = 0; i < d; ++i) {
    dot += static_cast<double>(xhat[i]) * g[i];
    sum += g[i];
  }
  const float along = static_cast<float>(dot / d);
  const float mean = norm == QkNorm::layer ? static_cast<float>(sum / d) : 0.0f;
  for (int i = 0; i < d; ++i) g[i] = inv * (g[i] - mean - xhat[i] * along);
}

double normalize_row_reference(QkNorm norm, const double* x, int d, double* out) {
  double mean = 0, var = 0;
  if (norm == QkNorm::layer) {
    for (int i = 0; i < d; ++i) mean += x[i];
    mean /= d;
  }
  for (int i = 0; i < d; ++i) var += (x[i] - mean) * (x[i] - mean);
  const double inv = 1.0 / std::sqrt(var / d + static_cast<double>(kQkNormEps));
  for (int i = 0; i < d; ++i) out[i] = (x[i] - mean) * inv;
  return inv;
}

void normalize_row_backward_reference(QkNorm norm, const double* xhat, double inv, int d,
                                      double* g) {
  double dot = 0, sum = 0;
  for (int i = 0; i < d; ++i) {
    dot += xhat[i] * g[i];
    sum += g[i];
  }
  const double mean = norm == QkNorm::layer ? sum / d : 0.0;
  for (int i = 0; i < d; ++i) g[i] = inv * (g[i] - mean - xhat[i] * dot / d);
}

}  // namespace attnscale
