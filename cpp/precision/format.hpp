// Number formats the engine emulates, and the casts float32 -> format -> float32.
#pragma once

#include <cfloat>
#include <cstddef>
#include <string>
#include <string_view>

namespace attnscale {

enum class Precision : int { fp32 = 0, bf16, fp16, fp8e4m3, fp8e5m2 };

struct Format {
  Precision precision = Precision::fp32;
  // fp8 only: overflow goes to +-max finite (OCP saturating mode) instead of NaN (e4m3) / inf
  // (e5m2).
  bool saturate = false;
};

// What the engine and the page know of each format, one row per Precision: engine.schema's
// `precision` field lists them as its choices. The rounding itself is cast_kernels.hpp's (and
// cast_reference.cpp's, written apart), the one place a new format needs code of its own.
struct FormatInfo {
  Precision precision;
  const char* key;    // the config's value (precision: 'fp16')
  const char* label;  // what a control shows
  int exponentBits, mantissaBits;
  float largestFinite;
  bool hasInfinity;  // E4M3 has none: its overflow is NaN
  bool canSaturate;  // `saturate` applies: overflow may clamp to ± largestFinite instead
};

inline constexpr FormatInfo kFormats[] = {
    {Precision::fp32, "fp32", "fp32", 8, 23, FLT_MAX, true, false},
    {Precision::bf16, "bf16", "bf16", 8, 7, 3.3895313892515355e38f, true, false},  // (2-2^-7)·2^127
    {Precision::fp16, "fp16", "fp16", 5, 10, 65504.0f, true, false},
    {Precision::fp8e4m3, "fp8e4m3", "fp8 E4M3", 4, 3, 448.0f, false, true},
    {Precision::fp8e5m2, "fp8e5m2", "fp8 E5M2", 5, 2, 57344.0f, true, true},
};

// The row of `p`; nullptr for a value outside the enum.
const FormatInfo* format_info(Precision p);

// Names as used in the JS config ("fp32", "bf16", "fp16", "fp8e4m3", "fp8e5m2").
const char* precision_name(Precision p);
bool parse_precision(std::string_view name, Precision& out);
// Every name, quoted or not, for messages: "'fp32', 'bf16', …" or "fp32, bf16, …".
std::string precision_names_text(bool quoted);

// Largest finite value of the format (FLT_MAX for fp32).
float largest_finite(Precision p);

// Round one value to the format, round-to-nearest-even (the plain scalar reference).
float round_reference(Format f, float x);

// Round n values in place (vectorized on simd::vf; bit-identical to round_reference).
void round_inplace(Format f, float* data, std::size_t n);

}  // namespace attnscale
