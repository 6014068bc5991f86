#include <cfloat>

#include "precision/format.hpp"

namespace attnscale {

namespace {
struct NameEntry {
  Precision precision;
  const char* name;
};
constexpr NameEntry kNames[] = {{Precision::fp32, "fp32"},
                                {Precision::bf16, "bf16"},
                                {Precision::fp16, "fp16"},
                                {Precision::fp8e4m3, "fp8e4m3"},
                                {Precision::fp8e5m2, "fp8e5m2"}};
}  // namespace

const char* precision_name(Precision p) {
  for (const auto& e : kNames)
    if (e.precision == p) return e.name;
  return "fp32";
}

bool parse_precision(std::string_view name, Precision& out) {
  for (const auto& e : kNames)
    if (name == e.name) {
      out = e.precision;
      return true;
    }
  return false;
}

float largest_finite(Precision p) {
  switch (p) {
    case Precision::bf16:
      return 3.3895313892515355e38f;  // (2 - 2^-7) * 2^127
    case Precision::fp16:
      return 65504.0f;
    case Precision::fp8e4m3:
      return 448.0f;
    case Precision::fp8e5m2:
      return 57344.0f;
    case Precision::fp32:
      break;
  }
  return FLT_MAX;
}

}  // namespace attnscale
