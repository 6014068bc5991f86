// Vectorized casts float32 -> format -> float32, round-to-nearest-even, on simd::vf.
//
// Inline so fused kernels (attention pipeline, trainer) can round inside their loops. Each kernel
// returns the float32 whose value is the format's value; it is bit-identical to round_reference()
// (cast_reference.cpp, a separate plain implementation) in every build: native, wasm SIMD, scalar.
//
// Semantics (each as the named library or standard defines it):
//   bf16     PyTorch c10::round_to_nearest_even: RNE on the upper 16 bits, overflow -> +-inf,
//            any NaN -> +qNaN 0x7FC0 (c10 drops the NaN's sign and payload).
//   fp16     IEEE 754 binary16 RNE with subnormals; |x| >= 65520 -> +-inf. NaN -> quiet NaN keeping
//            the sign and the top 9 payload bits, exactly what the x86 F16C / IEEE conversion does.
//   fp8e4m3  OCP OFP8 E4M3 (torch.float8_e4m3fn): bias 7, no inf, max 448. Non-saturating: a
//            result above 448 after rounding (so |x| > 464; 464 is the tie that goes to even 448)
//            and +-inf -> NaN with the input's sign (S.1111.111), as PyTorch <= 2.11 and ml_dtypes.
//   fp8e5m2  OCP OFP8 E5M2 (torch.float8_e5m2): bias 15, max 57344; non-saturating: |x| >= 61440
//            (61440 is the tie that goes to even 2^16) -> +-inf.
//   saturate (fp8 only) OCP OFP8 saturating mode: every result above max after rounding, and +-inf
//            inputs too, -> +-max (the spec's SAT column, also NVIDIA __NV_SATFINITE and the RISC-V
//            OFP8 conversions). NaN stays NaN. Note ml_dtypes' saturate keeps inf -> inf/NaN.
//   fp8 NaN is returned as the canonical quiet NaN 0x7FC00000 with the input's sign.
//   Signs of zero and subnormals of every format are kept.
#pragma once

#include <cstdint>
#include <type_traits>

#include "precision/format.hpp"
#include "simd/batch.hpp"

