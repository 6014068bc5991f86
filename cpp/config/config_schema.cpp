// The one table of config fields (config.hpp), with how each is read from and stored in a Config,
// and the choices of the enum and scale fields, taken from their own tables (kFormats, kScalings,
// kSoftmaxModes, kQkNorms).
#include <type_traits>

#include "config/config.hpp"

namespace attnscale {

namespace {

constexpr double kMaxSeed = 4294967295.0;

template <auto Member>
FieldValue get_number(const Config& c) {
  return number_value(static_cast<double>(c.*Member));
}
template <auto Member>
void set_number(Config& c, const FieldValue& v) {
  c.*Member = static_cast<std::remove_reference_t<decltype(c.*Member)>>(v.number);
}
template <auto Member>
FieldValue get_bool(const Config& c) {
  return bool_value(c.*Member);
}
template <auto Member>
void set_bool(Config& c, const FieldValue& v) {
  c.*Member = v.boolean;
}

FieldValue get_precision(const Config& c) { return text_value(precision_name(c.format.precision)); }
void set_precision(Config& c, const FieldValue& v) { parse_precision(v.text, c.format.precision); }
FieldValue get_saturate(const Config& c) { return bool_value(c.format.saturate); }
void set_saturate(Config& c, const FieldValue& v) { c.format.saturate = v.boolean; }
FieldValue get_scale(const Config& c) { return scale_value(c.scaleMode, c.customScale); }
void set_scale(Config& c, const FieldValue& v) {
  const Scaling* s = v.kind == FieldValue::Kind::string ? find_scaling(v.text) : nullptr;
  c.scaleMode = s ? s->mode : ScaleMode::custom;
  if (!s) c.customScale = v.number;
}
FieldValue get_softmax(const Config& c) {
  for (const SoftmaxInfo& s : kSoftmaxModes)
    if (s.mode == c.softmax) return text_value(s.key);
  return text_value(kSoftmaxModes[0].key);
}
void set_softmax(Config& c, const FieldValue& v) {
  for (const SoftmaxInfo& s : kSoftmaxModes)
    if (v.text == s.key) c.softmax = s.mode;
}
FieldValue get_qk_norm(const Config& c) { return text_value(qk_norm_name(c.qkNorm)); }
void set_qk_norm(Config& c, const FieldValue& v) { parse_qk_norm(v.text, c.qkNorm); }

// Each list is built on first use, not at start-up: format_number calls into JS in the wasm build.
const Choices& format_choices() {
  static const Choices choices = [] {
    Choices out;
    for (const FormatInfo& f : kFormats) {
      JsonObject more;
      more.number("exponentBits", f.exponentBits)
          .number("mantissaBits", f.mantissaBits)
          .number("largestFinite", f.largestFinite)
          .boolean("hasInfinity", f.hasInfinity)
          .boolean("canSaturate", f.canSaturate);
      out.push_back({f.key, f.label, more.members()});
    }
    return out;
  }();
  return choices;
}

const Choices& scaling_choices() {
  static const Choices choices = [] {
    Choices out;
    for (const Scaling& s : kScalings) {
      JsonObject more;
      more.text("formula", s.formula).text("tex", s.tex).number("exponent", s.exponent);
      out.push_back({s.key, s.label, more.members()});
    }
    return out;
  }();
  return choices;
}

const Choices& softmax_choices() {
  static const Choices choices = [] {
    Choices out;
    for (const SoftmaxInfo& s : kSoftmaxModes) out.push_back({s.key, s.label, ""});
    return out;
  }();
  return choices;
}

const Choices& qk_norm_choices() {
  static const Choices choices = [] {
    Choices out;
    for (const QkNormInfo& q : kQkNorms) out.push_back({q.key, q.label, ""});
    return out;
  }();
  return choices;
}

constexpr FieldSpec kSchema[] = {
    {"dk", FieldType::integer, 1, 4096, false, "", nullptr, "64", "d_k",
     "Dimension of each query and key vector: the number of terms summed in q·k.",
     get_number<&Config::dk>, set_number<&Config::dk>},
    {"seqLen", FieldType::integer, 2, 2048, false, "", nullptr, "256", "sequence length T",
     "Number of tokens: each query row attends over up to T keys.", get_number<&Config::seqLen>,
     set_number<&Config::seqLen>},
    {"precision", FieldType::enumeration, 0, 0, false, "", format_choices, "fp32", "precision",
     "Number format the forward pass is rounded to at each stage.", get_precision, set_precision},
    {"saturate", FieldType::boolean, 0, 0, false, "", nullptr, "false", "fp8 saturate",
     "fp8 only: overflow clamps to the largest finite value instead of NaN (E4M3) or inf (E5M2).",
     get_saturate, set_saturate},
    {"scale", FieldType::scale, 0, 1e6, true, "", scaling_choices, "sqrt", "scaling", nullptr,
     get_scale, set_scale},
    {"subtractMax", FieldType::boolean, 0, 0, false, "", nullptr, "true", "subtract max",
     "Subtract each row's largest logit before exp(): same weights, no overflow.",
     get_bool<&Config::subtractMax>, set_bool<&Config::subtractMax>},
    {"softmax", FieldType::enumeration, 0, 0, false, "", softmax_choices, "naive", "softmax",
     "naive: whole row at once; online: keys in blocks with a running max (FlashAttention).",
     get_softmax, set_softmax},
    {"blockSize", FieldType::integer, 1, 2048, false, "seqLen", nullptr, "64", "block size",
     "Keys per block of the online softmax (at most T).", get_number<&Config::blockSize>,
     set_number<&Config::blockSize>},
    {"causal", FieldType::boolean, 0, 0, false, "", nullptr, "false", "causal mask",
     "Each query sees only itself and earlier keys.", get_bool<&Config::causal>,
     set_bool<&Config::causal>},
    {"mean", FieldType::number, -1e6, 1e6, false, "", nullptr, "0", "component mean",
     "Mean of every q and k component; the √d_k argument assumes 0.", get_number<&Config::mean>,
     set_number<&Config::mean>},
    {"std", FieldType::number, 0, 1e6, true, "", nullptr, "1", "component std",
     "Standard deviation of every q and k component; the argument assumes 1.",
     get_number<&Config::std>, set_number<&Config::std>},
    {"correlation", FieldType::number, -1, 1, false, "", nullptr, "0", "q–k correlation",
     "Correlation between q_i and k_i of the same token; the argument assumes 0.",
     get_number<&Config::correlation>, set_number<&Config::correlation>},
    {"seed", FieldType::integer, 0, kMaxSeed, false, "", nullptr, "1", "seed",
     "Random seed of the sampled Q, K, V and upstream gradient.", get_number<&Config::seed>,
     set_number<&Config::seed>},
    {"qkNorm", FieldType::enumeration, 0, 0, false, "", qk_norm_choices, "none", "QK-norm",
     "Normalize each query and key over its d_k components before q·k: rms or layer norm.",
     get_qk_norm, set_qk_norm},
    {"lengthScale", FieldType::number, 0, 4, false, "", nullptr, "0", "length scale s",
     "Multiply each row's logits by s·ln n, n = keys the row sees (Scalable-Softmax); 0: off.",
     get_number<&Config::lengthScale>, set_number<&Config::lengthScale>},
    {"softcap", FieldType::number, 0, 1000, false, "", nullptr, "0", "soft-cap c",
     "Squash each logit z to c·tanh(z/c), inside (−c, c) (Gemma 2 uses 50); 0: off.",
     get_number<&Config::softcap>, set_number<&Config::softcap>},
};

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

std::string field_json(const FieldSpec& f) {
  JsonObject o;
  o.text("name", f.name).text("type", type_name(f.type));
  if (f.type == FieldType::integer || f.type == FieldType::number || f.type == FieldType::scale) {
    o.number("min", f.min).number("max", f.max).boolean("minExclusive", f.minExclusive);
    if (*f.maxField) o.text("maxField", f.maxField);
  }
  if (f.choices) {
    std::string values, choices;
    for (const Choice& c : f.choices()) {
      const std::string value = "\"" + json_escape(c.value) + "\"";
      values += (values.empty() ? "" : ",") + value;
      JsonObject choice;
      choice.raw("value", value).text("label", c.label).append(c.more);
      choices += (choices.empty() ? "" : ",") + choice.str();
    }
    o.raw("values", "[" + values + "]").raw("choices", "[" + choices + "]");
  }
  const bool quoted = f.type == FieldType::enumeration || f.type == FieldType::scale;
  if (quoted)
    o.text("default", f.defaultValue);
  else
    o.raw("default", f.defaultValue);
  return o.text("label", f.label).text("hint", field_hint(f)).str();
}

}  // namespace

FieldRange config_schema() { return {std::begin(kSchema), std::end(kSchema)}; }

std::string field_hint(const FieldSpec& f) {
  if (f.hint) return f.hint;
  // "Multiplier on QKᵀ: none (×1), sqrt (×1/√d_k), linear (×1/d_k) or a custom number."
  std::string out = "Multiplier on QKᵀ:";
  for (const Scaling& s : kScalings) out += std::string(" ") + s.key + " (×" + s.formula + "),";
  out.pop_back();
  return out + " or a custom number.";
}

std::string config_schema_json() {
  std::string out;
  for (const FieldSpec& f : config_schema()) out += (out.empty() ? "[" : ",") + field_json(f);
  return out + "]";
}

}  // namespace attnscale
