#include "kernels/gemm.hpp"

#include <algorithm>

#include "simd/batch.hpp"

namespace attnscale {

namespace {

using simd::vf;
constexpr int W = static_cast<int>(simd::W);
// k-block keeps a B panel (kBlock × 4W floats) in L1; m-block keeps A rows in L2.
constexpr int kBlock = 256;
constexpr int mBlock = 64;

// A register tile of R rows × V vectors of C: 2 × 4 is the largest that fits 128-bit wasm without
// spills (TOOLCHAIN.md: V8 keeps ~15 vector registers; SIMD128 has no FMA).
template <int R, int V>
inline void tile(int i, int j, int k0, int k1, const MatrixView& A, const MatrixView& B, float* C,
                 int ldc) {
  vf acc[R][V];
  for (int r = 0; r < R; ++r)
    for (int v = 0; v < V; ++v) acc[r][v] = simd::loadu(C + (i + r) * ldc + j + v * W);
  // A's element (i, k) is at a[r] + k·aStep: step 1 along a stored row, or ld when transposed.
  const float* a[R];
  const long aStep = A.transposed ? A.ld : 1;
  for (int r = 0; r < R; ++r)
    a[r] = A.transposed ? A.data + static_cast<long>(k0) * A.ld + i + r
                        : A.data + static_cast<long>(i + r) * A.ld + k0;
  const float* b = B.data + static_cast<long>(k0) * B.ld + j;
  for (int k = k0; k < k1; ++k, b += B.ld) {
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
inline void row_pairs(int i0, int i1, int j, int k0, int k1, const MatrixView& A,
                      const MatrixView& B, float* C, int ldc) {
  int i = i0;
  for (; i + 2 <= i1; i += 2) tile<2, V>(i, j, k0, k1, A, B, C, ldc);
  if (i < i1) tile<1, V>(i, j, k0, k1, A, B, C, ldc);
}

}  // namespace

void gemm_accumulate(int M, int N, int k0, int k1, MatrixView A, MatrixView B, float* C, int ldc) {
  for (int kb = k0; kb < k1; kb += kBlock) {
    const int ke = std::min(kb + kBlock, k1);
    for (int ib = 0; ib < M; ib += mBlock) {
      const int ie = std::min(ib + mBlock, M);
      int j = 0;
      for (; j + 4 * W <= N; j += 4 * W) row_pairs<4>(ib, ie, j, kb, ke, A, B, C, ldc);
      for (; j + W <= N; j += W) row_pairs<1>(ib, ie, j, kb, ke, A, B, C, ldc);
      for (; j < N; ++j) column(ib, ie, j, kb, ke, A, B, C, ldc);
    }
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
  constexpr int block = 32;
  for (int ib = 0; ib < rows; ib += block)
    for (int jb = 0; jb < cols; jb += block)
      for (int i = ib; i < std::min(ib + block, rows); ++i)
        for (int j = jb; j < std::min(jb + block, cols); ++j)
          out[static_cast<long>(j) * ldOut + i] = in[static_cast<long>(i) * ldIn + j];
}

}  // namespace attnscale
