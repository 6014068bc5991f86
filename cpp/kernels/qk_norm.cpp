#include "kernels/qk_norm.hpp"

#include <cmath>

namespace attnscale {

template <class Sums>
float normalize_row(QkNorm norm, const float* x, int d, float* out) {
  using Acc = typename Sums::type;
  Acc mean = 0;
  if (norm == QkNorm::layer) {
    for (int i = 0; i < d; ++i) mean += x[i];
    mean = Sums::mean(mean, d);
  }
  Acc squares = 0;
  for (int i = 0; i < d; ++i) {
    const Acc c = static_cast<Acc>(x[i]) - mean;
    squares += c * c;
  }
  const float inv =
      static_cast<float>(Acc(1) / std::sqrt(Sums::mean(squares, d) + static_cast<Acc>(kQkNormEps)));
  const float m = static_cast<float>(mean);
  for (int i = 0; i < d; ++i) out[i] = (x[i] - m) * inv;
  return inv;
}

template <class Sums>
void normalize_row_backward(QkNorm norm, const float* xhat, float inv, int d, float* g) {
  using Acc = typename Sums::type;
  Acc dot = 0, sum = 0;
  for (int i = 0; i < d; ++i) {
    dot += static_cast<Acc>(xhat[i]) * g[i];
    sum += g[i];
  }
  const float along = static_cast<float>(Sums::mean(dot, d));
  const float mean = norm == QkNorm::layer ? static_cast<float>(Sums::mean(sum, d)) : 0.0f;
  for (int i = 0; i < d; ++i) g[i] = inv * (g[i] - mean - xhat[i] * along);
}

template float normalize_row<DoubleSums>(QkNorm, const float*, int, float*);
template float normalize_row<FloatSums>(QkNorm, const float*, int, float*);
template void normalize_row_backward<DoubleSums>(QkNorm, const float*, float, int, float*);
template void normalize_row_backward<FloatSums>(QkNorm, const float*, float, int, float*);

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
