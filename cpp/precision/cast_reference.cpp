// round_reference: the plain scalar casts float32 -> format -> float32.
//
// Written independently of the vectorized kernels (cast_kernels.hpp): it splits the input into
// sign, exponent and integer significand, rounds the significand with an explicit guard/sticky
// test, and rebuilds the value. The semantics it implements are listed in cast_kernels.hpp.
#include <cmath>
#include <cstdint>
#include <cstring>

#include "precision/format.hpp"

namespace attnscale {

namespace {

std::uint32_t bits_of(float x) {
  std::uint32_t u;
  std::memcpy(&u, &x, sizeof u);
  return u;
}

float from_bits(std::uint32_t u) {
  float x;
  std::memcpy(&x, &u, sizeof x);
  return x;
}

// 2^e as a float, for -149 <= e <= 127 (subnormal powers included).
float pow2(int e) {
  return from_bits(e >= -126 ? static_cast<std::uint32_t>(e + 127) << 23 : 1u << (e + 149));
}

enum class Overflow { to_inf, to_nan, to_max };

struct Spec {
  int fraction_bits;  // stored mantissa bits
  int emin;           // exponent of the smallest normal, unbiased
  float max_finite;
  Overflow overflow;  // what a rounded magnitude above max_finite, or an infinity, becomes
};

constexpr std::uint32_t kSignBit = 0x80000000u;
constexpr std::uint32_t kQuietNaN = 0x7FC00000u;

// Round a finite magnitude |x| (bits a, sign cleared) to `fraction_bits` bits below the leading
// one, with exponents clamped below at emin (so the format's subnormals come out), ties to even.
float round_magnitude(std::uint32_t a, int fraction_bits, int emin) {
  int biased = static_cast<int>(a >> 23);
  std::uint32_t significand = a & 0x7FFFFFu;  // value = significand * 2^(biased - 150)
  if (biased == 0) {
    biased = 1;  // float32 subnormal: no implicit one, same scale as the smallest normal
  } else {
    significand |= 0x800000u;
  }
  const int exponent = biased - 127 < emin ? emin : biased - 127;
  const int lsb_exponent = exponent - fraction_bits;  // weight of the last kept bit
  int drop = lsb_exponent - (biased - 150);           // how many low significand bits go
  if (drop > 30) drop = 30;                           // significand < 2^24: rounds to 0 anyway
  std::uint32_t kept = significand >> drop;
  const std::uint32_t rest = significand & ((1u << drop) - 1u);
  const std::uint32_t half = drop > 0 ? 1u << (drop - 1) : 0u;
  if (drop > 0 && (rest > half || (rest == half && (kept & 1u)))) ++kept;
  // kept <= 2^(fraction_bits + 1) is exact in float, and so is the product, unless it overflows
  // (inputs near FLT_MAX rounding up to 2^128): then it is inf, above every format's max.
  return static_cast<float>(kept) * pow2(lsb_exponent);
}

float round_narrow(std::uint32_t u, const Spec& s, std::uint32_t nan_payload_mask) {
  const std::uint32_t sign = u & kSignBit;
  const std::uint32_t a = u & ~kSignBit;
  if (a > 0x7F800000u) return from_bits(sign | kQuietNaN | (a & nan_payload_mask));
  float r = a == 0x7F800000u ? INFINITY : round_magnitude(a, s.fraction_bits, s.emin);
  if (r > s.max_finite) {
    switch (s.overflow) {
      case Overflow::to_inf:
        r = INFINITY;
        break;
      case Overflow::to_nan:
        return from_bits(sign | kQuietNaN);
      case Overflow::to_max:
        r = s.max_finite;
        break;
    }
  }
  return from_bits(sign | bits_of(r));
}

float round_bf16_reference(float x) {
  // c10 returns the one NaN 0x7FC0 whatever the input NaN's sign and payload.
  if (std::isnan(x)) return from_bits(kQuietNaN);
  const std::uint32_t u = bits_of(x);
  const float r = round_magnitude(u & ~kSignBit, 7, -126);  // bf16 shares float32's exponent range
  return from_bits((u & kSignBit) | bits_of(r));            // above bf16 max: inf from the product
}

}  // namespace

float round_reference(Format f, float x) {
  const std::uint32_t u = bits_of(x);
  switch (f.precision) {
    case Precision::bf16:
      return round_bf16_reference(x);
    case Precision::fp16:
      // IEEE binary16; a NaN keeps sign and top payload bits (quiet bit set) as F16C does.
      return round_narrow(u, {10, -14, 65504.0f, Overflow::to_inf}, 0x007FE000u);
    case Precision::fp8e4m3:
      // OCP E4M3 has no inf: overflow and inf -> NaN, or +-448 in saturating mode.
      return round_narrow(u, {3, -6, 448.0f, f.saturate ? Overflow::to_max : Overflow::to_nan}, 0u);
    case Precision::fp8e5m2:
      return round_narrow(u, {2, -14, 57344.0f, f.saturate ? Overflow::to_max : Overflow::to_inf},
                          0u);
    case Precision::fp32:
      break;
  }
  return x;
}

}  // namespace attnscale
