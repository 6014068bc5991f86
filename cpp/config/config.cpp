// Reading a config: parse_config, validate_config and config_to_json loop over the schema
// (config_schema.cpp), whose rows say how each field is checked, read and stored.
#include "config/config.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string_view>
#include <utility>

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

FieldValue number_value(double x) {
  FieldValue v;
  v.kind = FieldValue::Kind::number;
  v.number = x;
  return v;
}

FieldValue bool_value(bool b) {
  FieldValue v;
  v.kind = FieldValue::Kind::boolean;
  v.boolean = b;
  return v;
}

FieldValue text_value(std::string s) {
  FieldValue v;
  v.kind = FieldValue::Kind::string;
  v.text = std::move(s);
  return v;
}

FieldValue scale_value(ScaleMode mode, double custom) {
  const Scaling* s = scaling_of(mode);
  return s ? text_value(s->key) : number_value(custom);
}

std::string json_escape(std::string_view s) {
  std::string out;
  for (char ch : s) {
    if (ch == '"' || ch == '\\') out += '\\';
    out += ch;
  }
  return out;
}

std::string json_of(const FieldValue& v) {
  switch (v.kind) {
    case FieldValue::Kind::number:
      return format_number(v.number);
    case FieldValue::Kind::boolean:
      return v.boolean ? "true" : "false";
    case FieldValue::Kind::string:
    case FieldValue::Kind::other:
      break;
  }
  return "\"" + json_escape(v.text) + "\"";
}

JsonObject& JsonObject::append(std::string_view members) {
  if (members.empty()) return *this;
  if (json_.size() > 1) json_ += ',';
  json_ += members;
  return *this;
}

JsonObject& JsonObject::raw(const char* key, std::string_view json) {
  std::string member = "\"" + json_escape(key) + "\":";
  member += json;
  return append(member);
}

JsonObject& JsonObject::text(const char* key, std::string_view s) {
  return raw(key, "\"" + json_escape(s) + "\"");
}

JsonObject& JsonObject::number(const char* key, double x) { return raw(key, format_number(x)); }

JsonObject& JsonObject::boolean(const char* key, bool b) { return raw(key, b ? "true" : "false"); }

namespace {

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

std::string choice_list(const FieldSpec& f) {
  std::string out;
  for (const Choice& c : f.choices()) out += (out.empty() ? "'" : ", '") + c.value + "'";
  return out;
}

bool is_choice(const FieldSpec& f, std::string_view name) {
  for (const Choice& c : f.choices())
    if (name == c.value) return true;
  return false;
}

std::string range_text(const FieldSpec& f, double hi) {
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
      return "one of " + choice_list(f);
    case FieldType::scale:
      return "one of " + choice_list(f) + " or a finite number in (0, " + format_number(hi) + "]";
  }
  return "";
}

ConfigError error(const char* kind, const FieldSpec& f, double hi, const FieldValue& got) {
  return {kind, std::string(f.name) + " must be " + range_text(f, hi) + ", got " + describe(got)};
}

const FieldSpec* find_field(std::string_view name) {
  for (const FieldSpec& f : config_schema())
    if (name == f.name) return &f;
  return nullptr;
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

// The type and range checks of one field (a maxField bound is checked once every field is read).
ConfigError check_value(const FieldSpec& f, const FieldValue& v) {
  const bool text = v.kind == FieldValue::Kind::string;
  switch (f.type) {
    case FieldType::boolean:
      if (v.kind != FieldValue::Kind::boolean) return error("TypeError", f, f.max, v);
      return {};
    case FieldType::enumeration:
      if (!text) return error("TypeError", f, f.max, v);
      if (!is_choice(f, v.text)) return error("RangeError", f, f.max, v);
      return {};
    case FieldType::scale:
      if (text) return is_choice(f, v.text) ? ConfigError{} : error("RangeError", f, f.max, v);
      return check_number(f, v, f.max);
    case FieldType::integer:
    case FieldType::number:
      break;
  }
  return check_number(f, v, f.max);
}

ConfigError unknown_field(const std::string& name) {
  std::string names;
  for (const FieldSpec& f : config_schema())
    names += (names.empty() ? "" : ", ") + std::string(f.name);
  return {"TypeError", "unknown config field '" + name.substr(0, 40) + "'; valid fields: " + names};
}

}  // namespace

ConfigError parse_config(const FieldMap& fields, Config& out) {
  const FieldRange schema = config_schema();
  Config c;
  // The value given to each field with a maxField, checked against it once every field is read.
  std::vector<const FieldValue*> bounded(schema.size(), nullptr);
  for (const auto& [name, value] : fields) {
    const FieldSpec* f = find_field(name);
    if (!f) return unknown_field(name);
    if (auto e = check_value(*f, value); !e.ok()) return e;
    f->set(c, value);
    if (*f->maxField) bounded[static_cast<std::size_t>(f - schema.begin())] = &value;
  }
  for (std::size_t i = 0; i < schema.size(); ++i) {
    const FieldSpec& f = schema.begin()[i];
    if (!*f.maxField) continue;
    const double hi = find_field(f.maxField)->get(c).number;
    if (bounded[i]) {
      if (auto e = check_number(f, *bounded[i], hi); !e.ok()) return e;
    } else if (f.get(c).number > hi) {
      f.set(c, number_value(hi));  // a default above its bound shrinks to it (blockSize 64 → T)
    }
  }
  out = c;
  return {};
}

ConfigError validate_config(const Config& c) {
  FieldMap fields;
  for (const FieldSpec& f : config_schema()) fields.emplace_back(f.name, f.get(c));
  Config ignored;
  return parse_config(fields, ignored);
}

std::string config_to_json(const Config& c) {
  std::string out;
  for (const FieldSpec& f : config_schema())
    out += (out.empty() ? "{\"" : ",\"") + std::string(f.name) + "\":" + json_of(f.get(c));
  return out + "}";
}

}  // namespace attnscale
