// Dense kernels of the trainer: one small-matrix product written in "axpy" form.
//
//   C[i][j] (+)= sum_k A(i,k) * B[k][j]
//
// A(i,k) is read as A[i*ars + k*acs] (so A or A^T, any strides); rows of B and C are contiguous.
// The work is vectorised along j only: every C element is built by the same sequence of IEEE
// operations (start from 0 or from C, then c = c + a*b for k = 0, 1, ..., K-1), whatever the
// vector width, the register tile or the tail path. Hence results are bit-identical natively
// (AVX2, 8 lanes), in wasm SIMD128 (4 lanes) and in the scalar build; the project compiles with
// -ffp-contract=off so no path fuses the multiply-add.
#pragma once

#include <cstddef>

#include "simd/batch.hpp"

namespace attnscale::train {

namespace detail {

// Two rows of C at a time; 4 vectors per row (8 accumulators: fits wasm's ~15 vector registers).
inline void gemm_rows2(int N, int K, const float* a0, const float* a1, std::ptrdiff_t acs,
                       const float* B, std::ptrdiff_t ldb, float* c0, float* c1, bool acc) {
  using simd::vf;
  constexpr int W = static_cast<int>(simd::W);
  int j = 0;
  for (; j + 4 * W <= N; j += 4 * W) {
    vf x0, x1, x2, x3, y0, y1, y2, y3;
    if (acc) {
      x0 = simd::loadu(c0 + j), x1 = simd::loadu(c0 + j + W), x2 = simd::loadu(c0 + j + 2 * W),
      x3 = simd::loadu(c0 + j + 3 * W);
      y0 = simd::loadu(c1 + j), y1 = simd::loadu(c1 + j + W), y2 = simd::loadu(c1 + j + 2 * W),
      y3 = simd::loadu(c1 + j + 3 * W);
    } else {
      x0 = x1 = x2 = x3 = y0 = y1 = y2 = y3 = vf(0.0f);
    }
    const float* b = B + j;
    for (int k = 0; k < K; ++k, b += ldb) {
      const vf p(a0[k * acs]);
      const vf q(a1[k * acs]);
      const vf b0 = simd::loadu(b), b1 = simd::loadu(b + W), b2 = simd::loadu(b + 2 * W),
               b3 = simd::loadu(b + 3 * W);
      x0 = x0 + p * b0;
      x1 = x1 + p * b1;
      x2 = x2 + p * b2;
      x3 = x3 + p * b3;
      y0 = y0 + q * b0;
      y1 = y1 + q * b1;
      y2 = y2 + q * b2;
      y3 = y3 + q * b3;
    }
    simd::storeu(c0 + j, x0), simd::storeu(c0 + j + W, x1), simd::storeu(c0 + j + 2 * W, x2),
        simd::storeu(c0 + j + 3 * W, x3);
    simd::storeu(c1 + j, y0), simd::storeu(c1 + j + W, y1), simd::storeu(c1 + j + 2 * W, y2),
        simd::storeu(c1 + j + 3 * W, y3);
  }
  for (; j + 2 * W <= N; j += 2 * W) {
    vf x0 = acc ? simd::loadu(c0 + j) : vf(0.0f), x1 = acc ? simd::loadu(c0 + j + W) : vf(0.0f);
    vf y0 = acc ? simd::loadu(c1 + j) : vf(0.0f), y1 = acc ? simd::loadu(c1 + j + W) : vf(0.0f);
    const float* b = B + j;
    for (int k = 0; k < K; ++k, b += ldb) {
      const vf p(a0[k * acs]);
      const vf q(a1[k * acs]);
      const vf b0 = simd::loadu(b), b1 = simd::loadu(b + W);
      x0 = x0 + p * b0;
      x1 = x1 + p * b1;
      y0 = y0 + q * b0;
      y1 = y1 + q * b1;
    }
    simd::storeu(c0 + j, x0), simd::storeu(c0 + j + W, x1);
    simd::storeu(c1 + j, y0), simd::storeu(c1 + j + W, y1);
  }
  for (; j + W <= N; j += W) {
    vf x = acc ? simd::loadu(c0 + j) : vf(0.0f);
    vf y = acc ? simd::loadu(c1 + j) : vf(0.0f);
    const float* b = B + j;
    for (int k = 0; k < K; ++k, b += ldb) {
      const vf bv = simd::loadu(b);
      x = x + vf(a0[k * acs]) * bv;
      y = y + vf(a1[k * acs]) * bv;
    }
    simd::storeu(c0 + j, x);
    simd::storeu(c1 + j, y);
  }
  for (; j < N; ++j) {
    float x = acc ? c0[j] : 0.0f;
    float y = acc ? c1[j] : 0.0f;
    const float* b = B + j;
    for (int k = 0; k < K; ++k, b += ldb) {
      x = x + a0[k * acs] * *b;
      y = y + a1[k * acs] * *b;
    }
    c0[j] = x;
    c1[j] = y;
  }
}

inline void gemm_rows1(int N, int K, const float* a0, std::ptrdiff_t acs, const float* B,
                       std::ptrdiff_t ldb, float* c0, bool acc) {
  using simd::vf;
  constexpr int W = static_cast<int>(simd::W);
  int j = 0;
  for (; j + 4 * W <= N; j += 4 * W) {
    vf x0, x1, x2, x3;
    if (acc) {
      x0 = simd::loadu(c0 + j), x1 = simd::loadu(c0 + j + W), x2 = simd::loadu(c0 + j + 2 * W),
      x3 = simd::loadu(c0 + j + 3 * W);
    } else {
      x0 = x1 = x2 = x3 = vf(0.0f);
    }
    const float* b = B + j;
    for (int k = 0; k < K; ++k, b += ldb) {
      const vf p(a0[k * acs]);
      x0 = x0 + p * simd::loadu(b);
      x1 = x1 + p * simd::loadu(b + W);
      x2 = x2 + p * simd::loadu(b + 2 * W);
      x3 = x3 + p * simd::loadu(b + 3 * W);
    }
    simd::storeu(c0 + j, x0), simd::storeu(c0 + j + W, x1), simd::storeu(c0 + j + 2 * W, x2),
        simd::storeu(c0 + j + 3 * W, x3);
  }
  for (; j + W <= N; j += W) {
    vf x = acc ? simd::loadu(c0 + j) : vf(0.0f);
    const float* b = B + j;
    for (int k = 0; k < K; ++k, b += ldb) x = x + vf(a0[k * acs]) * simd::loadu(b);
    simd::storeu(c0 + j, x);
  }
  for (; j < N; ++j) {
    float x = acc ? c0[j] : 0.0f;
    const float* b = B + j;
    for (int k = 0; k < K; ++k, b += ldb) x = x + a0[k * acs] * *b;
    c0[j] = x;
  }
}

}  // namespace detail

// C (M x N, row stride ldc) = or += A (M x K, element (i,k) at A[i*ars + k*acs]) * B (K x N, ldb).
inline void gemm(int M, int N, int K, const float* A, std::ptrdiff_t ars, std::ptrdiff_t acs,
                 const float* B, std::ptrdiff_t ldb, float* C, std::ptrdiff_t ldc,
                 bool accumulate) {
  int i = 0;
  for (; i + 2 <= M; i += 2)
    detail::gemm_rows2(N, K, A + i * ars, A + (i + 1) * ars, acs, B, ldb, C + i * ldc,
                       C + (i + 1) * ldc, accumulate);
  if (i < M) detail::gemm_rows1(N, K, A + i * ars, acs, B, ldb, C + i * ldc, accumulate);
}

// out (cols x rows) = in (rows x cols)^T
inline void transpose(int rows, int cols, const float* in, float* out) {
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) out[c * rows + r] = in[r * cols + c];
}

}  // namespace attnscale::train
