// The engine's configuration and its one schema (name, type, range, default, label, hint).
// The page, the URL parser and the web component all read this table through `engine.schema`,
// so a range is written once, here.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "config/logit_schemes.hpp"
#include "precision/format.hpp"

namespace attnscale {

enum class ScaleMode { none, sqrt, linear, custom };
enum class SoftmaxMode { naive, online };

struct Config {
  int dk = 64;
  int seqLen = 256;
  Format format;  // precision + saturate
  ScaleMode scaleMode = ScaleMode::sqrt;
  double customScale = 1.0;
  bool subtractMax = true;
  SoftmaxMode softmax = SoftmaxMode::naive;
  int blockSize = 64;
  bool causal = false;
  double mean = 0.0;
  double std = 1.0;
  double correlation = 0.0;
  std::uint32_t seed = 1;
  // Beyond 1/√d_k (config/logit_schemes.hpp): z = softcap(scale · q̂·k̂ · lengthScale·ln n_i).
  QkNorm qkNorm = QkNorm::none;
  double lengthScale = 0.0;  // 0: off
  double softcap = 0.0;      // 0: off
};

// The multiplier applied to QKᵀ: 1, 1/√d_k, 1/d_k or the custom value, as float32.
float scale_factor(const Config& c);
float scale_factor(ScaleMode mode, double custom, int dk);

enum class FieldType { integer, number, boolean, enumeration, scale };

struct FieldSpec {
  const char* name;
  FieldType type;
  double min;          // integer/number: inclusive lower bound (unless minExclusive)
  double max;          // integer/number: inclusive upper bound
  bool minExclusive;   // std > 0, custom scale > 0
  const char* values;  // enumeration/scale: comma-separated names
  const char* defaultValue;
  const char* label;
  const char* hint;
};

const std::vector<FieldSpec>& config_schema();
// The schema as a JSON array (what engine.js exposes as engine.schema).
std::string config_schema_json();

// A config value as it arrives from JS, before any interpretation.
struct FieldValue {
  enum class Kind { number, boolean, string, other };
  Kind kind = Kind::other;
  double number = 0.0;
  bool boolean = false;
  std::string text;  // the string, or a printable description for `other`
};
using FieldMap = std::vector<std::pair<std::string, FieldValue>>;

struct ConfigError {
  std::string kind;  // "RangeError" or "TypeError", the JS error class to throw
  std::string message;
  bool ok() const { return message.empty(); }
};

// Fills `out` from defaults plus the given fields. Unknown fields, wrong types and out-of-range
// values are errors naming the field and its valid range.
ConfigError parse_config(const FieldMap& fields, Config& out);

// Range checks of an already-typed Config (used by the C++ API and the fuzz targets).
ConfigError validate_config(const Config& c);

std::string config_to_json(const Config& c);

// Shortest text that reads back as the same double ("0.5", "1e+06", "NaN", "Infinity"): for
// error messages and JSON, without pulling iostreams (and their locale tables) into the wasm.
std::string format_number(double v);

}  // namespace attnscale
