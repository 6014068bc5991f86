// The only raw intrinsics in the project: ops that xsimd 8.1's SSE4.1 path lowers badly to wasm
// SIMD128 (max and min become compare + select where wasm has one-op f32x4.pmax and pmin).
// Everything else goes through batch.hpp.
#pragma once

#if defined(__wasm_simd128__) && !defined(XSIMD_NO_SUPPORTED_ARCHITECTURE)
#include <wasm_simd128.h>
#endif

namespace attnscale::simd {

// Maximum of two vectors. On wasm, f32x4.pmax is one instruction (b < a ? a : b per lane), where
// xsimd::max becomes compare + select. Natively _mm*_max_ps is one instruction already.
// NaN handling differs between the two; callers must not rely on it (they count NaNs separately).
inline vf vmax(vf a, vf b) {
#if defined(XSIMD_NO_SUPPORTED_ARCHITECTURE)
  return b.v < a.v ? a : b;
#elif defined(__wasm_simd128__)
  return vf(static_cast<__m128>(wasm_f32x4_pmax(static_cast<v128_t>(static_cast<__m128>(a)),
                                                static_cast<v128_t>(static_cast<__m128>(b)))));
#else
  return xsimd::max(a, b);
#endif
}

inline vf vmin(vf a, vf b) {
#if defined(XSIMD_NO_SUPPORTED_ARCHITECTURE)
  return a.v < b.v ? a : b;
#elif defined(__wasm_simd128__)
  return vf(static_cast<__m128>(wasm_f32x4_pmin(static_cast<v128_t>(static_cast<__m128>(a)),
                                                static_cast<v128_t>(static_cast<__m128>(b)))));
#else
  return xsimd::min(a, b);
#endif
}

// max(x, floor) that keeps a NaN x (NaN in, NaN out) in every build: wasm f32x4.pmax(x, floor) is
// `x < floor ? floor : x`; x86 maxps returns its second operand when either is NaN, so there the
// operands go the other way round.
inline vf max_keep_nan(vf x, vf floor) {
#if defined(XSIMD_NO_SUPPORTED_ARCHITECTURE)
  return x.v < floor.v ? floor : x;
#elif defined(__wasm_simd128__)
  return vmax(x, floor);
#else
  return xsimd::max(floor, x);
#endif
}

}  // namespace attnscale::simd
