// The forward-only GEMM of AttentionForward: C = A · B with B packed into column panels.
//
// Why a second GEMM (gemm.hpp stays the bit-exact accumulate-in-place kernel of the engine and
// the d_k sweep): the forward multiplies the same B (Kᵀ, then V) against every block of query
// rows, so B is packed once per call into panels of kPanelWidth = 4 vectors of columns, each panel
// stored k-major and contiguous (K × kPanelWidth floats, zero-padded past N). The register tile
// then reads its 4 B vectors from consecutive addresses (one stream, no stride, no TLB misses at
// d_k = 512) and A as one broadcast scalar per row. The tile is 2 rows × 4 vectors: 8 accumulators
// + 4 B + 1 A = 13 of the ~15 vector registers V8 gives wasm (SIMD128 has no FMA); larger tiles
// spill. The caller stores the accumulators itself (an epilogue: the forward scales the logits
// and folds their row maxima, or multiplies by 1/ℓ, there), so that work costs no extra pass
// over C.
//
// Every accumulator is the plain sum c = 0; c = c + a[k]·b[k] for k = 0, 1, … (multiply, then
// add, no FMA): the result is bit-identical to panel_gemm_reference in every build.
#pragma once

#include <cstddef>

#include "simd/batch.hpp"

namespace attnscale::panel {

using simd::vf;
inline constexpr int kVectors = 4;
inline constexpr int kPanelWidth = kVectors * static_cast<int>(simd::W);

inline int panel_count(int n) { return (n + kPanelWidth - 1) / kPanelWidth; }

// Packs B (K × N, element (k, n) at src[k·rowStride + n·colStride]) into panel_count(N) panels;
// panel p holds, for k = 0 … K−1, columns [p·W', p·W' + W') (W' = kPanelWidth), zero past N.
// out: panel_count(N) · K · kPanelWidth floats.
void pack_panels(int K, int N, const float* src, long rowStride, long colStride, float* out);

// The register tile: acc[r][v] += Σ_{k<K} a[r][k] · panel[k·W' + v·W …] in k order, for R = 1 or
// 2 rows of A, each contiguous along k. `panel` points at the first k of one packed panel. The
// caller initialises acc (zero(), or a partial sum over earlier k: a product split along k gives
// the same bits as the unsplit one).
template <int R>
inline void tile(int K, const float* const (&a)[R], const float* panel, vf (&acc)[R][kVectors]) {
  const float* ar[R];
  for (int r = 0; r < R; ++r) ar[r] = a[r];
  const float* const end = panel + static_cast<long>(K) * kPanelWidth;
  for (; panel != end; panel += kPanelWidth) {
    vf b[kVectors];
    for (int v = 0; v < kVectors; ++v) b[v] = simd::loadu(panel + v * simd::W);
    for (int r = 0; r < R; ++r) {
      const vf av(*ar[r]++);
      for (int v = 0; v < kVectors; ++v) acc[r][v] = acc[r][v] + av * b[v];
    }
  }
}

// tile() over the k listed in ks[0 … count) only (ascending), for sparse rows of A.
template <int R>
inline void tile_listed(const int* ks, int count, const float* const (&a)[R], const float* panel,
                        vf (&acc)[R][kVectors]) {
  for (int idx = 0; idx < count; ++idx) {
    const int k = ks[idx];
    const float* b = panel + static_cast<long>(k) * kPanelWidth;
    vf bv[kVectors];
    for (int v = 0; v < kVectors; ++v) bv[v] = simd::loadu(b + v * simd::W);
    for (int r = 0; r < R; ++r) {
      const vf av(a[r][k]);
      for (int v = 0; v < kVectors; ++v) acc[r][v] = acc[r][v] + av * bv[v];
    }
  }
}

template <int R>
inline void zero(vf (&acc)[R][kVectors]) {
  for (int r = 0; r < R; ++r)
    for (int v = 0; v < kVectors; ++v) acc[r][v] = vf(0.0f);
}

// C (M × N, leading dimension ldc) += A (M × K, row i at a + i·lda) · B, with B packed by
// pack_panels(K, N, …). Each entry continues its own sum in k order, c = c + a[k]·b[k]: the same
// bits as gemm_accumulate over the same k range, so a product may be extended block by block.
// lowerRow0 >= 0: only a lower triangle is wanted, row i of C being row lowerRow0 + i of the whole
// matrix; entries right of the diagonal may be skipped (left as they were; whole panels only).
void accumulate_packed(int M, int N, int K, const float* a, int lda, const float* panels, float* c,
                       int ldc, int lowerRow0 = -1);

// C (M × N, leading dimension ldc) = A (M × K, row i at a + i·lda) · B (K × N, element (k, n) at
// b[k·rowStride + n·colStride]), packing B a k-block (kRowsBlock) at a time into `panels`
// (multiply_rows_panel_floats(N, K) floats): for a product whose B is used by one row block only,
// where packing all of B first would cost memory. Each entry is the plain sum 0 + a[0]·b[0] +
// a[1]·b[1] + …: the bits of gemm_accumulate onto zeros.
inline constexpr int kRowsBlock = 128;
std::size_t multiply_rows_panel_floats(int N, int K);
// skipZeros: terms whose a[k] is exactly 0 for every row of a register tile are left out. With B
// free of inf and NaN each such term is ±0, and c + ±0 == c for every c reachable from c = +0, so
// the result is the same bits; it saves work when A is mostly exact zeros (a saturated softmax's
// dS). lowerRow0: as for accumulate_packed (skipped entries are left unwritten).
void multiply_rows(int M, int N, int K, const float* a, int lda, const float* b, long rowStride,
                   long colStride, float* c, int ldc, float* panels, bool skipZeros = false,
                   int lowerRow0 = -1);

// multiply_rows with B packed once beforehand, for a B that many calls share (the backward's K and
// Q, or dS, against every row block): packing B anew in each call cost as much as a third of the
// product. pack_rows_block() packs B's k-block at k0 (a multiple of kRowsBlock) for N columns
// into `packed` (packed_rows_floats(N, K) floats, every k-block in turn); multiply_rows_packed
// then computes the first N <= packedN columns from panels packed for packedN. The same bits as
// multiply_rows.
std::size_t packed_rows_floats(int N, int K);
void pack_rows_block(int k0, int N, int K, const float* b, long rowStride, long colStride,
                     float* packed);
void multiply_rows_packed(int M, int N, int K, const float* a, int lda, const float* packed,
                          int packedN, float* c, int ldc, bool skipZeros = false,
                          int lowerRow0 = -1);

// The plain triple loop of the same product, for the tests: C (M × N, leading dimension ldc) =
// A (M × K, leading dimension lda) · B (element (k, n) at b[k·rowStride + n·colStride]).
void panel_gemm_reference(int M, int N, int K, const float* a, int lda, const float* b,
                          long rowStride, long colStride, float* c, int ldc);

// C = A · B through pack_panels + tile (plain stores), for the tests.
void panel_gemm(int M, int N, int K, const float* a, int lda, const float* b, long rowStride,
                long colStride, float* c, int ldc);

}  // namespace attnscale::panel
