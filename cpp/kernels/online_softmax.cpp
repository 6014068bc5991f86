#include "kernels/online_softmax.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "simd/batch.hpp"
#include "simd/fast_math.hpp"
#include "stats/summary.hpp"

namespace attnscale {

namespace {
using simd::vf;
constexpr int W = static_cast<int>(simd::W);

float exp_scalar(float x) {
  alignas(64) float lane[W] = {};
  lane[0] = x;
  simd::storeu(lane, simd::exp_fast(simd::loadu(lane)));
  return lane[0];
}

// acc = acc * alpha + sum_j e[j] * v[j, :]
void rescale_and_accumulate(float* acc, int dv, float alpha, const float* e, int count,
                            const float* v, int ldv) {
  int c = 0;
  for (; c + W <= dv; c += W) {
    vf a = simd::loadu(acc + c) * vf(alpha);
    for (int j = 0; j < count; ++j)
      a = a + vf(e[j]) * simd::loadu(v + static_cast<long>(j) * ldv + c);
    simd::storeu(acc + c, a);
  }
  for (; c < dv; ++c) {
    float a = acc[c] * alpha;
    for (int j = 0; j < count; ++j) a = a + e[j] * v[static_cast<long>(j) * ldv + c];
    acc[c] = a;
  }
}
}  // namespace

void online_softmax_output(const OnlineSoftmaxShape& s, Format fmt, const float* z, const float* v,
                           int ldv, float* o, std::vector<float>& scratch) {
  online_softmax_rows(s, fmt, z, v, ldv, 0, s.seqLen, o, scratch);
}

void online_softmax_rows(const OnlineSoftmaxShape& s, Format fmt, const float* z, const float* v,
                         int ldv, int r0, int r1, float* o, std::vector<float>& scratch) {
  const int B = std::max(1, s.blockSize);
  scratch.assign(static_cast<std::size_t>(s.dv) + B, 0.0f);
  float* acc = scratch.data();
  float* e = acc + s.dv;
  for (int i = r0; i < r1; ++i) {
    const float* row = z + static_cast<long>(i) * s.seqLen;
    const int n = visible_keys(i, s.seqLen, s.causal);
    float m = s.subtractMax ? -std::numeric_limits<float>::infinity() : 0.0f;
    float l = 0.0f;
    std::fill(acc, acc + s.dv, 0.0f);
    for (int b0 = 0; b0 < n; b0 += B) {
      const int count = std::min(B, n - b0);
      float alpha = 1.0f;
      if (s.subtractMax) {
        float blockMax = row[b0];
        for (int j = 1; j < count; ++j) blockMax = row[b0 + j] > blockMax ? row[b0 + j] : blockMax;
        const float mNew = blockMax > m ? blockMax : m;
        // exp(m_old − m_new); the first block (m = −inf) has nothing to rescale.
        alpha = (m == mNew || std::isinf(m)) ? (std::isinf(m) && m < 0 ? 0.0f : 1.0f)
                                             : exp_scalar(m - mNew);
        m = mNew;
      }
      for (int j = 0; j < count; ++j) e[j] = exp_scalar(row[b0 + j] - m);
      round_inplace(fmt, e, static_cast<std::size_t>(count));
      float blockSum = 0.0f;
      for (int j = 0; j < count; ++j) blockSum = blockSum + e[j];
      l = l * alpha + blockSum;
      rescale_and_accumulate(acc, s.dv, alpha, e, count, v + static_cast<long>(b0) * ldv, ldv);
    }
    float* out = o + static_cast<long>(i - r0) * s.dv;
    for (int c = 0; c < s.dv; ++c) out[c] = acc[c] / l;
    round_inplace(fmt, out, static_cast<std::size_t>(s.dv));
  }
}

}  // namespace attnscale
