#include "gemm/panel_gemm.hpp"

#include <algorithm>
#include <vector>

#include "simd/transpose.hpp"

namespace attnscale::panel {

namespace {

#if !defined(XSIMD_NO_SUPPORTED_ARCHITECTURE)
// panel[k·W' + n] = src[n·ld + k] for k < K (a multiple of 4), n < W' = kPanelWidth: 4 × 4 blocks
// transposed in registers (simd/transpose.hpp), for 4-lane vectors (SSE, wasm SIMD128). Four times
// fewer loads and stores than the scalar gather, and no strided stores.
template <class V>
void pack_transposed_4x4(int K, const float* src, long ld, float* panel) {
  for (int n = 0; n < kPanelWidth; n += 4)
    for (int k = 0; k < K; k += 4)
      simd::transpose_4x4<V>(src + n * ld + k, ld, panel + static_cast<long>(k) * kPanelWidth + n,
                             kPanelWidth);
}
#endif

}  // namespace

void pack_panels(int K, int N, const float* src, long rowStride, long colStride, float* out) {
  for (int p = 0; p < panel_count(N); ++p) {
    const int n0 = p * kPanelWidth;
    const int width = std::min(kPanelWidth, N - n0);
    float* panel = out + static_cast<long>(p) * K * kPanelWidth;
    const float* block = src + n0 * colStride;
    if (colStride == 1 && width == kPanelWidth) {
      // Rows of B are rows of the panel: four vector copies per k.
      for (int k = 0; k < K; ++k)
        for (int v = 0; v < kVectors; ++v)
          simd::storeu(panel + k * kPanelWidth + v * simd::W,
                       simd::loadu(block + k * rowStride + v * simd::W));
      continue;
    }
    if (width < kPanelWidth) std::fill(panel, panel + static_cast<long>(K) * kPanelWidth, 0.0f);
    if (rowStride == 1) {
#if !defined(XSIMD_NO_SUPPORTED_ARCHITECTURE)
      if constexpr (simd::W == 4) {
        if (width == kPanelWidth && K % 4 == 0) {
          pack_transposed_4x4<vf>(K, block, colStride, panel);
          continue;
        }
      }
#endif
      // A transposed source (Kᵀ from K): read each source row contiguously, write a panel column.
      for (int n = 0; n < width; ++n)
        for (int k = 0; k < K; ++k) panel[k * kPanelWidth + n] = block[n * colStride + k];
    } else {
      for (int k = 0; k < K; ++k)
        for (int n = 0; n < width; ++n)
          panel[k * kPanelWidth + n] = block[k * rowStride + n * colStride];
    }
  }
}

void panel_gemm_reference(int M, int N, int K, const float* a, int lda, const float* b,
                          long rowStride, long colStride, float* c, int ldc) {
  for (int i = 0; i < M; ++i)
    for (int n = 0; n < N; ++n) {
      float acc = 0.0f;
      for (int k = 0; k < K; ++k)
        acc = acc + a[static_cast<long>(i) * lda + k] * b[k * rowStride + n * colStride];
      c[static_cast<long>(i) * ldc + n] = acc;
    }
}

namespace {
template <int R>
void store_tile(const vf (&acc)[R][kVectors], int i, int n0, int N, float* c, int ldc) {
  if (N - n0 >= kPanelWidth) {  // a whole panel: straight vector stores (no copy through memory)
    for (int r = 0; r < R; ++r)
      for (int v = 0; v < kVectors; ++v)
        simd::storeu(c + static_cast<long>(i + r) * ldc + n0 + v * simd::W, acc[r][v]);
    return;
  }
  alignas(64) float lanes[kPanelWidth];
  for (int r = 0; r < R; ++r) {
    for (int v = 0; v < kVectors; ++v) simd::storeu(lanes + v * simd::W, acc[r][v]);
    std::copy(lanes, lanes + std::min(kPanelWidth, N - n0),
              c + static_cast<long>(i + r) * ldc + n0);
  }
}
}  // namespace

void panel_gemm(int M, int N, int K, const float* a, int lda, const float* b, long rowStride,
                long colStride, float* c, int ldc) {
  std::vector<float> packed(static_cast<std::size_t>(panel_count(N)) * K * kPanelWidth);
  pack_panels(K, N, b, rowStride, colStride, packed.data());
  for (int p = 0; p < panel_count(N); ++p) {
    const float* panel = packed.data() + static_cast<long>(p) * K * kPanelWidth;
    int i = 0;
    for (; i + 2 <= M; i += 2) {
      vf acc[2][kVectors];
      zero(acc);
      const float* rows[2] = {a + static_cast<long>(i) * lda, a + static_cast<long>(i + 1) * lda};
      tile<2>(K, rows, panel, acc);
      store_tile<2>(acc, i, p * kPanelWidth, N, c, ldc);
    }
    if (i < M) {
      vf acc[1][kVectors];
      zero(acc);
      const float* rows[1] = {a + static_cast<long>(i) * lda};
      tile<1>(K, rows, panel, acc);
      store_tile<1>(acc, i, p * kPanelWidth, N, c, ldc);
    }
  }
}

namespace {
template <int R>
void load_tile(vf (&acc)[R][kVectors], int i, int n0, int N, const float* c, int ldc) {
  const int width = std::min(kPanelWidth, N - n0);
  if (width == kPanelWidth) {
    for (int r = 0; r < R; ++r)
      for (int v = 0; v < kVectors; ++v)
        acc[r][v] = simd::loadu(c + static_cast<long>(i + r) * ldc + n0 + v * simd::W);
    return;
  }
  alignas(64) float lanes[kPanelWidth] = {};
  for (int r = 0; r < R; ++r) {
    const float* row = c + static_cast<long>(i + r) * ldc + n0;
    const float* from = row;
    if (width < kPanelWidth) {
      std::copy(row, row + width, lanes);
      from = lanes;
    }
    for (int v = 0; v < kVectors; ++v) acc[r][v] = simd::loadu(from + v * simd::W);
  }
}
}  // namespace

namespace {
// The columns a row chunk ending at i1 needs: all N, or with lowerRow0 >= 0 (a lower triangle whose
// row 0 is row lowerRow0 of the whole matrix) those up to its last row's diagonal.
int chunk_columns(int N, int lowerRow0, int i1) {
  return lowerRow0 < 0 ? N : std::min(N, lowerRow0 + i1);
}

// Rows [i0, i1) of accumulate_packed, every panel.
void accumulate_chunk(int i0, int i1, int N, int K, const float* a, int lda, const float* panels,
                      float* c, int ldc) {
  for (int p = 0; p < panel_count(N); ++p) {
    const float* panel = panels + static_cast<long>(p) * K * kPanelWidth;
    const int n0 = p * kPanelWidth;
    int i = i0;
    for (; i + 2 <= i1; i += 2) {
      vf acc[2][kVectors];
      load_tile<2>(acc, i, n0, N, c, ldc);
      const float* rows[2] = {a + static_cast<long>(i) * lda, a + static_cast<long>(i + 1) * lda};
      tile<2>(K, rows, panel, acc);
      store_tile<2>(acc, i, n0, N, c, ldc);
    }
    if (i < i1) {
      vf acc[1][kVectors];
      load_tile<1>(acc, i, n0, N, c, ldc);
      const float* rows[1] = {a + static_cast<long>(i) * lda};
      tile<1>(K, rows, panel, acc);
      store_tile<1>(acc, i, n0, N, c, ldc);
    }
  }
}
}  // namespace

void accumulate_packed(int M, int N, int K, const float* a, int lda, const float* panels, float* c,
                       int ldc, int lowerRow0) {
  // Row chunks whose A (kRows × K floats, 16 KiB at K = 256) stays in L1 beside one panel while
  // the panels stream from L2.
  constexpr int kRows = 16;
  for (int i0 = 0; i0 < M; i0 += kRows) {
    const int i1 = std::min(M, i0 + kRows);
    accumulate_chunk(i0, i1, chunk_columns(N, lowerRow0, i1), K, a, lda, panels, c, ldc);
  }
}

std::size_t multiply_rows_panel_floats(int N, int K) {
  return static_cast<std::size_t>(panel_count(N)) * kPanelWidth * std::min(K, kRowsBlock);
}

namespace {
// The k in [0, kw) where some row of a register tile (rows[0 … R)) is nonzero, ascending.
template <int R>
int nonzero_ks(const float* const (&rows)[R], int kw, int* ks) {
  int count = 0;
  for (int k = 0; k < kw; ++k) {
    bool any = false;
    for (int r = 0; r < R; ++r) any = any || rows[r][k] != 0.0f;
    ks[count] = k;
    count += any ? 1 : 0;
  }
  return count;
}

// One register tile of multiply_rows: rows [i, i + R) against one panel of the k-block at k0.
template <int R>
void rows_tile(int i, int n0, int N, int k0, int kw, const float* const (&rows)[R], const int* ks,
               int count, const float* panel, float* c, int ldc) {
  vf acc[R][kVectors];
  if (k0 == 0)
    zero(acc);
  else
    load_tile<R>(acc, i, n0, N, c, ldc);
  if constexpr (R == 2) {
    if (ks)
      tile_listed<R>(ks, count, rows, panel, acc);
    else
      tile<R>(kw, rows, panel, acc);
  } else {  // (a single last row takes the dense loop: less code)
    tile<R>(kw, rows, panel, acc);
  }
  store_tile<R>(acc, i, n0, N, c, ldc);
}
}  // namespace

namespace {
// One k-block (k0, width kw) of multiply_rows, its B panels at `panels` (packed for packedN >= N
// columns): row chunks of 32 (A: 16 KiB, in L1) pass over the panels (each 8 KiB, from L2).
void rows_block(int M, int N, int k0, int kw, const float* a, int lda, const float* panels,
                float* c, int ldc, bool skipZeros, int lowerRow0) {
  constexpr int kRows = 32;
  int ks[kRows / 2][kRowsBlock];
  int counts[kRows / 2] = {};
  for (int i0 = 0; i0 < M; i0 += kRows) {
    const int i1 = std::min(M, i0 + kRows);
    const auto row = [&](int i) { return a + static_cast<long>(i) * lda + k0; };
    if (skipZeros)
      for (int i = i0; i + 2 <= i1; i += 2) {
        const float* rows[2] = {row(i), row(i + 1)};
        counts[(i - i0) / 2] = nonzero_ks<2>(rows, kw, ks[(i - i0) / 2]);
      }
    for (int p = 0; p < panel_count(chunk_columns(N, lowerRow0, i1)); ++p) {
      const int n0 = p * kPanelWidth;
      const float* panel = panels + static_cast<long>(p) * kw * kPanelWidth;
      for (int i = i0; i < i1; i += 2) {
        const int t = (i - i0) / 2;
        const int* list = skipZeros ? ks[t] : nullptr;
        if (i + 2 <= i1) {
          const float* rows[2] = {row(i), row(i + 1)};
          rows_tile<2>(i, n0, N, k0, kw, rows, list, counts[t], panel, c, ldc);
        } else {
          const float* rows[1] = {row(i)};
          rows_tile<1>(i, n0, N, k0, kw, rows, list, counts[t], panel, c, ldc);
        }
      }
    }
  }
}
}  // namespace

void multiply_rows(int M, int N, int K, const float* a, int lda, const float* b, long rowStride,
                   long colStride, float* c, int ldc, float* panels, bool skipZeros,
                   int lowerRow0) {
  // k-blocks of kRowsBlock: every panel of the block is packed once, then the rows pass over it.
  // Each entry continues its sum across blocks in k order (same bits as one pass).
  for (int k0 = 0; k0 < K; k0 += kRowsBlock) {
    const int kw = std::min(kRowsBlock, K - k0);
    pack_panels(kw, N, b + k0 * rowStride, rowStride, colStride, panels);
    rows_block(M, N, k0, kw, a, lda, panels, c, ldc, skipZeros, lowerRow0);
  }
}

std::size_t packed_rows_floats(int N, int K) {
  return static_cast<std::size_t>(panel_count(N)) * kPanelWidth * K;
}

void pack_rows_block(int k0, int N, int K, const float* b, long rowStride, long colStride,
                     float* packed) {
  pack_panels(std::min(kRowsBlock, K - k0), N, b + k0 * rowStride, rowStride, colStride,
              packed + static_cast<long>(k0) * panel_count(N) * kPanelWidth);
}

void multiply_rows_packed(int M, int N, int K, const float* a, int lda, const float* packed,
                          int packedN, float* c, int ldc, bool skipZeros, int lowerRow0) {
  for (int k0 = 0; k0 < K; k0 += kRowsBlock)
    rows_block(M, N, k0, std::min(kRowsBlock, K - k0), a, lda,
               packed + static_cast<long>(k0) * panel_count(packedN) * kPanelWidth, c, ldc,
               skipZeros, lowerRow0);
}

}  // namespace attnscale::panel
