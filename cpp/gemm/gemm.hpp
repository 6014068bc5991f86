// C += A · B over the inner index range [k0, k1), float32, row-major with leading dimensions.
//
// Every element of C is accumulated in the plain order c = c + a[k] * b[k] for k = k0, k0+1, ...
// (one multiply, one add, no FMA). So the result is bit-identical in every build and for every
// blocking, and a product over [0, 2m) equals the product over [0, m) extended by [m, 2m): the
// d_k sweep reuses partial sums exactly.
#pragma once

namespace attnscale {

struct MatrixView {
  const float* data;
  int ld;  // elements between consecutive rows of the stored matrix
  bool transposed =
      false;  // A only: use the stored matrix's transpose (element (i, k) at k·ld + i)
};

void gemm_accumulate(int M, int N, int k0, int k1, MatrixView A, MatrixView B, float* C, int ldc);

// The plain triple loop, for the tests (same accumulation order, so results must match exactly).
void gemm_accumulate_reference(int M, int N, int k0, int k1, MatrixView A, MatrixView B, float* C,
                               int ldc);

// out (cols × rows) = in (rows × cols)ᵀ
void transpose(int rows, int cols, const float* in, int ldIn, float* out, int ldOut);

}  // namespace attnscale
