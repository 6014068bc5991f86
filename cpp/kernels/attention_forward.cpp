#include "kernels/attention_forward.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>

#include "gemm/gemm.hpp"
#include "gemm/panel_gemm.hpp"
#include "kernels/logit_transform.hpp"
#include "kernels/qk_norm.hpp"
#include "kernels/softmax_row.hpp"
#include "simd/batch.hpp"
#include "simd/fast_math.hpp"
#include "stats/summary.hpp"

namespace attnscale {

namespace {

constexpr int kRowBlock = 16;  // query rows per block: z and p are kRowBlock × T

using panel::kPanelWidth;
using panel::kVectors;
using simd::vf;
constexpr int W = static_cast<int>(simd::W);
constexpr float kLog2e = 1.44269504088896341f, kLn2 = 0.693147180559945309f;

const float* rounded_copy(const ForwardShape& s, const float* x, std::vector<float>& buffer) {
  if (s.format.precision == Precision::fp32) return x;
  const std::size_t n = static_cast<std::size_t>(s.seqLen) * s.dk;
  buffer.assign(x, x + n);
  round_inplace(s.format, buffer.data(), n);
  return buffer.data();
}

// One call's fp32 state: the packed Kᵀ and V panels and the block buffers.
struct Fp32Pass {
  const ForwardShape& s;
  long ldz;  // row stride of z and p: T rounded up to whole panels
  const float* kPanels;
  const float* vPanels;
  float zScale;   // s, or s·log2 e with max subtraction (z then in units of log2 e: see exp2)
  float* z;       // kRowBlock × ldz: scaled logits
  float* p;       // kRowBlock × ldz: exp(z − m), unnormalized
  float* invSum;  // kRowBlock: 1/ℓ
  vf* rowMax;     // kRowBlock: lane maxima of z over the keys every row of the block sees
};

// For the block's rows in pairs (then a single one): acc = A_rows · panel, then epilogue(r, acc)
// with r the tile's first row. a(r) → row r of A.
template <class Rows, class Epilogue>
inline void rows_times_panel(int rows, int K, Rows a, const float* panel, Epilogue epilogue) {
  int r = 0;
  for (; r + 2 <= rows; r += 2) {
    vf acc[2][kVectors];
    panel::zero(acc);
    const float* ar[2] = {a(r), a(r + 1)};
    panel::tile<2>(K, ar, panel, acc);
    epilogue(r, acc);
  }
  if (r < rows) {
    vf acc[1][kVectors];
    panel::zero(acc);
    const float* ar[1] = {a(r)};
    panel::tile<1>(K, ar, panel, acc);
    epilogue(r, acc);
  }
}

template <class Acc>
constexpr int tile_rows = static_cast<int>(std::extent_v<std::remove_reference_t<Acc>>);

// The three phases of one block of query rows [i0, i0 + rows) that sees keys [0, keys). Not
// inlined, so that a profile shows each phase by name (callgrind natively; in Node, --cpu-prof on
// a --profiling-funcs build linked at -O1, since binaryen's -O3 inlines single-call functions);
// one call per phase per block costs nothing measurable.

// 1. z = s · Q_block Kᵀ, panel by panel of keys (each Kᵀ panel is reused by all the block's row
//    pairs while it is in cache). The epilogue scales, stores, and folds the row maxima of the
//    panels that every row of the block sees in full (all of them unless causal).
[[gnu::noinline]] void block_logits(const Fp32Pass& f, const float* q, int i0, int rows, int keys) {
  const int d = f.s.dk;
  const int trackedPanels = (f.s.causal ? i0 + 1 : keys) / kPanelWidth;
  const float* qBlock = q + static_cast<long>(i0) * d;
  const auto qRow = [&](int r) { return qBlock + static_cast<long>(r) * d; };
  for (int r = 0; r < rows; ++r) f.rowMax[r] = vf(-std::numeric_limits<float>::infinity());
  const vf scale(f.zScale);
  for (int p = 0; p < panel::panel_count(keys); ++p) {
    float* z = f.z + p * kPanelWidth;
    const bool track = p < trackedPanels;
    rows_times_panel(
        rows, d, qRow, f.kPanels + static_cast<long>(p) * d * kPanelWidth, [&](int r, auto& acc) {
          for (int i = 0; i < tile_rows<decltype(acc)>; ++i) {
            for (int v = 0; v < kVectors; ++v) {
              acc[i][v] = acc[i][v] * scale;
              simd::storeu(z + (r + i) * f.ldz + v * W, acc[i][v]);
            }
            if (track) {  // one read-modify-write of the row's maxima per tile, not one per vector
              static_assert(kVectors == 4, "the max tree below reads four vectors");
              const vf m =
                  simd::vmax(simd::vmax(acc[i][0], acc[i][1]), simd::vmax(acc[i][2], acc[i][3]));
              f.rowMax[r + i] = simd::vmax(f.rowMax[r + i], m);
            }
          }
        });
  }
}

float max_of(const float* z, int n, float m) {
  int j = 0;
  if (n >= W) {
    vf acc = simd::loadu(z);
    for (j = W; j + W <= n; j += W) acc = simd::vmax(acc, simd::loadu(z + j));
    m = std::max(m, simd::reduce_max(acc));
  }
  for (; j < n; ++j) m = z[j] > m ? z[j] : m;
  return m;
}

// p[j] = exp(z[j] − m) for j < n and their sum, in one pass. With max subtraction every argument
// is ≤ 0 and z is in units of log2 e, so the cheaper exp2_nonpositive applies; without it the
// logits may be anything. Four
// independent exps per iteration: one exp is a ~25-op dependency chain, and interleaving four
// lets the out-of-order core overlap them (1.5× the throughput of one at a time in V8).
template <bool kNonPositive>
float exp_and_sum(const float* z, int n, float m, float* p) {
  const auto ex = [](vf x) { return kNonPositive ? simd::exp2_nonpositive(x) : simd::exp_fast(x); };
  const vf mv(m);
  vf acc0(0.0f), acc1(0.0f);
  int j = 0;
  for (; j + 4 * W <= n; j += 4 * W) {
    const vf e0 = ex(simd::loadu(z + j) - mv);
    const vf e1 = ex(simd::loadu(z + j + W) - mv);
    const vf e2 = ex(simd::loadu(z + j + 2 * W) - mv);
    const vf e3 = ex(simd::loadu(z + j + 3 * W) - mv);
    simd::storeu(p + j, e0);
    simd::storeu(p + j + W, e1);
    simd::storeu(p + j + 2 * W, e2);
    simd::storeu(p + j + 3 * W, e3);
    acc0 = acc0 + (e0 + e1);
    acc1 = acc1 + (e2 + e3);
  }
  for (; j + W <= n; j += W) {
    const vf e = ex(simd::loadu(z + j) - mv);
    simd::storeu(p + j, e);
    acc0 = acc0 + e;
  }
  float sum = simd::reduce_add(acc0 + acc1);
  if (j < n) {
    alignas(64) float lanes[W] = {};
    for (; j < n; ++j) {
      lanes[0] = z[j];
      simd::storeu(lanes, ex(simd::loadu(lanes) - mv));
      p[j] = lanes[0];
      sum = sum + lanes[0];
    }
  }
  return sum;
}

// 2. p = exp(z − m) and 1/ℓ per row (m = max z, or 0 without max subtraction); keys a row does
//    not see (causal) get p = 0. A row whose logits or sum are not finite goes through
//    softmax_row instead, which gives the reference path's NaN / inf results.
[[gnu::noinline]] void block_softmax(const Fp32Pass& f, int i0, int rows, int keys) {
  const int tracked = (f.s.causal ? i0 + 1 : keys) / kPanelWidth * kPanelWidth;
  for (int r = 0; r < rows; ++r) {
    const float* z = f.z + r * f.ldz;
    float* p = f.p + r * f.ldz;
    const int n = visible_keys(i0 + r, f.s.seqLen, f.s.causal);
    float sum;
    float m = 0.0f;
    if (f.s.subtractMax) {
      m = max_of(z + tracked, n - tracked, simd::reduce_max(f.rowMax[r]));
      sum = exp_and_sum<true>(z, n, m, p);
    } else {
      sum = exp_and_sum<false>(z, n, m, p);
    }
    if (std::isfinite(m) && std::isfinite(sum) && sum > 0) {
      f.invSum[r] = 1.0f / sum;
    } else {
      // Back to natural units for softmax_row; inf and NaN stay as they are. (A logit within a
      // factor log2 e of FLT_MAX became inf here: such a row gives NaN, as an inf logit does.)
      if (f.s.subtractMax)
        for (int j = 0; j < n; ++j) f.z[r * f.ldz + j] *= kLn2;
      softmax_row(z, n, f.s.subtractMax, f.s.format, p);
      f.invSum[r] = 1.0f;
    }
    std::fill(p + n, p + keys, 0.0f);
  }
}

// 3. O_block = (P_block · V) / ℓ, panel by panel of O's columns (each V panel is reused by all
//    the block's row pairs); the epilogue multiplies by 1/ℓ and writes O's valid columns.
[[gnu::noinline]] void block_output(const Fp32Pass& f, int i0, int rows, int keys, float* o) {
  const int T = f.s.seqLen, d = f.s.dk;
  const auto pRow = [&](int r) { return f.p + r * f.ldz; };
  for (int p = 0; p < panel::panel_count(d); ++p) {
    const int valid = std::min(kPanelWidth, d - p * kPanelWidth);
    float* out = o + static_cast<long>(i0) * d + p * kPanelWidth;
    rows_times_panel(rows, keys, pRow, f.vPanels + static_cast<long>(p) * T * kPanelWidth,
                     [&](int r, auto& acc) {
                       for (int i = 0; i < tile_rows<decltype(acc)>; ++i) {
                         const vf inv(f.invSum[r + i]);
                         float* row = out + static_cast<long>(r + i) * d;
                         if (valid == kPanelWidth) {
                           for (int v = 0; v < kVectors; ++v)
                             simd::storeu(row + v * W, acc[i][v] * inv);
                         } else {
                           alignas(64) float lanes[kPanelWidth];
                           for (int v = 0; v < kVectors; ++v)
                             simd::storeu(lanes + v * W, acc[i][v] * inv);
                           std::copy(lanes, lanes + valid, row);
                         }
                       }
                     });
  }
}

}  // namespace

void AttentionForward::run(const ForwardShape& s, const float* q, const float* k, const float* v,
                           float* o) {
  if (s.qkNorm != QkNorm::none) {  // q̂ and k̂, rounded to the format as every input is
    const std::size_t n = static_cast<std::size_t>(s.seqLen) * s.dk;
    qn_.resize(n);
    kn_.resize(n);
    for (int t = 0; t < s.seqLen; ++t) {
      const std::size_t row = static_cast<std::size_t>(t) * s.dk;
      normalize_row(s.qkNorm, q + row, s.dk, qn_.data() + row);
      normalize_row(s.qkNorm, k + row, s.dk, kn_.data() + row);
    }
    q = qn_.data();
    k = kn_.data();
  }
  if (s.format.precision == Precision::fp32 && s.lengthScale == 0 && s.softcap == 0) {
    run_fp32(s, q, k, v, o);
  } else {
    run_rounded(s, q, k, v, o);
  }
}

void AttentionForward::run_fp32(const ForwardShape& s, const float* q, const float* k,
                                const float* v, float* o) {
  const int T = s.seqLen, d = s.dk;
  const int keyPanels = panel::panel_count(T), colPanels = panel::panel_count(d);
  const long ldz = static_cast<long>(keyPanels) * kPanelWidth;
  // Kᵀ (d × T: element (c, j) = k[j·d + c]) and V (T × d) as panels, once per call.
  kPanels_.resize(static_cast<std::size_t>(keyPanels) * d * kPanelWidth);
  panel::pack_panels(d, T, k, 1, d, kPanels_.data());
  vPanels_.resize(static_cast<std::size_t>(colPanels) * T * kPanelWidth);
  panel::pack_panels(T, d, v, d, 1, vPanels_.data());
  z_.resize(static_cast<std::size_t>(kRowBlock) * ldz);
  p_.resize(static_cast<std::size_t>(kRowBlock) * ldz);
  invSum_.resize(kRowBlock);
  vf rowMax[kRowBlock];
  const float zScale = s.subtractMax ? s.scale * kLog2e : s.scale;
  const Fp32Pass f{s,         ldz,       kPanels_.data(), vPanels_.data(), zScale,
                   z_.data(), p_.data(), invSum_.data(),  rowMax};
  for (int i0 = 0; i0 < T; i0 += kRowBlock) {
    const int rows = std::min(kRowBlock, T - i0);
    const int keys = s.causal ? i0 + rows : T;  // later keys are invisible to the whole block
    block_logits(f, q, i0, rows, keys);
    block_softmax(f, i0, rows, keys);
    block_output(f, i0, rows, keys, o);
  }
}

void AttentionForward::run_rounded(const ForwardShape& s, const float* qIn, const float* kIn,
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
      if (s.lengthScale == 0 && s.softcap == 0) {
        for (int j = 0; j < n; ++j) z[j] = z[j] * s.scale;
        if (s.format.precision != Precision::fp32) round_inplace(s.format, z, n);
      } else {
        const LogitTransform t{s.scale, s.lengthScale, s.softcap};
        transform_logits(t, length_factor(t, n), s.format, z, n);
      }
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
  std::vector<double> p(T), qn(q, q + T * d), kn(k, k + T * d);
  if (s.qkNorm != QkNorm::none)
    for (std::vector<double>* x : {&qn, &kn})
      for (int t = 0; t < T; ++t) {
        double* row = x->data() + static_cast<std::size_t>(t) * d;
        normalize_row_reference(s.qkNorm, row, d, row);
      }
  for (int i = 0; i < T; ++i) {
    const int n = visible_keys(i, T, s.causal);
    const double rowFactor = s.lengthScale > 0 ? s.lengthScale * std::log(n) : 1.0;
    double m = -std::numeric_limits<double>::infinity();
    for (int j = 0; j < n; ++j) {
      double dot = 0;
      for (int c = 0; c < d; ++c) dot += qn[i * d + c] * kn[j * d + c];
      p[j] = dot * s.scale * rowFactor;
      if (s.softcap > 0) p[j] = s.softcap * std::tanh(p[j] / s.softcap);
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
