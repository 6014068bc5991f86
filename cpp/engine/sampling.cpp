#include "engine/sampling.hpp"

#include <cmath>

namespace attnscale {

void sample_qk_columns(const Config& c, const ColumnHashes& columns, float* q, float* k, int ld) {
  const float mu = static_cast<float>(c.mean), sigma = static_cast<float>(c.std);
  const float rho = static_cast<float>(c.correlation);
  const float rhoBar = static_cast<float>(std::sqrt(1.0 - c.correlation * c.correlation));
  const int n = columns.count;
  for (int t = 0; t < c.seqLen; ++t) {
    float* qr = q + static_cast<long>(t) * ld;
    float* kr = k + static_cast<long>(t) * ld;
    fill_normal_hashed(c.seed, Tensor::q, t, columns, qr);
    fill_normal_hashed(c.seed, Tensor::kIndependent, t, columns, kr);
    for (int i = 0; i < n; ++i) {
      // Corr(q_i, k_i) = ρ for the same token.
      const float zq = qr[i], zk = kr[i];
      qr[i] = mu + sigma * zq;
      kr[i] = mu + sigma * (rho * zq + rhoBar * zk);
    }
    round_inplace(c.format, qr, n);
    round_inplace(c.format, kr, n);
  }
}

void sample_vg_columns(const Config& c, const ColumnHashes& columns, float* v, float* g, int ld) {
  const int n = columns.count;
  for (int t = 0; t < c.seqLen; ++t) {
    if (v) {
      float* row = v + static_cast<long>(t) * ld;
      fill_normal_hashed(c.seed, Tensor::v, t, columns, row);
      round_inplace(c.format, row, n);
    }
    if (g)
      fill_normal_hashed(c.seed, Tensor::upstreamGrad, t, columns, g + static_cast<long>(t) * ld);
  }
}

void sample_v_rows(const Config& c, int r0, int r1, int cols, float* v) {
  ColumnHashes columns;
  columns.compute(0, cols);
  for (int t = r0; t < r1; ++t) {
    float* row = v + static_cast<long>(t) * cols;
    fill_normal_hashed(c.seed, Tensor::v, t, columns, row);
    round_inplace(c.format, row, cols);
  }
}

}  // namespace attnscale
