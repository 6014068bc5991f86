#include "gemm/gemm.hpp"

#include <algorithm>
#include <vector>

#include "simd/batch.hpp"
#include "simd/transpose.hpp"

namespace attnscale {

namespace {

using simd::vf;
constexpr int W = static_cast<int>(simd::W);
// A k-block of one B panel (kBlock × 4W floats, 16 KiB in wasm) is packed contiguously and stays
// in L1 while every row pair of C streams past it. Packing only moves B; each C entry is still
// accumulated in plain k order, so the result is the same bits as without it.
constexpr int kBlock = 256;
// The scalar build (W = 1) reads a tile's four floats of B per k one by one, packed or not: there
// packing only pays for a B too large to stay in cache, and a small one (the trainer's products
// of one example) is read in place.
constexpr long kScalarPackMinFloats = 4096;

// A register tile of R rows × V vectors of C: 2 × 4 is the largest that fits 128-bit wasm without
// spills (V8 keeps ~15 vector registers; SIMD128 has no FMA).
// `b` points at B(k0, j); consecutive k are bStep floats apart (B's ld, or 4W when packed).
template <int R, int V>
inline void tile(int i, int j, int k0, int k1, const MatrixView& A, const float* b, long bStep,
                 float* C, int ldc) {
  vf acc[R][V];
  for (int r = 0; r < R; ++r)
    for (int v = 0; v < V; ++v) acc[r][v] = simd::loadu(C + (i + r) * ldc + j + v * W);
  // A's element (i, k) is at a[r] + k·aStep: step 1 along a stored row, or ld when transposed.
  const float* a[R];
  const long aStep = A.transposed ? A.ld : 1;
  for (int r = 0; r < R; ++r)
    a[r] = A.transposed ? A.data + static_cast<long>(k0) * A.ld + i + r
                        : A.data + static_cast<long>(i + r) * A.ld + k0;
  for (int k = k0; k < k1; ++k, b += bStep) {
    vf bv[V];
    for (int v = 0; v < V; ++v) bv[v] = simd::loadu(b + v * W);
    for (int r = 0; r < R; ++r) {
      vf av(*a[r]);
      a[r] += aStep;
      for (int v = 0; v < V; ++v) acc[r][v] = acc[r][v] + av * bv[v];
    }
  }
  for (int r = 0; r < R; ++r)
    for (int v = 0; v < V; ++v) simd::storeu(C + (i + r) * ldc + j + v * W, acc[r][v]);
}

inline float a_at(const MatrixView& A, int i, int k) {
  return A.transposed ? A.data[static_cast<long>(k) * A.ld + i]
                      : A.data[static_cast<long>(i) * A.ld + k];
}

inline void column(int i0, int i1, int j, int k0, int k1, const MatrixView& A, const MatrixView& B,
                   float* C, int ldc) {
  for (int i = i0; i < i1; ++i) {
    float c = C[i * ldc + j];
    for (int k = k0; k < k1; ++k) c = c + a_at(A, i, k) * B.data[static_cast<long>(k) * B.ld + j];
    C[i * ldc + j] = c;
  }
}

template <int V>
inline void row_pairs(int M, int j, int k0, int k1, const MatrixView& A, const float* b, long bStep,
                      float* C, int ldc) {
  int i = 0;
  for (; i + 2 <= M; i += 2) tile<2, V>(i, j, k0, k1, A, b, bStep, C, ldc);
  if (i < M) tile<1, V>(i, j, k0, k1, A, b, bStep, C, ldc);
}

std::vector<float>& panel_buffer() {
  static std::vector<float> buffer(static_cast<std::size_t>(kBlock) * 4 * W);
  return buffer;
}

}  // namespace

void gemm_accumulate(int M, int N, int k0, int k1, MatrixView A, MatrixView B, float* C, int ldc) {
  constexpr int P = 4 * W;
  float* panel = panel_buffer().data();
  const bool pack = W > 1 || static_cast<long>(k1 - k0) * N > kScalarPackMinFloats;
  for (int kb = k0; kb < k1; kb += kBlock) {
    const int ke = std::min(kb + kBlock, k1);
    int j = 0;
    for (; j + P <= N; j += P) {
      if (!pack) {
        row_pairs<4>(M, j, kb, ke, A, B.data + static_cast<long>(kb) * B.ld + j, B.ld, C, ldc);
        continue;
      }
      for (int k = kb; k < ke; ++k)
        std::copy_n(B.data + static_cast<long>(k) * B.ld + j, P, panel + (k - kb) * P);
      row_pairs<4>(M, j, kb, ke, A, panel, P, C, ldc);
    }
    for (; j + W <= N; j += W)
      row_pairs<1>(M, j, kb, ke, A, B.data + static_cast<long>(kb) * B.ld + j, B.ld, C, ldc);
    for (; j < N; ++j) column(0, M, j, kb, ke, A, B, C, ldc);
  }
}

void gemm_accumulate_reference(int M, int N, int k0, int k1, MatrixView A, MatrixView B, float* C,
                               int ldc) {
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      float c = C[i * ldc + j];
      for (int k = k0; k < k1; ++k) c = c + a_at(A, i, k) * B.data[static_cast<long>(k) * B.ld + j];
      C[i * ldc + j] = c;
    }
}

void transpose(int rows, int cols, const float* in, int ldIn, float* out, int ldOut) {
  // 16 × 16 blocks: every cache line read or written is used whole while the block is hot (with
  // power-of-two leading dimensions all rows of a block share a cache set, so a larger block
  // would evict its own lines).
  constexpr int block = 16;
  for (int ib = 0; ib < rows; ib += block)
    for (int jb = 0; jb < cols; jb += block) {
      const int i1 = std::min(ib + block, rows), j1 = std::min(jb + block, cols);
#if !defined(XSIMD_NO_SUPPORTED_ARCHITECTURE)
      if constexpr (W == 4) {
        if (i1 - ib == block && j1 - jb == block) {
          for (int i = ib; i < i1; i += 4)
            for (int j = jb; j < j1; j += 4)
              simd::transpose_4x4<vf>(in + static_cast<long>(i) * ldIn + j, ldIn,
                                      out + static_cast<long>(j) * ldOut + i, ldOut);
          continue;
        }
      }
#endif
      for (int i = ib; i < i1; ++i)
        for (int j = jb; j < j1; ++j)
          out[static_cast<long>(j) * ldOut + i] = in[static_cast<long>(i) * ldIn + j];
    }
}

}  // namespace attnscale
