// The formats' names and largest values, read from kFormats (format.hpp).
#include "precision/format.hpp"

namespace attnscale {

const FormatInfo* format_info(Precision p) {
  for (const FormatInfo& f : kFormats)
    if (f.precision == p) return &f;
  return nullptr;
}

const char* precision_name(Precision p) {
  const FormatInfo* f = format_info(p);
  return f ? f->key : "fp32";
}

bool parse_precision(std::string_view name, Precision& out) {
  for (const FormatInfo& f : kFormats)
    if (name == f.key) {
      out = f.precision;
      return true;
    }
  return false;
}

std::string precision_names_text(bool quoted) {
  const char* q = quoted ? "'" : "";
  std::string out;
  for (const FormatInfo& f : kFormats)
    out += (out.empty() ? "" : ", ") + (q + std::string(f.key)) + q;
  return out;
}

float largest_finite(Precision p) {
  const FormatInfo* f = format_info(p);
  return f ? f->largestFinite : FLT_MAX;
}

}  // namespace attnscale
