// The steps every scaling of a point shares: sampling the new columns of Q, K, V, G, extending the
// fp32 products over them, and the raw (or QK-normalized) logits with their statistics.
#include <algorithm>
#include <cmath>

#include "engine/point_job/point_job.hpp"
#include "engine/sampling.hpp"
#include "gemm/panel_gemm.hpp"
#include "kernels/qk_norm.hpp"
#include "simd/batch.hpp"

namespace attnscale {

namespace {

// max |x| over n finite or infinite values (NaN-free: samples).
double max_abs(const float* x, int n) {
  constexpr int W = static_cast<int>(simd::W);
  simd::vf acc(0.0f);
  int j = 0;
  for (; j + W <= n; j += W) acc = simd::vmax(acc, simd::abs(simd::loadu(x + j)));
  float m = simd::reduce_max(acc);
  for (; j < n; ++j) m = std::max(m, std::fabs(x[j]));
  return m;
}

// max |x| over n values, infinite if any is NaN (a model's own V may hold NaN).
double max_abs_or_inf(const float* x, int n) {
  double m = 0;
  for (int j = 0; j < n; ++j)
    m = std::isnan(x[j]) ? HUGE_VAL : std::max(m, static_cast<double>(std::fabs(x[j])));
  return m;
}

// Floats of a packed T × cols block (panel_gemm.hpp pads each panel to its full width).
std::size_t packed_floats(int T, int cols) {
  return static_cast<std::size_t>(panel::panel_count(T)) * panel::kPanelWidth * cols;
}

}  // namespace

// Columns [c0, c1) of a model's own Q, K and V (rounded to the format, as sampled inputs are).
void PointJob::copy_given_block(int c0, int c1) {
  Workspace& ws = *ws_;
  const Format fmt = configs_->front().format;
  const int T = ws.seqLen, n = c1 - c0;
  for (int t = 0; t < T; ++t) {
    const long from = static_cast<long>(t) * ws.cols + c0, to = static_cast<long>(t) * kBlockCols;
    std::copy_n(ws.givenQ + from, n, ws.qBlock.data() + to);
    std::copy_n(ws.givenK + from, n, ws.kBlock.data() + to);
    round_inplace(fmt, ws.qBlock.data() + to, n);
    round_inplace(fmt, ws.kBlock.data() + to, n);
    std::copy_n(ws.qBlock.data() + to, n, ws.q.data() + from);
    std::copy_n(ws.kBlock.data() + to, n, ws.k.data() + from);
    if (ws.givenV) ws.maxAbsV = std::max(ws.maxAbsV, max_abs_or_inf(ws.givenV + from, n));
  }
}

void PointJob::sample_block(int c0, int c1) {
  Workspace& ws = *ws_;
  const Config& c = configs_->front();
  const int T = ws.seqLen, n = c1 - c0;
  const std::size_t block = static_cast<std::size_t>(T) * kBlockCols;
  ws.vBlock.resize(block);
  ws.gBlock.resize(block);
  ws.qBlock.resize(block);
  ws.kBlock.resize(block);
  // Q and K of the block also stay contiguous (row stride kBlockCols) for the products: rows of q
  // and k lie ws.cols floats apart (16 KiB at d_k = 4096), so a row block of them would map to the
  // same few cache sets.
  const std::size_t packed = packed_floats(T, n);
  ws.kPanels.resize(packed);
  if (ws.givenQ) {
    copy_given_block(c0, c1);
  } else {
    ws.hashes.compute(c0, n);
    sample_qk_columns(c, ws.hashes, ws.qBlock.data(), ws.kBlock.data(), kBlockCols);
    for (int t = 0; t < T; ++t) {
      const long from = static_cast<long>(t) * kBlockCols, to = static_cast<long>(t) * ws.cols + c0;
      std::copy_n(ws.qBlock.data() + from, n, ws.q.data() + to);
      std::copy_n(ws.kBlock.data() + from, n, ws.k.data() + to);
    }
    sample_vg_columns(c, ws.hashes, ws.vBlock.data(), gradientsLast_ ? nullptr : ws.gBlock.data(),
                      kBlockCols);
    for (int t = 0; t < T; ++t)  // (a max is exact in any order)
      ws.maxAbsV =
          std::max(ws.maxAbsV, max_abs(ws.vBlock.data() + static_cast<long>(t) * kBlockCols, n));
    const std::size_t blocks = (dk_ + kBlockCols - 1) / kBlockCols;
    ws.vPanels.resize(gradientsLast_ ? blocks * packed_floats(T, kBlockCols) : packed);
    // Vᵀ restricted to this block, for GVᵀ: element (k, t) is V[t][c0 + k].
    panel::pack_panels(n, T, ws.vBlock.data(), 1, kBlockCols, v_panels(c0));
  }
  // Kᵀ restricted to this block: element (k, t) is K[t][c0 + k].
  panel::pack_panels(n, T, ws.kBlock.data(), 1, kBlockCols, ws.kPanels.data());
  if (ws.gram && !gradientsLast_) {
    ws.qPanels.resize(packed);
    panel::pack_panels(n, T, ws.qBlock.data(), 1, kBlockCols, ws.qPanels.data());
  }
}

// The packed Vᵀ of the block at column c0: one buffer reused, or each block its own when GVᵀ
// waits for the forward to end.
float* PointJob::v_panels(int c0) {
  const std::size_t offset =
      gradientsLast_ ? (c0 / kBlockCols) * packed_floats(ws_->seqLen, kBlockCols) : 0;
  return ws_->vPanels.data() + offset;
}

void PointJob::accumulate_rows(int c0, int c1, int r0, int r1) {
  Workspace& ws = *ws_;
  const int T = ws.seqLen, n = c1 - c0;
  const long row = static_cast<long>(r0);
  const long from = row * kBlockCols;
  panel::accumulate_packed(r1 - r0, T, n, ws.qBlock.data() + from, kBlockCols, ws.kPanels.data(),
                           ws.logits.data() + row * T, T);
  // (A model's own inputs come without an upstream gradient.)
  if (!ws.givenQ && !gradientsLast_) gradient_product_rows(c0, c1, r0, r1);
}

// G and the blocks of Q and K again, once the forward is done, for GVᵀ and the Gram products.
// Each is the same bits as when it was first sampled or packed (rng/ is counter-based).
void PointJob::gradient_block(int c0, int c1) {
  Workspace& ws = *ws_;
  const int T = ws.seqLen, n = c1 - c0;
  ws.hashes.compute(c0, n);
  sample_vg_columns(configs_->front(), ws.hashes, nullptr, ws.gBlock.data(), kBlockCols);
  if (!ws.gram) return;
  for (int t = 0; t < T; ++t) {
    const long to = static_cast<long>(t) * kBlockCols, from = static_cast<long>(t) * ws.cols + c0;
    std::copy_n(ws.q.data() + from, n, ws.qBlock.data() + to);
    std::copy_n(ws.k.data() + from, n, ws.kBlock.data() + to);
  }
  ws.kPanels.resize(packed_floats(T, n));
  ws.qPanels.resize(packed_floats(T, n));
  panel::pack_panels(n, T, ws.kBlock.data(), 1, kBlockCols, ws.kPanels.data());
  panel::pack_panels(n, T, ws.qBlock.data(), 1, kBlockCols, ws.qPanels.data());
}

// Rows [r0, r1) of GVᵀ (and of the Gram products) over columns [c0, c1).
void PointJob::gradient_product_rows(int c0, int c1, int r0, int r1) {
  Workspace& ws = *ws_;
  const int T = ws.seqLen, n = c1 - c0;
  const long row = static_cast<long>(r0);
  const long from = row * kBlockCols;
  panel::accumulate_packed(r1 - r0, T, n, ws.gBlock.data() + from, kBlockCols, v_panels(c0),
                           ws.gradWeights.data() + row * T, T);
  if (ws.gram) {  // lower triangles of KKᵀ and QQᵀ
    panel::accumulate_packed(r1 - r0, r1, n, ws.kBlock.data() + from, kBlockCols, ws.kPanels.data(),
                             ws.gramK.data() + row * T, T, r0);
    panel::accumulate_packed(r1 - r0, r1, n, ws.qBlock.data() + from, kBlockCols, ws.qPanels.data(),
                             ws.gramQ.data() + row * T, T, r0);
  }
}

// Raw logits: the fp32 dot products rounded to the format.
void PointJob::raw_logit_rows(int r0, int r1) {
  Workspace& ws = *ws_;
  const std::size_t T = ws.seqLen, from = r0 * T, count = (r1 - r0) * T;
  ws.z.resize(T * T);
  std::copy_n(ws.logits.begin() + from, count, ws.z.data() + from);
  round_inplace(configs_->front().format, ws.z.data() + from, count);
}

void PointJob::raw_summary() {
  Workspace& ws = *ws_;
  ws.sampled = dk_;
  raw_ = visible_moments(ws.z.data(), ws.seqLen, configs_->front().causal);
  if (keep_)
    rawHistogram_ = visible_histogram(ws.z.data(), ws.seqLen, configs_->front().causal, raw_);
}

// QK-norm: rows of q̂ and k̂ over the first d_k columns, rounded to the format.
void PointJob::normalize_rows(int r0, int r1) {
  Workspace& ws = *ws_;
  const Config& c = configs_->front();
  const int T = ws.seqLen, d = dk_;
  const std::size_t Td = static_cast<std::size_t>(T) * d;
  ws.qn.resize(Td);
  ws.kn.resize(Td);
  ws.qInv.resize(T);
  ws.kInv.resize(T);
  for (int t = r0; t < r1; ++t) {
    const long in = static_cast<long>(t) * ws.cols, out = static_cast<long>(t) * d;
    ws.qInv[t] = normalize_row(c.qkNorm, ws.q.data() + in, d, ws.qn.data() + out);
    ws.kInv[t] = normalize_row(c.qkNorm, ws.k.data() + in, d, ws.kn.data() + out);
    round_inplace(c.format, ws.qn.data() + out, d);
    round_inplace(c.format, ws.kn.data() + out, d);
  }
}

// Rows of q̂k̂ᵀ in fp32 (a fresh product per d_k: normalizing depends on every column), and
// their rounding into z for the statistics of q̂·k̂.
void PointJob::norm_product_rows(int r0, int r1) {
  Workspace& ws = *ws_;
  const int T = ws.seqLen, d = dk_;
  const std::size_t TT = static_cast<std::size_t>(T) * T, from = static_cast<std::size_t>(r0) * T,
                    count = static_cast<std::size_t>(r1 - r0) * T;
  ws.normLogits.resize(TT);
  ws.panel.resize(panel::multiply_rows_panel_floats(T, d));
  panel::multiply_rows(r1 - r0, T, d, ws.qn.data() + static_cast<long>(r0) * d, d, ws.kn.data(), 1,
                       d, ws.normLogits.data() + from, T, ws.panel.data());
  std::copy_n(ws.normLogits.begin() + from, count, ws.z.data() + from);
  round_inplace(configs_->front().format, ws.z.data() + from, count);
}

// σ of q̂·k̂ (of q·k itself without QK-norm).
void PointJob::norm_summary() {
  const Config& c = configs_->front();
  normStd_ =
      c.qkNorm == QkNorm::none ? raw_.std : visible_moments(ws_->z.data(), c.seqLen, c.causal).std;
}

// What the scaled logits start from: q·k, or q̂·k̂ with QK-norm (fp32, before rounding).
const std::vector<float>& PointJob::logit_source() const {
  return configs_->front().qkNorm == QkNorm::none ? ws_->logits : ws_->normLogits;
}
}  // namespace attnscale