namespace attnscale {

namespace cast_detail {

// Parameters of a narrow binary format, as float32 bit patterns of its key magnitudes.
struct NarrowFormat {
  std::uint32_t min_normal;  // bits of 2^emin
  std::uint32_t magic;       // bits of 2^(emin - mantissa_bits + 23): its ulp is the subnormal step
  std::uint32_t max_finite;  // bits of the largest finite value
  std::uint32_t overflow;    // bits returned for |rounded| > max_finite (before the sign)
};

// fp16: 10 fraction bits, emin = -14, max 65504. fp8e4m3: 3, -6, 448. fp8e5m2: 2, -14, 57344.
inline constexpr std::uint32_t kInfBits = 0x7F800000u;
inline constexpr std::uint32_t kQNaNBits = 0x7FC00000u;
inline constexpr NarrowFormat kFp16{0x38800000u, 0x3F000000u, 0x477FE000u, kInfBits};
inline constexpr NarrowFormat kE4m3{0x3C800000u, 0x46800000u, 0x43E00000u, kQNaNBits};
inline constexpr NarrowFormat kE5m2{0x38800000u, 0x43000000u, 0x47600000u, kInfBits};

// Round x to the narrow format with M fraction bits. A rounded magnitude above max_finite becomes
// f.overflow, or max_finite when saturating; +-inf inputs take that path too (they round to
// >= 0x7F800000). A NaN becomes a quiet NaN keeping the input mantissa bits in `nan_keep`
// (fp16: the top 10; fp8: none). The sign is put back last.
template <int M>
inline simd::vf round_narrow(simd::vf x, const NarrowFormat& f, bool saturate,
                             std::uint32_t nan_keep) {
  using simd::vf;
  using simd::vi;
  using simd::vu;
  constexpr int kShift = 23 - M;  // float32 fraction bits dropped in the normal range
  const vu u = simd::as_u(x);
  const vu sign = u & vu(0x80000000u);
  const vu a = u ^ sign;
  const vi ai = simd::as_i(a);  // 0 <= ai <= 0x7FFFFFFF: signed compares are exact here

  // Normal range: RNE on the bit pattern. Adding (half - 1) + lsb and truncating rounds ties to
  // even; a carry out of the fraction correctly bumps the exponent. Unsigned: NaN inputs may wrap.
  const vu lsb = (a >> kShift) & vu(1u);
  const vu rn = (a + vu((1u << (kShift - 1)) - 1u) + lsb) & vu(~((1u << kShift) - 1u));

  // Subnormal range (|x| < 2^emin): adding 2^(emin-M+23), whose ulp is the subnormal step, makes
  // the FPU round to nearest even at that step; subtracting it back is exact (Sterbenz). Needs
  // IEEE arithmetic with subnormals: no -ffast-math, no flush-to-zero.
  const vf big = simd::as_f(vu(f.magic));
  const vu rs = simd::as_u((simd::as_f(a) + big) - big);

  const auto as_vi = [](std::uint32_t bits) { return vi(static_cast<std::int32_t>(bits)); };
  vu r = simd::select(simd::to_mu(ai < as_vi(f.min_normal)), rs, rn);
  const vu over = vu(saturate ? f.max_finite : f.overflow);
  r = simd::select(simd::to_mu(simd::as_i(r) > as_vi(f.max_finite)), over, r);
  const vu nan = vu(kQNaNBits) | (a & vu(nan_keep));
  r = simd::select(simd::to_mu(ai > as_vi(kInfBits)), nan, r);
  return simd::as_f(r | sign);
}

}  // namespace cast_detail

inline simd::vf round_bf16(simd::vf x) {
  using simd::vu;
  // c10::round_to_nearest_even: (bits + 0x7FFF + lsb) >> 16 on the whole word (sign included);
  // overflow lands on the inf pattern by itself. NaN first, as a payload in the low half could
  // otherwise round to inf.
  const vu u = simd::as_u(x);
  const vu r = (u + vu(0x7FFFu) + ((u >> 16) & vu(1u))) & vu(0xFFFF0000u);
  return simd::as_f(simd::select(simd::to_mu(simd::isnan(x)), vu(cast_detail::kQNaNBits), r));
}

inline simd::vf round_fp16(simd::vf x) {
  return cast_detail::round_narrow<10>(x, cast_detail::kFp16, false, 0x007FE000u);
}

inline simd::vf round_fp8e4m3(simd::vf x, bool saturate) {
  return cast_detail::round_narrow<3>(x, cast_detail::kE4m3, saturate, 0u);
}

inline simd::vf round_fp8e5m2(simd::vf x, bool saturate) {
  return cast_detail::round_narrow<2>(x, cast_detail::kE5m2, saturate, 0u);
}

// Compile-time format, for loops that pick the format once outside.
template <Precision P>
inline simd::vf round_batch(simd::vf x, bool saturate) {
  if constexpr (P == Precision::bf16) {
    return round_bf16(x);
  } else if constexpr (P == Precision::fp16) {
    return round_fp16(x);
  } else if constexpr (P == Precision::fp8e4m3) {
    return round_fp8e4m3(x, saturate);
  } else if constexpr (P == Precision::fp8e5m2) {
    return round_fp8e5m2(x, saturate);
  } else {
    (void)saturate;
    return x;  // fp32: identity, NaN payloads included
  }
}

// Calls f(std::integral_constant<Precision, P>{}) for p: the one switch over the formats, for the
// loops that pick their format once outside (round_inplace, round_batch below).
template <class F>
inline decltype(auto) with_precision(Precision p, F&& f) {
  switch (p) {
    case Precision::bf16:
      return f(std::integral_constant<Precision, Precision::bf16>{});
    case Precision::fp16:
      return f(std::integral_constant<Precision, Precision::fp16>{});
    case Precision::fp8e4m3:
      return f(std::integral_constant<Precision, Precision::fp8e4m3>{});
    case Precision::fp8e5m2:
      return f(std::integral_constant<Precision, Precision::fp8e5m2>{});
    case Precision::fp32:
      break;
  }
  return f(std::integral_constant<Precision, Precision::fp32>{});
}

inline simd::vf round_batch(Format f, simd::vf x) {
  return with_precision(f.precision,
                        [&](auto p) { return round_batch<decltype(p)::value>(x, f.saturate); });
}

}  // namespace attnscale
