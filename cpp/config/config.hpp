// The engine's configuration and its one schema (name, type, range, default, label, hint, and the
// choices of an enum or scale field with what the page shows of each). The page, the URL parser
// and the web component all read this table through `engine.schema`, so a range is written once,
// here; parse_config, validate_config and config_to_json loop over it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "config/logit_schemes.hpp"
#include "config/scalings.hpp"
#include "precision/format.hpp"

namespace attnscale {

enum class SoftmaxMode { naive, online };

struct SoftmaxInfo {
  SoftmaxMode mode;
  const char* key;    // the config's value (softmax: 'online')
  const char* label;  // what a control shows
};

inline constexpr SoftmaxInfo kSoftmaxModes[] = {
    {SoftmaxMode::naive, "naive", "two-pass (naive)"},
    {SoftmaxMode::online, "online", "online (streaming)"},
};

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

// The multiplier applied to QKᵀ: the scaling's (config/scalings.hpp) or the custom value, as
// float32.
inline float scale_factor(const Config& c) {
  return scale_factor(c.scaleMode, c.customScale, c.dk);
}

enum class FieldType { integer, number, boolean, enumeration, scale };

// A config value as it arrives from JS, before any interpretation.
struct FieldValue {
  enum class Kind { number, boolean, string, other };
  Kind kind = Kind::other;
  double number = 0.0;
  bool boolean = false;
  std::string text;  // the string, or a printable description for `other`
};
using FieldMap = std::vector<std::pair<std::string, FieldValue>>;

FieldValue number_value(double x);
FieldValue bool_value(bool b);
FieldValue text_value(std::string s);

// One allowed name of an enum or scale field, with what the page shows of it.
struct Choice {
  std::string value;
  std::string label;
  std::string more;  // further members of its JSON object ("\"tex\":\"1/d_k\""), or ""
};
using Choices = std::vector<Choice>;

struct FieldSpec {
  const char* name;
  FieldType type;
  double min;            // integer/number/scale: inclusive lower bound (unless minExclusive)
  double max;            // integer/number/scale: inclusive upper bound
  bool minExclusive;     // std > 0, custom scale > 0
  const char* maxField;  // "" or the field whose value also bounds this one (blockSize ≤ seqLen)
  const Choices& (*choices)();  // enumeration/scale: the names allowed, from their own table
  const char* defaultValue;
  const char* label;
  const char* hint;  // nullptr for the scale field: its hint lists every scaling (field_hint)
  FieldValue (*get)(const Config&);               // the field's value in a Config
  void (*set)(Config&, const FieldValue& value);  // stores a value that passed the checks
};

// The fields in the schema's order: for (const FieldSpec& f : config_schema()).
struct FieldRange {
  const FieldSpec* first;
  const FieldSpec* last;
  const FieldSpec* begin() const { return first; }
  const FieldSpec* end() const { return last; }
  std::size_t size() const { return static_cast<std::size_t>(last - first); }
};
FieldRange config_schema();
// The schema as a JSON array (what engine.js exposes as engine.schema).
std::string config_schema_json();
// A field's hint, as engine.schema gives it.
std::string field_hint(const FieldSpec& f);

// Builds one JSON object member by member: object.text("name", "dk").number("min", 1).str().
class JsonObject {
 public:
  JsonObject& raw(const char* key, std::string_view json);  // a value already written as JSON
  JsonObject& text(const char* key, std::string_view s);    // a string, quoted and escaped
  JsonObject& number(const char* key, double x);
  JsonObject& boolean(const char* key, bool b);
  JsonObject& append(std::string_view members);  // members written as JSON ("\"a\":1,\"b\":2")
  std::string str() const { return json_ + "}"; }
  std::string members() const { return json_.substr(1); }  // without the braces

 private:
  std::string json_ = "{";
};

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

// A config value as JSON: a number, true/false or a quoted string.
std::string json_of(const FieldValue& v);
std::string json_escape(std::string_view s);

// A scale as the config holds it: the scaling's name, or the custom number.
FieldValue scale_value(ScaleMode mode, double custom);

// Shortest text that reads back as the same double ("0.5", "1e+06", "NaN", "Infinity"): for
// error messages and JSON, without pulling iostreams (and their locale tables) into the wasm.
std::string format_number(double v);

}  // namespace attnscale
