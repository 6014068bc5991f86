// A 4 × 4 block of floats transposed in registers (zips of lanes, then of lane pairs), for 4-lane
// vectors (SSE, wasm SIMD128): shared by the matrix transpose and the packing of transposed GEMM
// panels. Not declared in the scalar build (no vector type to use).
#pragma once

#include "simd/batch.hpp"

namespace attnscale::simd {

#if !defined(XSIMD_NO_SUPPORTED_ARCHITECTURE)
// out[j·ldOut + i] = in[i·ldIn + j] for i, j < 4 (V must have 4 lanes; callers check simd::W). With
// rows r0…r3: t0 = (r0[0] r1[0] r0[1] r1[1]), t1 = (r0[2] r1[2] r0[3] r1[3]) and likewise t2, t3
// from r2, r3; then the same zips on lane pairs give output row j = (r0[j] r1[j] r2[j] r3[j]).
template <class V>
inline void transpose_4x4(const float* in, long ldIn, float* out, long ldOut) {
  using pairs = xsimd::batch<double>;
  const auto as_pairs = [](V x) { return xsimd::bitwise_cast<pairs>(x); };
  const auto as_floats = [](pairs x) { return xsimd::bitwise_cast<V>(x); };
  const V r0 = loadu(in), r1 = loadu(in + ldIn);
  const V r2 = loadu(in + 2 * ldIn), r3 = loadu(in + 3 * ldIn);
  const V t0 = xsimd::zip_lo(r0, r1), t1 = xsimd::zip_hi(r0, r1);
  const V t2 = xsimd::zip_lo(r2, r3), t3 = xsimd::zip_hi(r2, r3);
  storeu(out, as_floats(xsimd::zip_lo(as_pairs(t0), as_pairs(t2))));
  storeu(out + ldOut, as_floats(xsimd::zip_hi(as_pairs(t0), as_pairs(t2))));
  storeu(out + 2 * ldOut, as_floats(xsimd::zip_lo(as_pairs(t1), as_pairs(t3))));
  storeu(out + 3 * ldOut, as_floats(xsimd::zip_hi(as_pairs(t1), as_pairs(t3))));
}
#endif

}  // namespace attnscale::simd
