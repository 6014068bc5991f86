#include "train/train_config_parse.hpp"

#include <cmath>

namespace attnscale {

namespace {

ConfigError type_error(const std::string& field, const char* expected) {
  return {"TypeError", field + " must be " + expected};
}

bool is_integer(const FieldValue& v) {
  return v.kind == FieldValue::Kind::number && std::isfinite(v.number) &&
         std::floor(v.number) == v.number;
}

}  // namespace

ConfigError parse_train_config(const FieldMap& fields, TrainConfig& out) {
  TrainConfig c;
  for (const auto& [name, v] : fields) {
    const bool number = v.kind == FieldValue::Kind::number;
    if (name == "dk" || name == "seqLen" || name == "batchSize") {
      if (!number) return type_error(name, "an integer");
      // Anything non-integer or far outside int range is reported with the valid range below.
      const double x = v.number;
      int value = is_integer(v) && std::fabs(x) < 1e9 ? static_cast<int>(x) : -1;
      if (value < 0 || !is_integer(v)) {
        TrainConfig probe;
        (name == "dk" ? probe.dk : name == "seqLen" ? probe.seqLen : probe.batchSize) = -1;
        std::string msg = validate_train_config(probe);
        msg = msg.substr(0, msg.rfind("got ")) + "got " + format_number(x);
        return {"RangeError", msg};
      }
      (name == "dk" ? c.dk : name == "seqLen" ? c.seqLen : c.batchSize) = value;
    } else if (name == "seed") {
      if (!number) return type_error(name, "an integer in [0, 4294967295]");
      if (!is_integer(v) || v.number < 0 || v.number > 4294967295.0) {
        return {"RangeError",
                "seed must be an integer in [0, 4294967295], got " + format_number(v.number)};
      }
      c.seed = static_cast<std::uint32_t>(v.number);
    } else if (name == "learningRate" || name == "initScale" || name == "scale") {
      if (!number) return type_error(name, "a finite number");
      if (name == "learningRate")
        c.learningRate = v.number;
      else if (name == "initScale")
        c.initScale = v.number;
      else {
        c.hasCustom = true;
        c.customScale = v.number;
      }
    } else if (name == "scheduleSteps") {
      const std::string range = "an integer in [" + format_number(kTrainScheduleStepsMin) + ", " +
                                format_number(kTrainScheduleStepsMax) + "]";
      if (!number) return type_error(name, range.c_str());
      if (!is_integer(v) || v.number < kTrainScheduleStepsMin || v.number > kTrainScheduleStepsMax)
        return {"RangeError",
                "scheduleSteps must be " + range + ", got " + format_number(v.number)};
      c.scheduleSteps = static_cast<int>(v.number);
    } else if (name == "schedule") {
      if (v.kind != FieldValue::Kind::string || !parse_schedule(v.text, c.schedule))
        return {v.kind == FieldValue::Kind::string ? "RangeError" : "TypeError",
                "schedule must be 'constant' or 'warmup-cosine'"};
    } else if (name == "optimizer") {
      if (v.kind != FieldValue::Kind::string || !parse_optimizer(v.text, c.optimizer))
        return {v.kind == FieldValue::Kind::string ? "RangeError" : "TypeError",
                "optimizer must be 'adam' or 'sgd'"};
    } else if (name == "precision") {
      if (v.kind != FieldValue::Kind::string || !parse_precision(v.text, c.format.precision))
        return {v.kind == FieldValue::Kind::string ? "RangeError" : "TypeError",
                "precision must be one of " + precision_names_text(true)};
    } else if (name == "saturate") {
      if (v.kind != FieldValue::Kind::boolean) return type_error(name, "a boolean (true or false)");
      c.format.saturate = v.boolean;
    } else {
      return {"TypeError",
              "unknown training field '" + name.substr(0, 40) +
                  "'; valid fields: dk, seqLen, batchSize, optimizer, learningRate, "
                  "schedule, scheduleSteps, initScale, precision, saturate, seed, scale, copies"};
    }
  }
  c.copies = out.copies;  // parsed beforehand by parse_copy_spec (the Embind layer)
  if (std::string msg = validate_train_config(c); !msg.empty()) return {"RangeError", msg};
  out = c;
  return {};
}

ConfigError parse_copy_spec(const FieldMap& fields, int index, CopySpec& out) {
  const std::string where = "copies[" + std::to_string(index) + "]";
  CopySpec c;
  bool named = false;
  for (const auto& [name, v] : fields) {
    const std::string field = where + "." + name;
    const bool number = v.kind == FieldValue::Kind::number;
    const bool text = v.kind == FieldValue::Kind::string;
    if (name == "name") {
      if (!text) return type_error(field, "a string");
      c.name = v.text;
      named = true;
    } else if (name == "scale") {
      const Scaling* named = text ? find_scaling(v.text) : nullptr;
      if (number) {
        c.scaleMode = ScaleMode::custom;
        c.customScale = v.number;
      } else if (named) {
        c.scaleMode = named->mode;
      } else {
        return {text ? "RangeError" : "TypeError", field + " must be " + scaling_keys_text() +
                                                       " or a finite number in (0, " +
                                                       format_number(kTrainCustomScaleMax) + "]"};
      }
    } else if (name == "qkNorm") {
      if (!text || !parse_qk_norm(v.text, c.qkNorm))
        return {text ? "RangeError" : "TypeError", field + " must be 'none', 'rms' or 'layer'"};
    } else if (name == "softcap" || name == "lengthScale") {
      if (!number) return type_error(field, "a finite number (0 = off)");
      (name == "softcap" ? c.softcap : c.lengthScale) = v.number;
    } else {
      return {"TypeError", "unknown field '" + name.substr(0, 40) + "' in " + where +
                               "; valid fields: name, scale, qkNorm, softcap, lengthScale"};
    }
  }
  if (!named) return {"TypeError", where + ".name must be a string (the copy's key in the output)"};
  if (std::string msg = validate_copy_spec(c, where); !msg.empty()) return {"RangeError", msg};
  out = c;
  return {};
}

namespace {

// The `copies` row: its length range, the default copies' names and the copies the panel offers.
std::string copies_field_json() {
  std::string defaults, choices;
  for (const CopySpec& c : resolved_copies(TrainConfig{}))
    defaults += (defaults.empty() ? "\"" : ",\"") + json_escape(c.name) + "\"";
  for (const CopySpec& c : copy_choices())
    choices += (choices.empty() ? "" : ",") + copy_spec_json(c, true);
  JsonObject o;
  o.text("name", "copies").text("type", "array").number("min", 1).number("max", kTrainCopiesMax);
  return o.raw("default", "[" + defaults + "]").raw("choices", "[" + choices + "]").str();
}

}  // namespace

std::string copy_spec_json(const CopySpec& c, bool labelled) {
  JsonObject o;
  o.text("name", c.name);
  if (labelled) o.text("label", copy_label(c));
  o.raw("scale", json_of(scale_value(c.scaleMode, c.customScale)))
      .text("qkNorm", qk_norm_name(c.qkNorm));
  return o.number("softcap", c.softcap).number("lengthScale", c.lengthScale).str();
}

std::string train_schema_json() {
  const TrainConfig d;
  std::string out;
  auto row = [&](JsonObject& o) { out += (out.empty() ? "[" : ",") + o.str(); };
  auto range = [&](const char* name, const char* type, double lo, double hi, double def) {
    JsonObject o;
    o.text("name", name).text("type", type).number("min", lo).number("max", hi);
    row(o.number("default", def));
  };
  range("dk", "int", kTrainDkMin, kTrainDkMax, d.dk);
  range("seqLen", "int", kTrainSeqLenMin, kTrainSeqLenMax, d.seqLen);
  range("batchSize", "int", kTrainBatchMin, kTrainBatchMax, d.batchSize);
  JsonObject optimizer;
  optimizer.text("name", "optimizer").text("type", "enum").raw("values", "[\"adam\",\"sgd\"]");
  row(optimizer.text("default", "adam"));
  range("learningRate", "number", kTrainLrMin, kTrainLrMax, d.learningRate);
  JsonObject schedule;
  schedule.text("name", "schedule").text("type", "enum");
  row(schedule.raw("values", "[\"constant\",\"warmup-cosine\"]").text("default", "constant"));
  range("scheduleSteps", "int", kTrainScheduleStepsMin, kTrainScheduleStepsMax, d.scheduleSteps);
  range("initScale", "number", kTrainInitScaleMin, kTrainInitScaleMax, d.initScale);
  range("seed", "int", 0, 4294967295.0, d.seed);
  JsonObject workCap;
  workCap.text("name", "workCap").text("type", "limit").number("value", kTrainWorkCap);
  row(workCap.text("hint", "dk * seqLen * batchSize must not exceed this"));
  return out + "," + copies_field_json() + "]";
}

}  // namespace attnscale
