// QK-norm of the trainer's query and key rows and its backward (qk_norm.hpp).
#include "train/model/qk_norm.hpp"

#include <cmath>
#include <cstddef>

namespace attnscale::train {

// QK-norm of the T rows of x (T x dk), in place: n = norm(x) (rms: x / sqrt(mean(x^2) + eps);
// layer: (x - mean) / sqrt(mean((x - mean)^2) + eps)), saved in `normed` with r = 1/sqrt(.. + eps)
// per row for the backward pass, then x = n * gain. Sums run in index order (same bits in
// every build).
void qk_norm_rows(QkNorm kind, const float* gain, float* x, float* normed, float* r, int T,
                  int dk) {
  const float inv = 1.0f / static_cast<float>(dk);
  for (int t = 0; t < T; ++t) {
    float* row = x + static_cast<std::size_t>(t) * dk;
    float* n = normed + static_cast<std::size_t>(t) * dk;
    float mean = 0.0f;
    if (kind == QkNorm::layer) {
      for (int c = 0; c < dk; ++c) mean = mean + row[c];
      mean = mean * inv;
    }
    float ss = 0.0f;
    for (int c = 0; c < dk; ++c) ss = ss + (row[c] - mean) * (row[c] - mean);
    const float rt = 1.0f / std::sqrt(ss * inv + kQkNormEps);
    r[t] = rt;
    for (int c = 0; c < dk; ++c) {
      n[c] = (row[c] - mean) * rt;
      row[c] = n[c] * gain[c];
    }
  }
}

// Backward of qk_norm_rows: dx (in place over dy, the gradient of x = n * gain) and the gain's
// gradient added to dgain. dn = dy * gain; rms: dx = r (dn - n mean(dn n));
// layer: dx = r (dn - mean(dn) - n mean(dn n)).
void qk_norm_rows_backward(QkNorm kind, const float* gain, const float* normed, const float* r,
                           float* dy, float* dgain, int T, int dk) {
  const float inv = 1.0f / static_cast<float>(dk);
  for (int t = 0; t < T; ++t) {
    float* d = dy + static_cast<std::size_t>(t) * dk;
    const float* n = normed + static_cast<std::size_t>(t) * dk;
    float sum = 0.0f, dot = 0.0f;
    for (int c = 0; c < dk; ++c) {
      dgain[c] = dgain[c] + d[c] * n[c];
      d[c] = d[c] * gain[c];
      sum = sum + d[c];
      dot = dot + d[c] * n[c];
    }
    const float meanD = kind == QkNorm::layer ? sum * inv : 0.0f, meanDn = dot * inv;
    for (int c = 0; c < dk; ++c) d[c] = r[t] * (d[c] - meanD - n[c] * meanDn);
  }
}

}  // namespace attnscale::train
