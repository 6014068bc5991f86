#include "config/config.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#ifdef __EMSCRIPTEN__
#include <emscripten/val.h>
#endif

namespace attnscale {

std::string format_number(double v) {
#ifdef __EMSCRIPTEN__
  // JS's Number#toString is already the shortest text that reads back; printf's %g would pull
  // musl's long-double formatting into the web component's download (~7 KB gzip).
  return emscripten::val(v).call<std::string>("toString");
#else
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "Infinity" : "-Infinity";
  char buf[64];
  if (v == std::floor(v) && std::fabs(v) < 1e15) {  // integers as integers ("50", not "5e+01")
    std::snprintf(buf, sizeof buf, "%.0f", v);
    return buf;
  }
  for (int precision = 1; precision <= 17; ++precision) {
    std::snprintf(buf, sizeof buf, "%.*g", precision, v);
    if (std::strtod(buf, nullptr) == v) break;
  }
  return buf;
#endif
}

namespace {

constexpr double kMaxSeed = 4294967295.0;

const std::vector<FieldSpec> kSchema = {
    {"dk", FieldType::integer, 1, 4096, false, "", "64", "d_k",
     "Dimension of each query and key vector: the number of terms summed in q·k."},
    {"seqLen", FieldType::integer, 2, 2048, false, "", "256", "sequence length T",
     "Number of tokens: each query row attends over up to T keys."},
    {"precision", FieldType::enumeration, 0, 0, false, "fp32,bf16,fp16,fp8e4m3,fp8e5m2", "fp32",
     "precision", "Number format the forward pass is rounded to at each stage."},
    {"saturate", FieldType::boolean, 0, 0, false, "", "false", "fp8 saturate",
     "fp8 only: overflow clamps to the largest finite value instead of NaN (E4M3) or inf (E5M2)."},
    {"scale", FieldType::scale, 0, 1e6, true, "none,sqrt,linear", "sqrt", "scaling",
     "Multiplier on QKᵀ: none (×1), sqrt (×1/√d_k), linear (×1/d_k) or a custom number."},
    {"subtractMax", FieldType::boolean, 0, 0, false, "", "true", "subtract max",
     "Subtract each row's largest logit before exp(): same weights, no overflow."},
    {"softmax", FieldType::enumeration, 0, 0, false, "naive,online", "naive", "softmax",
     "naive: whole row at once; online: keys in blocks with a running max (FlashAttention)."},
    {"blockSize", FieldType::integer, 1, 2048, false, "", "64", "block size",
     "Keys per block of the online softmax (at most T)."},
    {"causal", FieldType::boolean, 0, 0, false, "", "false", "causal mask",
     "Each query sees only itself and earlier keys."},
    {"mean", FieldType::number, -1e6, 1e6, false, "", "0", "component mean",
     "Mean of every q and k component; the √d_k argument assumes 0."},
    {"std", FieldType::number, 0, 1e6, true, "", "1", "component std",
     "Standard deviation of every q and k component; the argument assumes 1."},
    {"correlation", FieldType::number, -1, 1, false, "", "0", "q–k correlation",
     "Correlation between q_i and k_i of the same token; the argument assumes 0."},
    {"seed", FieldType::integer, 0, kMaxSeed, false, "", "1", "seed",
     "Random seed of the sampled Q, K, V and upstream gradient."},
    {"qkNorm", FieldType::enumeration, 0, 0, false, "none,rms,layer", "none", "QK-norm",
     "Normalize each query and key over its d_k components before q·k: rms or layer norm."},
    {"lengthScale", FieldType::number, 0, 4, false, "", "0", "length scale s",
     "Multiply each row's logits by s·ln n, n = keys the row sees (Scalable-Softmax); 0: off."},
    {"softcap", FieldType::number, 0, 1000, false, "", "0", "soft-cap c",
     "Squash each logit z to c·tanh(z/c), inside (−c, c) (Gemma 2 uses 50); 0: off."},
};

std::string describe(const FieldValue& v) {
  switch (v.kind) {
    case FieldValue::Kind::number:
      return format_number(v.number);
    case FieldValue::Kind::boolean:
      return v.boolean ? "true" : "false";
    case FieldValue::Kind::string: {
      std::string shown = v.text.size() > 40 ? v.text.substr(0, 40) + "…" : v.text;
      return "\"" + shown + "\"";
    }
    case FieldValue::Kind::other:
      break;
  }
  return v.text.empty() ? "a value of another type" : v.text;
}

std::string join_values(const char* values, const char* sep) {
  std::string out;
  std::string_view all(values);
  bool first = true;
  while (!all.empty()) {
    auto comma = all.find(',');
    auto item = all.substr(0, comma);
    if (!first) out += sep;
    out += "'" + std::string(item) + "'";
    first = false;
    if (comma == std::string_view::npos) break;
    all.remove_prefix(comma + 1);
  }
  return out;
}

bool in_values(const char* values, std::string_view name) {
  std::string_view all(values);
  while (true) {
    auto comma = all.find(',');
    if (all.substr(0, comma) == name) return true;
    if (comma == std::string_view::npos) return false;
    all.remove_prefix(comma + 1);
  }
}

std::string range_text(const FieldSpec& f, double maxOverride) {
  double hi = maxOverride;
  switch (f.type) {
    case FieldType::integer:
      return "an integer in [" + format_number(f.min) + ", " + format_number(hi) + "]";
    case FieldType::number:
      if (f.minExclusive)
        return "a finite number in (" + format_number(f.min) + ", " + format_number(hi) + "]";
      return "a finite number in [" + format_number(f.min) + ", " + format_number(hi) + "]";
    case FieldType::boolean:
      return "a boolean (true or false)";
    case FieldType::enumeration:
      return "one of " + join_values(f.values, ", ");
    case FieldType::scale:
      return "one of " + join_values(f.values, ", ") + " or a finite number in (0, " +
             format_number(hi) + "]";
  }
  return "";
}

ConfigError error(const char* kind, const FieldSpec& f, double maxOverride, const FieldValue& got) {
  return {kind, std::string(f.name) + " must be " + range_text(f, maxOverride) + ", got " +
                    describe(got)};
}

const FieldSpec& spec(std::string_view name) {
  for (const auto& f : kSchema)
    if (name == f.name) return f;
  return kSchema.front();  // unreachable for names of the table
}

// Checks a numeric field against its spec; `hi` may tighten the spec's max (blockSize ≤ seqLen).
ConfigError check_number(const FieldSpec& f, const FieldValue& v, double hi) {
  if (v.kind != FieldValue::Kind::number) return error("TypeError", f, hi, v);
  double x = v.number;
  bool ok = std::isfinite(x) && (f.minExclusive ? x > f.min : x >= f.min) && x <= hi;
  if (ok && f.type == FieldType::integer) ok = std::floor(x) == x;
  if (!ok) return error("RangeError", f, hi, v);
  return {};
}

}  // namespace

const std::vector<FieldSpec>& config_schema() { return kSchema; }

float scale_factor(ScaleMode mode, double custom, int dk) {
  switch (mode) {
    case ScaleMode::none:
      return 1.0f;
    case ScaleMode::sqrt:
      return static_cast<float>(1.0 / std::sqrt(static_cast<double>(dk)));
    case ScaleMode::linear:
      return static_cast<float>(1.0 / static_cast<double>(dk));
    case ScaleMode::custom:
      return static_cast<float>(custom);
  }
  return 1.0f;
}

float scale_factor(const Config& c) { return scale_factor(c.scaleMode, c.customScale, c.dk); }

ConfigError parse_config(const FieldMap& fields, Config& out) {
  Config c;
  bool blockSizeGiven = false;
  FieldValue blockSizeValue;
  for (const auto& [name, value] : fields) {
    bool known = false;
    for (const auto& f : kSchema) known = known || name == f.name;
    if (!known) {
      std::string names;
      for (const auto& f : kSchema) names += (names.empty() ? "" : ", ") + std::string(f.name);
      return {"TypeError",
              "unknown config field '" + name.substr(0, 40) + "'; valid fields: " + names};
    }
    const FieldSpec& f = spec(name);
    if (f.type == FieldType::boolean) {
      if (value.kind != FieldValue::Kind::boolean) return error("TypeError", f, f.max, value);
    } else if (f.type == FieldType::enumeration) {
      if (value.kind != FieldValue::Kind::string) return error("TypeError", f, f.max, value);
      if (!in_values(f.values, value.text)) return error("RangeError", f, f.max, value);
    } else if (f.type == FieldType::scale) {
      if (value.kind == FieldValue::Kind::string) {
        if (!in_values(f.values, value.text)) return error("RangeError", f, f.max, value);
      } else if (auto e = check_number(f, value, f.max); !e.ok()) {
        return e;
      }
    } else if (name == "blockSize") {
      blockSizeGiven = true;  // its upper bound is seqLen, checked once all fields are read
      blockSizeValue = value;
      if (auto e = check_number(f, value, f.max); !e.ok()) return e;
    } else if (auto e = check_number(f, value, f.max); !e.ok()) {
      return e;
    }

    if (name == "dk")
      c.dk = static_cast<int>(value.number);
    else if (name == "seqLen")
      c.seqLen = static_cast<int>(value.number);
    else if (name == "precision")
      parse_precision(value.text, c.format.precision);
    else if (name == "saturate")
      c.format.saturate = value.boolean;
    else if (name == "scale") {
      if (value.kind == FieldValue::Kind::string) {
        c.scaleMode = value.text == "none"   ? ScaleMode::none
                      : value.text == "sqrt" ? ScaleMode::sqrt
                                             : ScaleMode::linear;
      } else {
        c.scaleMode = ScaleMode::custom;
        c.customScale = value.number;
      }
    } else if (name == "subtractMax")
      c.subtractMax = value.boolean;
    else if (name == "softmax")
      c.softmax = value.text == "online" ? SoftmaxMode::online : SoftmaxMode::naive;
    else if (name == "blockSize")
      c.blockSize = static_cast<int>(value.number);
    else if (name == "causal")
      c.causal = value.boolean;
    else if (name == "mean")
      c.mean = value.number;
    else if (name == "std")
      c.std = value.number;
    else if (name == "correlation")
      c.correlation = value.number;
    else if (name == "seed")
      c.seed = static_cast<std::uint32_t>(value.number);
    else if (name == "qkNorm")
      parse_qk_norm(value.text, c.qkNorm);
    else if (name == "lengthScale")
      c.lengthScale = value.number;
    else if (name == "softcap")
      c.softcap = value.number;
  }
  if (blockSizeGiven) {
    if (auto e = check_number(spec("blockSize"), blockSizeValue, c.seqLen); !e.ok()) return e;
  } else if (c.blockSize > c.seqLen) {
    c.blockSize = c.seqLen;  // the default 64 shrinks to short sequences
  }
  out = c;
  return {};
}

ConfigError validate_config(const Config& c) {
  FieldMap fields;
  auto num = [&](const char* name, double v) {
    FieldValue f;
    f.kind = FieldValue::Kind::number;
    f.number = v;
    fields.emplace_back(name, f);
  };
  num("dk", c.dk);
  num("seqLen", c.seqLen);
  if (c.scaleMode == ScaleMode::custom) num("scale", c.customScale);
  num("blockSize", c.blockSize);
  num("mean", c.mean);
  num("std", c.std);
  num("correlation", c.correlation);
  num("seed", c.seed);
  num("lengthScale", c.lengthScale);
  num("softcap", c.softcap);
  Config ignored;
  return parse_config(fields, ignored);
}

namespace {
std::string json_escape(std::string_view s) {
  std::string out;
  for (char ch : s) {
    if (ch == '"' || ch == '\\') out += '\\';
    out += ch;
  }
  return out;
}
const char* type_name(FieldType t) {
  switch (t) {
    case FieldType::integer:
      return "int";
    case FieldType::number:
      return "number";
    case FieldType::boolean:
      return "bool";
    case FieldType::enumeration:
      return "enum";
    case FieldType::scale:
      return "scale";
  }
  return "";
}
}  // namespace

std::string config_schema_json() {
  std::string out = "[";
  for (std::size_t i = 0; i < kSchema.size(); ++i) {
    const auto& f = kSchema[i];
    if (i) out += ",";
    out += "{\"name\":\"" + json_escape(f.name) + "\",\"type\":\"" + type_name(f.type) + "\"";
    if (f.type == FieldType::integer || f.type == FieldType::number || f.type == FieldType::scale) {
      out += ",\"min\":" + format_number(f.min) + ",\"max\":" + format_number(f.max);
      out += std::string(",\"minExclusive\":") + (f.minExclusive ? "true" : "false");
      if (std::string_view(f.name) == "blockSize") out += ",\"maxField\":\"seqLen\"";  // ≤ seqLen
    }
    if (f.type == FieldType::enumeration || f.type == FieldType::scale) {
      out += ",\"values\":[";
      std::string_view all(f.values);
      bool first = true;
      while (!all.empty()) {
        auto comma = all.find(',');
        out += (first ? "\"" : ",\"") + std::string(all.substr(0, comma)) + "\"";
        first = false;
        if (comma == std::string_view::npos) break;
        all.remove_prefix(comma + 1);
      }
      out += "]";
    }
    std::string def = f.defaultValue;
    bool quoted = f.type == FieldType::enumeration || f.type == FieldType::scale;
    out += ",\"default\":" + (quoted ? "\"" + def + "\"" : def);
    out += ",\"label\":\"" + json_escape(f.label) + "\",\"hint\":\"" + json_escape(f.hint) + "\"}";
  }
  return out + "]";
}

std::string config_to_json(const Config& c) {
  std::string scale = c.scaleMode == ScaleMode::none     ? "\"none\""
                      : c.scaleMode == ScaleMode::sqrt   ? "\"sqrt\""
                      : c.scaleMode == ScaleMode::linear ? "\"linear\""
                                                         : format_number(c.customScale);
  return "{\"dk\":" + std::to_string(c.dk) + ",\"seqLen\":" + std::to_string(c.seqLen) +
         ",\"precision\":\"" + precision_name(c.format.precision) +
         "\",\"saturate\":" + (c.format.saturate ? "true" : "false") + ",\"scale\":" + scale +
         ",\"subtractMax\":" + (c.subtractMax ? "true" : "false") + ",\"softmax\":\"" +
         (c.softmax == SoftmaxMode::online ? "online" : "naive") +
         "\",\"blockSize\":" + std::to_string(c.blockSize) +
         ",\"causal\":" + (c.causal ? "true" : "false") + ",\"mean\":" + format_number(c.mean) +
         ",\"std\":" + format_number(c.std) + ",\"correlation\":" + format_number(c.correlation) +
         ",\"seed\":" + std::to_string(c.seed) + ",\"qkNorm\":\"" + qk_norm_name(c.qkNorm) +
         "\",\"lengthScale\":" + format_number(c.lengthScale) +
         ",\"softcap\":" + format_number(c.softcap) + "}";
}

}  // namespace attnscale
