// The Trainer class that bindings.cpp registers: one training run of every copy, its metrics and
// tensors as JS values.
#pragma once

#include <emscripten/val.h>

#include <memory>
#include <string>
#include <vector>

#include "js_values.hpp"
#include "train/train.hpp"
#include "train/train_config_parse.hpp"

namespace attnscale {

// One training run of every copy side by side. Construct, then check error(): a bad config leaves
// an inert trainer whose error() names the field (engine.js throws it and deletes the trainer).
class JsTrainer {
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
    if (c < 0) return unknown_copy(name);
    const std::vector<float> a = trainer_->attention(c);
    val out = val::object();
    out.set("values", copy_to_js("Float32Array", a.data(), a.size()));
    return out;
  }

  val qk(std::string name) const {
    const int c = trainer_->copy_index(name);
    if (c < 0) return unknown_copy(name);
    const std::size_t n = static_cast<std::size_t>(config_.seqLen) * config_.dk;
    std::vector<float> q(n), k(n);
    trainer_->qk(c, q.data(), k.data());
    val out = val::object();
    out.set("q", copy_to_js("Float32Array", q.data(), n));
    out.set("k", copy_to_js("Float32Array", k.data(), n));
    out.set("scale", static_cast<double>(trainer_->logit_scale(c)));
    return out;
  }

  void reset() { trainer_->reset(); }
  double stepsDone() const { return static_cast<double>(trainer_->steps_done()); }
  std::string configJson() const { return train_config_json(config_); }

 private:
  val unknown_copy(const std::string& name) const {
    std::string names;
    for (int i = 0; i < trainer_->copies(); ++i)
      names += (i ? ", '" : "'") + trainer_->copy_spec(i).name + "'";
    return error_value("RangeError",
                       "copy must be one of " + names + ", got \"" + name.substr(0, 40) + "\"");
  }

  ConfigError error_;
  TrainConfig config_;
  std::unique_ptr<Trainer> trainer_;
  std::vector<std::int32_t> steps_;
  std::vector<double> metrics_;
};

}  // namespace attnscale
