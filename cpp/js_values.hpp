// The conversions of JS values into the engine's types, for bindings.cpp: configs, sweep lists
// and training copies in, and every user error as a { error: { kind, message } } value instead of
// a C++ exception. The results going out: js_results.hpp.
#pragma once

#include <emscripten/val.h>

#include <algorithm>
#include <string>
#include <vector>

#include "config/config.hpp"
#include "engine/analyze.hpp"
#include "engine/estimate/estimate_job.hpp"
#include "engine/run_result.hpp"
#include "train/train.hpp"
#include "train/train_config_parse.hpp"

namespace attnscale {

using emscripten::val;

inline val error_value(const std::string& kind, const std::string& message) {
  val e = val::object();
  e.set("kind", kind);
  e.set("message", message);
  val out = val::object();
  out.set("error", e);
  return out;
}

inline val error_value(const ConfigError& e) { return error_value(e.kind, e.message); }

template <class T>
inline val copy_to_js(const char* arrayType, const T* data, std::size_t n) {
  return val::global(arrayType).new_(emscripten::typed_memory_view(n, data));
}

inline FieldValue field_value(const val& v) {
  const std::string t = v.typeOf().as<std::string>();
  FieldValue f;
  if (t == "number") {
    f.kind = FieldValue::Kind::number;
    f.number = v.as<double>();
  } else if (t == "boolean") {
    f.kind = FieldValue::Kind::boolean;
    f.boolean = v.as<bool>();
  } else if (t == "string") {
    f.kind = FieldValue::Kind::string;
    f.text = v.as<std::string>();
  } else {
    f.kind = FieldValue::Kind::other;
    f.text = v.isNull() ? "null" : "a value of type " + t;
  }
  return f;
}

inline bool read_fields(const val& cfg, FieldMap& fields, ConfigError& err) {
  const std::string type = cfg.typeOf().as<std::string>();
  if (cfg.isUndefined() || cfg.isNull()) return true;
  if (type != "object" || val::global("Array").call<bool>("isArray", cfg)) {
    err = {"TypeError", "config must be a plain object, got " + type};
    return false;
  }
  const val keys = val::global("Object").call<val>("keys", cfg);
  const int n = keys["length"].as<int>();
  for (int i = 0; i < n; ++i) {
    const std::string key = keys[i].as<std::string>();
    fields.emplace_back(key, field_value(cfg[key]));
  }
  return true;
}

// cfg with seqLen set to T (replacing any given) and a given blockSize above T lowered to T.
inline bool read_seq_len_config(const val& cfg, int T, Config& c, ConfigError& err) {
  FieldMap fields;
  if (!read_fields(cfg, fields, err)) return false;
  FieldMap sized;
  for (auto& f : fields) {
    if (f.first == "seqLen") continue;
    if (f.first == "blockSize" && f.second.kind == FieldValue::Kind::number && f.second.number > T)
      f.second.number = T;
    sized.push_back(f);
  }
  FieldValue t;
  t.kind = FieldValue::Kind::number;
  t.number = T;
  sized.emplace_back("seqLen", t);
  err = parse_config(sized, c);
  return err.ok();
}

inline bool read_config(const val& cfg, Config& c, ConfigError& err) {
  FieldMap fields;
  if (!read_fields(cfg, fields, err)) return false;
  err = parse_config(fields, c);
  return err.ok();
}

// A non-empty array (≤ 64 entries) of integers in [lo, hi], named `name` in errors.
inline bool read_int_list(const val& list, const char* name, int lo, int hi, std::vector<int>& out,
                          ConfigError& err) {
  const std::string expected = std::string(name) +
                               " must be a non-empty array (at most 64 entries) of integers in [" +
                               std::to_string(lo) + ", " + std::to_string(hi) + "]";
  if (!val::global("Array").call<bool>("isArray", list) &&
      !val::global("ArrayBuffer").call<bool>("isView", list)) {
    err = {"TypeError", expected + ", got " + list.typeOf().as<std::string>()};
    return false;
  }
  const int n = list["length"].as<int>();
  if (n < 1 || n > 64) {
    err = {"RangeError", expected + ", got length " + std::to_string(n)};
    return false;
  }
  for (int i = 0; i < n; ++i) {
    const val v = list[i];
    if (v.typeOf().as<std::string>() != "number") {
      err = {"TypeError", expected + ", got a " + v.typeOf().as<std::string>() + " at index " +
                              std::to_string(i)};
      return false;
    }
    const double x = v.as<double>();
    if (!(x >= lo && x <= hi) || static_cast<double>(static_cast<int>(x)) != x) {
      err = {"RangeError", expected + ", got " + val(x).call<std::string>("toString") +
                               " at index " + std::to_string(i)};
      return false;
    }
    out.push_back(static_cast<int>(x));
  }
  return true;
}

// One config per entry of `scales` (the config's fields with that scale), or the config itself
// when scales is null or undefined.
inline bool read_scales(const FieldMap& fields, const val& scales, std::vector<Config>& configs,
                        ConfigError& err) {
  if (scales.isNull() || scales.isUndefined()) {
    configs.emplace_back();
    err = parse_config(fields, configs.back());
    return err.ok();
  }
  const std::string expected =
      "scales must be a non-empty array (at most 8 entries, no repeats) of " + scaling_keys_text() +
      " or finite numbers > 0";
  if (!val::global("Array").call<bool>("isArray", scales)) {
    err = {"TypeError", expected + ", got " + scales.typeOf().as<std::string>()};
    return false;
  }
  const int n = scales["length"].as<int>();
  if (n < 1 || n > 8) {
    err = {"RangeError", expected + ", got length " + std::to_string(n)};
    return false;
  }
  FieldMap withScale;
  for (const auto& f : fields)
    if (f.first != "scale") withScale.push_back(f);
  withScale.emplace_back("scale", FieldValue{});
  for (int i = 0; i < n; ++i) {
    withScale.back().second = field_value(scales[i]);
    configs.emplace_back();
    err = parse_config(withScale, configs.back());
    if (!err.ok()) {
      err.message = "scales[" + std::to_string(i) + "]: " + err.message;
      return false;
    }
    const Config& c = configs.back();
    for (int j = 0; j < i; ++j)
      if (configs[j].scaleMode == c.scaleMode &&
          (c.scaleMode != ScaleMode::custom || configs[j].customScale == c.customScale)) {
        err = {"RangeError", expected + ", got a repeat at index " + std::to_string(i)};
        return false;
      }
  }
  return true;
}

// Options that are config fields among `allowed` (a comma-separated list), seqLen and dk
// required; `call` names the function in errors.
inline bool read_option_fields(const FieldMap& fields, const std::string& allowed, const char* call,
                               Config& c, ConfigError& err) {
  for (const auto& f : fields) {
    if (("," + allowed + ",").find("," + f.first + ",") != std::string::npos) continue;
    std::string list = allowed;
    for (std::size_t i = 0; (i = list.find(',', i)) != std::string::npos; i += 2)
      list.replace(i, 1, ", ");
    err = {"TypeError", std::string("unknown ") + call + " option '" + f.first.substr(0, 40) +
                            "'; valid options: " + list};
    return false;
  }
  for (const char* required : {"seqLen", "dk"}) {
    bool given = false;
    for (const auto& f : fields) given = given || f.first == required;
    if (!given) {
      err = {"TypeError", std::string(call) + " options need " + required};
      return false;
    }
  }
  err = parse_config(fields, c);
  return err.ok();
}

// The options of attention(): the config fields it takes, seqLen and dk required.
inline bool read_attention_config(const val& opts, Config& c, ConfigError& err) {
  FieldMap fields;
  if (!read_fields(opts, fields, err)) return false;
  return read_option_fields(
      fields, "seqLen,dk,scale,subtractMax,causal,precision,saturate,qkNorm,lengthScale,softcap",
      "attention", c, err);
}

// The options of analyze(): the logit fields, plus heads (default 1) and kvHeads (default heads,
// a divisor of heads) and detail (per-row arrays and weights).
inline std::string describe_non_number(const FieldValue& v) {
  switch (v.kind) {
    case FieldValue::Kind::boolean:
      return "a boolean";
    case FieldValue::Kind::string:
      return "a string";
    default:
      return v.text;
  }
}

struct AnalyzeLayout {
  int heads = 1, kvHeads = 1;
  bool detail = false;
};

inline bool read_analyze_options(const val& opts, Config& c, AnalyzeLayout& layout,
                                 ConfigError& err) {
  FieldMap fields, logit;
  if (!read_fields(opts, fields, err)) return false;
  bool kvGiven = false;
  for (const auto& [name, value] : fields) {
    if (name == "heads" || name == "kvHeads") {
      const std::string expected = name + " must be an integer in [1, 256]";
      if (value.kind != FieldValue::Kind::number) {
        err = {"TypeError", expected + ", got " + describe_non_number(value)};
        return false;
      }
      const double x = value.number;
      if (!(x >= 1 && x <= 256) || static_cast<double>(static_cast<int>(x)) != x) {
        err = {"RangeError", expected + ", got " + format_number(x)};
        return false;
      }
      (name == "heads" ? layout.heads : layout.kvHeads) = static_cast<int>(x);
      kvGiven = kvGiven || name == "kvHeads";
    } else if (name == "detail") {
      if (value.kind != FieldValue::Kind::boolean) {
        err = {"TypeError", "detail must be a boolean (true or false)"};
        return false;
      }
      layout.detail = value.boolean;
    } else {
      logit.emplace_back(name, value);
    }
  }
  if (!kvGiven) layout.kvHeads = layout.heads;
  if (layout.heads % layout.kvHeads != 0) {
    err = {"RangeError", "heads (" + std::to_string(layout.heads) +
                             ") must be a multiple of kvHeads (" + std::to_string(layout.kvHeads) +
                             "): each key head serves heads / kvHeads query heads"};
    return false;
  }
  return read_option_fields(logit,
                            "seqLen,dk,heads,kvHeads,detail,scale,subtractMax,softmax,blockSize,"
                            "causal,precision,saturate,qkNorm,lengthScale,softcap",
                            "analyze", c, err);
}

// The rows of a sweep estimate: an integer in [2, seqLen], min(128, seqLen) when undefined.
inline bool read_estimate_rows(const val& rows, int seqLen, int& out, ConfigError& err) {
  if (rows.isUndefined()) {
    out = std::min(128, seqLen);
    return true;
  }
  const std::string expected =
      "rows must be an integer in [2, seqLen = " + std::to_string(seqLen) + "]";
  if (rows.typeOf().as<std::string>() != "number") {
    err = {"TypeError",
           expected + ", got " + (rows.isNull() ? "null" : "a " + rows.typeOf().as<std::string>())};
    return false;
  }
  const double x = rows.as<double>();
  if (!(x >= 2 && x <= seqLen) || static_cast<double>(static_cast<int>(x)) != x) {
    err = {"RangeError", expected + ", got " + format_number(x)};
    return false;
  }
  out = static_cast<int>(x);
  return true;
}

// A training config without its `copies` (an array, read by read_copies), for read_fields.
inline val without_copies(const val& cfg) {
  if (cfg.typeOf().as<std::string>() != "object" || cfg.isNull() || cfg.isArray() ||
      !cfg.hasOwnProperty("copies"))
    return cfg;
  val rest = val::global("Object").call<val>("assign", val::object(), cfg);
  rest.delete_("copies");
  return rest;
}

// The chosen copies of a training config, each named by its index in errors.
inline bool read_copies(const val& cfg, std::vector<CopySpec>& out, ConfigError& err) {
  if (cfg.typeOf().as<std::string>() != "object" || cfg.isNull() || !cfg.hasOwnProperty("copies"))
    return true;
  const val list = cfg["copies"];
  if (!list.isArray()) {
    err = {"TypeError",
           "copies must be an array of { name, scale, qkNorm, softcap, "
           "lengthScale } objects"};
    return false;
  }
  const int n = list["length"].as<int>();
  if (n < 1 || n > kTrainCopiesMax) {
    err = {"RangeError", "copies must list 1 to " + std::to_string(kTrainCopiesMax) +
                             " copies, got " + std::to_string(n)};
    return false;
  }
  for (int i = 0; i < n; ++i) {
    FieldMap fields;
    if (!read_fields(list[i], fields, err)) {
      err.message = "copies[" + std::to_string(i) + "]: " + err.message;
      return false;
    }
    CopySpec spec;
    err = parse_copy_spec(fields, i, spec);
    if (!err.ok()) return false;
    out.push_back(spec);
  }
  return true;
}

// The chosen copies as a JSON member (",\"copies\":[…]"), or "" when none were chosen.
inline std::string copies_json(const std::vector<CopySpec>& copies) {
  if (copies.empty()) return "";
  std::string out = ",\"copies\":[";
  for (std::size_t i = 0; i < copies.size(); ++i)
    out += (i ? "," : "") + copy_spec_json(copies[i], false);
  return out + "]";
}

// The schedule as JSON members (",\"schedule\":…,\"scheduleSteps\":…"), or "" for the constant
// rate, whose configs read as they did before schedules existed.
inline std::string schedule_json(const TrainConfig& config) {
  if (config.schedule == LrSchedule::constant) return "";
  return ",\"schedule\":\"" + std::string(schedule_name(config.schedule)) +
         "\",\"scheduleSteps\":" + std::to_string(config.scheduleSteps);
}

// The training config as JSON, as the trainer read it (every field, the copies if chosen).
inline std::string train_config_json(const TrainConfig& config) {
  std::string scale =
      config.hasCustom ? ",\"scale\":" + val(config.customScale).call<std::string>("toString") : "";
  return "{\"dk\":" + std::to_string(config.dk) + ",\"seqLen\":" + std::to_string(config.seqLen) +
         ",\"batchSize\":" + std::to_string(config.batchSize) + ",\"optimizer\":\"" +
         optimizer_name(config.optimizer) +
         "\",\"learningRate\":" + val(config.learningRate).call<std::string>("toString") +
         schedule_json(config) +
         ",\"initScale\":" + val(config.initScale).call<std::string>("toString") +
         ",\"precision\":\"" + precision_name(config.format.precision) +
         "\",\"saturate\":" + (config.format.saturate ? "true" : "false") +
         ",\"seed\":" + std::to_string(config.seed) + scale + copies_json(config.copies) + "}";
}

}  // namespace attnscale
