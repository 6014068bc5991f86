#include "kernels/attention_forward.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "kernels/gemm.hpp"
#include "kernels/softmax_row.hpp"
#include "stats/summary.hpp"

namespace attnscale {

namespace {
constexpr int kRowBlock = 16;

const float* rounded_copy(const ForwardShape& s, const float* x, std::vector<float>& buffer) {
  if (s.format.precision == Precision::fp32) return x;
  const std::size_t n = static_cast<std::size_t>(s.seqLen) * s.dk;
  buffer.assign(x, x + n);
  round_inplace(s.format, buffer.data(), n);
  return buffer.data();
}
}  // namespace

void AttentionForward::run(const ForwardShape& s, const float* qIn, const float* kIn,
                           const float* vIn, float* o) {
  const int T = s.seqLen, d = s.dk;
  const float* q = rounded_copy(s, qIn, qr_);
  const float* k = rounded_copy(s, kIn, kr_);
  const float* v = rounded_copy(s, vIn, vr_);
  kt_.resize(static_cast<std::size_t>(T) * d);
  transpose(T, d, k, d, kt_.data(), T);
  block_.resize(static_cast<std::size_t>(kRowBlock) * T);
  std::fill(o, o + static_cast<std::size_t>(T) * d, 0.0f);
  for (int i0 = 0; i0 < T; i0 += kRowBlock) {
    const int rows = std::min(kRowBlock, T - i0);
    // Keys beyond the block's last visible key are never read when causal.
    const int keys = s.causal ? i0 + rows : T;
    std::fill(block_.begin(), block_.begin() + static_cast<std::size_t>(rows) * T, 0.0f);
    gemm_accumulate(rows, keys, 0, d, {q + static_cast<std::size_t>(i0) * d, d}, {kt_.data(), T},
                    block_.data(), T);
    for (int r = 0; r < rows; ++r) {
      float* z = &block_[static_cast<std::size_t>(r) * T];
      const int n = visible_keys(i0 + r, T, s.causal);
      for (int j = 0; j < n; ++j) z[j] = z[j] * s.scale;
      if (s.format.precision != Precision::fp32) round_inplace(s.format, z, n);
      softmax_row(z, n, s.subtractMax, s.format, z);  // in place: exp reads z[j] before writing it
      std::fill(z + n, z + keys, 0.0f);
    }
    gemm_accumulate(rows, d, 0, keys, {block_.data(), T}, {v, d},
                    o + static_cast<std::size_t>(i0) * d, d);
  }
  if (s.format.precision != Precision::fp32)
    round_inplace(s.format, o, static_cast<std::size_t>(T) * d);
}

void attention_forward_reference(const ForwardShape& s, const float* q, const float* k,
                                 const float* v, double* o) {
  const int T = s.seqLen, d = s.dk;
  std::vector<double> p(T);
  for (int i = 0; i < T; ++i) {
    const int n = visible_keys(i, T, s.causal);
    double m = -std::numeric_limits<double>::infinity();
    for (int j = 0; j < n; ++j) {
      double dot = 0;
      for (int c = 0; c < d; ++c) dot += static_cast<double>(q[i * d + c]) * k[j * d + c];
      p[j] = dot * s.scale;
      m = std::max(m, p[j]);
    }
    if (!s.subtractMax) m = 0;
    double sum = 0;
    for (int j = 0; j < n; ++j) sum += (p[j] = std::exp(p[j] - m));
    for (int c = 0; c < d; ++c) {
      double acc = 0;
      for (int j = 0; j < n; ++j) acc += p[j] * v[j * d + c];
      o[i * d + c] = acc / sum;
    }
  }
}

}  // namespace attnscale
