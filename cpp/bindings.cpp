// The only Embind file: JS values in, typed arrays out, one call per measurement.
// No C++ exception crosses this boundary: every user error comes back as { error: { kind, message }
// } and web/src/engine.js throws it as a RangeError or TypeError.
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "config/config.hpp"
#include "engine/attention_engine.hpp"
#include "kernels/attention_forward.hpp"
#include "precision/format.hpp"
#include "simd/batch.hpp"
#include "train/train.hpp"
#include "train/train_config_parse.hpp"

using emscripten::val;

namespace attnscale {
namespace {

val error_value(const std::string& kind, const std::string& message) {
  val e = val::object();
  e.set("kind", kind);
  e.set("message", message);
  val out = val::object();
  out.set("error", e);
  return out;
}

val error_value(const ConfigError& e) { return error_value(e.kind, e.message); }

template <class T>
val copy_to_js(const char* arrayType, const T* data, std::size_t n) {
  return val::global(arrayType).new_(emscripten::typed_memory_view(n, data));
}

FieldValue field_value(const val& v) {
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

bool read_fields(const val& cfg, FieldMap& fields, ConfigError& err) {
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
bool read_seq_len_config(const val& cfg, int T, Config& c, ConfigError& err) {
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

bool read_config(const val& cfg, Config& c, ConfigError& err) {
  FieldMap fields;
  if (!read_fields(cfg, fields, err)) return false;
  err = parse_config(fields, c);
  return err.ok();
}

val histogram_value(const Histogram& h) {
  val out = val::object();
  out.set("edges", copy_to_js("Float64Array", h.edges.data(), h.edges.size()));
  out.set("counts", copy_to_js("Uint32Array", h.counts.data(), h.counts.size()));
  return out;
}

void set_stats(val& out, const RunStats& s) {
  for (const auto& f : scalar_fields()) out.set(f.name, f.get(s));
  val nonFinite = val::object();
  nonFinite.set("logits", static_cast<double>(s.nonFinite.logits));
  nonFinite.set("exp", static_cast<double>(s.nonFinite.exp));
  nonFinite.set("weights", static_cast<double>(s.nonFinite.weights));
  nonFinite.set("output", static_cast<double>(s.nonFinite.output));
  out.set("nonFinite", nonFinite);
  out.set("firstNonFiniteStage", s.firstNonFiniteStage == Stage::none
                                     ? val::null()
                                     : val(std::string(stage_name(s.firstNonFiniteStage))));
}

// A non-empty array (≤ 64 entries) of integers in [lo, hi], named `name` in errors.
bool read_int_list(const val& list, const char* name, int lo, int hi, std::vector<int>& out,
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
bool read_scales(const FieldMap& fields, const val& scales, std::vector<Config>& configs,
                 ConfigError& err) {
  if (scales.isNull() || scales.isUndefined()) {
    configs.emplace_back();
    err = parse_config(fields, configs.back());
    return err.ok();
  }
  const std::string expected =
      "scales must be a non-empty array (at most 8 entries, no repeats) of 'none', 'sqrt', "
      "'linear' or finite numbers > 0";
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

class JsEngine {
 public:
  val run(val cfg) {
    Config c;
    ConfigError err;
    if (!read_config(cfg, c, err)) return error_value(err);
    const RunResult r = engine_.run(c);
    val out = val::object();
    set_stats(out, r.stats);
    out.set("histogram", histogram_value(r.histogram));
    out.set("rawHistogram", histogram_value(r.rawHistogram));
    out.set("attention", copy_to_js("Float32Array", r.attention.data(), r.attention.size()));
    out.set("rowEntropy", copy_to_js("Float32Array", r.rowEntropy.data(), r.rowEntropy.size()));
    out.set("rowMaxWeight",
            copy_to_js("Float32Array", r.rowMaxWeight.data(), r.rowMaxWeight.size()));
    out.set("rowJacobianNorm",
            copy_to_js("Float32Array", r.rowJacobianNorm.data(), r.rowJacobianNorm.size()));
    out.set("config", config_to_json(c));
    return out;
  }

  val validate(val cfg) {
    Config c;
    ConfigError err;
    if (!read_config(cfg, c, err)) return error_value(err);
    val out = val::object();
    out.set("config", config_to_json(c));
    return out;
  }

  // Starts a sweep of `cfg` over `dks` for each scale in `scales` (null: the config's own scale);
  // returns { id, dk: Int32Array } or an error.
  val sweepBegin(val cfg, val dks, val scales) {
    FieldMap fields;
    ConfigError err;
    if (!read_fields(cfg, fields, err)) return error_value(err);
    std::vector<Config> configs;
    if (!read_scales(fields, scales, configs, err)) return error_value(err);
    std::vector<int> list;
    if (!read_int_list(dks, "dks", 1, 4096, list, err)) return error_value(err);
    const int id = nextSweepId_++;
    sweeps_.emplace(id, std::make_unique<SweepJob>(std::move(configs), list));
    val out = val::object();
    out.set("id", id);
    out.set("dk", copy_to_js("Int32Array", list.data(), list.size()));
    return out;
  }

  // Works on sweep `id` for about budgetMs (Infinity: until its next point): { done: true } when
  // every point was returned (the sweep is freed), { done: false, dk, points: [one per scale] }
  // when a point completed, { done: false, dk: null } when the budget ran out first.
  val sweepAdvance(int id, double budgetMs) {
    auto it = sweeps_.find(id);
    val out = val::object();
    if (it == sweeps_.end() || it->second->done()) {
      sweepEnd(id);
      out.set("done", true);
      return out;
    }
    SweepJob& sweep = *it->second;
    const int dk = sweep.nextDk();
    out.set("done", false);
    const Clock::time_point deadline =
        budgetMs < 1e9
            ? Clock::now() +
                  std::chrono::microseconds(static_cast<long long>(std::max(0.0, budgetMs) * 1000))
            : Clock::time_point::max();
    if (!sweep.advance(deadline)) {
      out.set("dk", val::null());
      return out;
    }
    out.set("dk", dk);
    val points = val::array();
    for (const RunResult& r : sweep.point()) {
      val point = val::object();
      point.set("dk", dk);
      set_stats(point, r.stats);
      points.call<void>("push", point);
    }
    out.set("points", points);
    return out;
  }

  // Checks a sweep over T: { seqLen: Int32Array } or an error naming cfg's field or seqLens.
  val seqLenSweepCheck(val cfg, val seqLens) {
    std::vector<int> list;
    ConfigError err;
    if (!read_int_list(seqLens, "seqLens", 2, 2048, list, err)) return error_value(err);
    Config c;
    if (!read_seq_len_config(cfg, list.front(), c, err)) return error_value(err);
    val out = val::object();
    out.set("seqLen", copy_to_js("Int32Array", list.data(), list.size()));
    return out;
  }

  // One point of a sweep over T: the statistics of run({ ...cfg, seqLen }) as { seqLen, … }.
  val seqLenPoint(val cfg, int seqLen) {
    Config c;
    ConfigError err;
    if (!read_seq_len_config(cfg, seqLen, c, err)) return error_value(err);
    val point = val::object();
    point.set("seqLen", seqLen);
    set_stats(point, engine_.stats(c));
    return point;
  }

  void sweepEnd(int id) {
    auto it = sweeps_.find(id);
    if (it == sweeps_.end()) return;
    lastSweepPhases_ = it->second->phase_ms();
    sweeps_.erase(it);
  }

  // Milliseconds per phase of the last sweep that ended (a profile for the benchmarks).
  val lastSweepPhaseMs() const {
    val out = val::object();
    for (int p = 0; p < static_cast<int>(Phase::count); ++p)
      out.set(phase_name(static_cast<Phase>(p)), lastSweepPhases_[p]);
    return out;
  }

  val round(std::string precision, val input, bool saturate) {
    Format f;
    f.saturate = saturate;
    if (!parse_precision(precision, f.precision))
      return error_value("RangeError",
                         "precision must be one of 'fp32', 'bf16', 'fp16', "
                         "'fp8e4m3', 'fp8e5m2', got \"" +
                             precision.substr(0, 40) + "\"");
    if (!input.instanceof (val::global("Float32Array")))
      return error_value("TypeError", "values must be a Float32Array");
    const std::size_t n = input["length"].as<std::size_t>();
    buffer_.resize(n);
    val(emscripten::typed_memory_view(n, buffer_.data())).call<void>("set", input);
    round_inplace(f, buffer_.data(), n);
    val out = val::object();
    out.set("values", copy_to_js("Float32Array", buffer_.data(), n));
    return out;
  }

  // O = softmax(Q Kᵀ · s) V for caller-provided Float32Arrays of seqLen·dk values (row-major).
  val attention(val q, val k, val v, val opts) {
    FieldMap fields;
    ConfigError err;
    if (!read_fields(opts, fields, err)) return error_value(err);
    static const char* const allowed[] = {"seqLen",      "dk",        "scale",    "subtractMax",
                                          "causal",      "precision", "saturate", "qkNorm",
                                          "lengthScale", "softcap"};
    for (const auto& [name, value] : fields) {
      bool ok = false;
      for (const char* a : allowed) ok = ok || name == a;
      if (!ok)
        return error_value(
            "TypeError",
            "unknown attention option '" + name.substr(0, 40) +
                "'; valid options: seqLen, dk, scale, subtractMax, causal, precision, saturate, "
                "qkNorm, lengthScale, softcap");
    }
    for (const char* required : {"seqLen", "dk"}) {
      bool given = false;
      for (const auto& f : fields) given = given || f.first == required;
      if (!given)
        return error_value("TypeError", std::string("attention options need ") + required);
    }
    Config c;
    if (err = parse_config(fields, c); !err.ok()) return error_value(err);
    const std::size_t n = static_cast<std::size_t>(c.seqLen) * c.dk;
    const val* inputs[] = {&q, &k, &v};
    const char* names[] = {"q", "k", "v"};
    std::vector<float>* buffers[] = {&q_, &k_, &v_};
    for (int i = 0; i < 3; ++i) {
      const std::string expected = std::string(names[i]) +
                                   " must be a Float32Array of seqLen·dk = " + std::to_string(n) +
                                   " values";
      if (!inputs[i]->instanceof (val::global("Float32Array")))
        return error_value("TypeError",
                           expected + ", got " + inputs[i]->typeOf().as<std::string>());
      const std::size_t len = (*inputs[i])["length"].as<std::size_t>();
      if (len != n)
        return error_value("RangeError", expected + ", got length " + std::to_string(len));
      buffers[i]->resize(n);
      val(emscripten::typed_memory_view(n, buffers[i]->data())).call<void>("set", *inputs[i]);
    }
    o_.resize(n);
    forward_.run({c.seqLen, c.dk, scale_factor(c), c.subtractMax, c.causal, c.format, c.qkNorm,
                  c.lengthScale, static_cast<float>(c.softcap)},
                 q_.data(), k_.data(), v_.data(), o_.data());
    // new Float32Array(n) + set(view): in V8 about half the cost of new Float32Array(view) for
    // large outputs (measured for issue 7: 77 µs vs 135 µs at 64 Ki floats).
    val output = val::global("Float32Array").new_(n);
    output.call<void>("set", val(emscripten::typed_memory_view(n, o_.data())));
    val out = val::object();
    out.set("output", output);
    return out;
  }

 private:
  AttentionEngine engine_;
  AttentionForward forward_;
  std::vector<float> q_, k_, v_, o_;
  std::map<int, std::unique_ptr<SweepJob>> sweeps_;
  PhaseTimes lastSweepPhases_{};
  int nextSweepId_ = 1;
  std::vector<float> buffer_;
};

// One training run of every copy side by side. Construct, then check error(): a bad config leaves
// an inert trainer whose error() names the field (engine.js throws it and deletes the trainer).
class JsTrainer {
  // cfg without its `copies` (an array, read by read_copies), for read_fields.
  static val without_copies(const val& cfg) {
    if (cfg.typeOf().as<std::string>() != "object" || cfg.isNull() || cfg.isArray() ||
        !cfg.hasOwnProperty("copies"))
      return cfg;
    val rest = val::global("Object").call<val>("assign", val::object(), cfg);
    rest.delete_("copies");
    return rest;
  }

  static bool read_copies(const val& cfg, std::vector<CopySpec>& out, ConfigError& err) {
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

  std::string copies_json() const {
    if (config_.copies.empty()) return "";
    std::string out = ",\"copies\":[";
    for (std::size_t i = 0; i < config_.copies.size(); ++i) {
      const CopySpec& c = config_.copies[i];
      const std::string scale = c.scaleMode == ScaleMode::custom
                                    ? val(c.customScale).call<std::string>("toString")
                                : c.scaleMode == ScaleMode::none ? "\"none\""
                                : c.scaleMode == ScaleMode::sqrt ? "\"sqrt\""
                                                                 : "\"linear\"";
      out += (i ? ",{" : "{") + std::string("\"name\":\"") + c.name + "\",\"scale\":" + scale +
             ",\"qkNorm\":\"" + qk_norm_name(c.qkNorm) +
             "\",\"softcap\":" + val(c.softcap).call<std::string>("toString") +
             ",\"lengthScale\":" + val(c.lengthScale).call<std::string>("toString") + "}";
    }
    return out + "]";
  }

 public:
  explicit JsTrainer(val cfg) {
    FieldMap fields;
    if (!read_fields(without_copies(cfg), fields, error_)) return;
    if (!read_copies(cfg, config_.copies, error_)) return;
    error_ = parse_train_config(fields, config_);
    if (error_.ok()) trainer_ = std::make_unique<Trainer>(config_);
  }

  val error() const { return error_.ok() ? val::null() : error_value(error_); }

  val step(val count) {
    const char* expected = "n must be an integer in [1, 10000]";
    if (count.typeOf().as<std::string>() != "number") return error_value("TypeError", expected);
    const double x = count.as<double>();
    if (!(x >= 1 && x <= 10000) || static_cast<double>(static_cast<int>(x)) != x)
      return error_value("RangeError",
                         std::string(expected) + ", got " + val(x).call<std::string>("toString"));
    const int n = static_cast<int>(x);
    const int copies = trainer_->copies();
    steps_.resize(n);
    metrics_.resize(static_cast<std::size_t>(copies) * kTrainMetrics * n);
    trainer_->step(n, steps_.data(), metrics_.data());
    val out = val::object();
    out.set("step", copy_to_js("Int32Array", steps_.data(), steps_.size()));
    // keys in copy order: the names the config gave (or none, sqrt, linear[, custom])
    val byCopy = val::object();
    for (int c = 0; c < copies; ++c) {
      val m = val::object();
      for (int k = 0; k < kTrainMetrics; ++k)
        m.set(train_metric_name(static_cast<TrainMetric>(k)),
              copy_to_js("Float64Array",
                         &metrics_[(static_cast<std::size_t>(c) * kTrainMetrics + k) * n], n));
      byCopy.set(trainer_->copy_spec(c).name, m);
    }
    out.set("copies", byCopy);
    return out;
  }

  val attention(std::string name) const {
    const int c = trainer_->copy_index(name);
    if (c < 0) {
      std::string names;
      for (int i = 0; i < trainer_->copies(); ++i)
        names += (i ? ", '" : "'") + trainer_->copy_spec(i).name + "'";
      return error_value("RangeError",
                         "copy must be one of " + names + ", got \"" + name.substr(0, 40) + "\"");
    }
    const std::vector<float> a = trainer_->attention(c);
    val out = val::object();
    out.set("values", copy_to_js("Float32Array", a.data(), a.size()));
    return out;
  }

  void reset() { trainer_->reset(); }
  double stepsDone() const { return static_cast<double>(trainer_->steps_done()); }
  std::string configJson() const {
    std::string scale = config_.hasCustom
                            ? ",\"scale\":" + val(config_.customScale).call<std::string>("toString")
                            : "";
    return "{\"dk\":" + std::to_string(config_.dk) +
           ",\"seqLen\":" + std::to_string(config_.seqLen) +
           ",\"batchSize\":" + std::to_string(config_.batchSize) + ",\"optimizer\":\"" +
           optimizer_name(config_.optimizer) +
           "\",\"learningRate\":" + val(config_.learningRate).call<std::string>("toString") +
           ",\"initScale\":" + val(config_.initScale).call<std::string>("toString") +
           ",\"precision\":\"" + precision_name(config_.format.precision) +
           "\",\"saturate\":" + (config_.format.saturate ? "true" : "false") +
           ",\"seed\":" + std::to_string(config_.seed) + scale + copies_json() + "}";
  }

 private:
  ConfigError error_;
  TrainConfig config_;
  std::unique_ptr<Trainer> trainer_;
  std::vector<std::int32_t> steps_;
  std::vector<double> metrics_;
};

std::string schema_json() { return config_schema_json(); }
std::string train_schema() { return train_schema_json(); }
std::string build_info() {
  return std::string("{\"version\":\"") + ATTNSCALE_VERSION +
         "\",\"simd\":" + (simd::kHasSimd ? "true" : "false") + ",\"arch\":\"" + simd::kArchName +
         "\"}";
}

}  // namespace
}  // namespace attnscale

EMSCRIPTEN_BINDINGS(attnscale) {
  using namespace attnscale;
  emscripten::function("schemaJson", &schema_json);
  emscripten::function("buildInfo", &build_info);
  emscripten::function("trainSchemaJson", &train_schema);
  emscripten::class_<JsTrainer>("Trainer")
      .constructor<val>()
      .function("error", &JsTrainer::error)
      .function("step", &JsTrainer::step)
      .function("attention", &JsTrainer::attention)
      .function("reset", &JsTrainer::reset)
      .function("stepsDone", &JsTrainer::stepsDone)
      .function("configJson", &JsTrainer::configJson);
  emscripten::class_<JsEngine>("Engine")
      .constructor<>()
      .function("run", &JsEngine::run)
      .function("validate", &JsEngine::validate)
      .function("sweepBegin", &JsEngine::sweepBegin)
      .function("sweepAdvance", &JsEngine::sweepAdvance)
      .function("sweepEnd", &JsEngine::sweepEnd)
      .function("seqLenSweepCheck", &JsEngine::seqLenSweepCheck)
      .function("seqLenPoint", &JsEngine::seqLenPoint)
      .function("lastSweepPhaseMs", &JsEngine::lastSweepPhaseMs)
      .function("round", &JsEngine::round)
      .function("attention", &JsEngine::attention);
}
