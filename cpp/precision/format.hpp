// Number formats the engine emulates, and the casts float32 -> format -> float32.
#pragma once

#include <cstddef>
#include <string_view>

namespace attnscale {

enum class Precision : int { fp32 = 0, bf16, fp16, fp8e4m3, fp8e5m2 };

struct Format {
  Precision precision = Precision::fp32;
  // fp8 only: overflow goes to +-max finite (OCP saturating mode) instead of NaN (e4m3) / inf
  // (e5m2).
  bool saturate = false;
};

// Names as used in the JS config ("fp32", "bf16", "fp16", "fp8e4m3", "fp8e5m2").
const char* precision_name(Precision p);
bool parse_precision(std::string_view name, Precision& out);

// Largest finite value of the format (FLT_MAX for fp32).
float largest_finite(Precision p);

// Round one value to the format, round-to-nearest-even (the plain scalar reference).
float round_reference(Format f, float x);

// Round n values in place (vectorized on simd::vf; bit-identical to round_reference).
void round_inplace(Format f, float* data, std::size_t n);

}  // namespace attnscale
