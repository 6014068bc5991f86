// The only Embind file: the Engine class that engine.js calls, one call per measurement, and the
// Trainer (js_trainer.hpp). No C++ exception crosses this boundary: every user error comes back as
// { error: { kind, message } } (js_values.hpp) and engine.js throws it as a RangeError or
// TypeError.
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "config/config.hpp"
#include "engine/analyze.hpp"
#include "engine/attention_engine.hpp"
#include "engine/estimate/estimate_job.hpp"
#include "js_results.hpp"
#include "js_trainer.hpp"
#include "js_values.hpp"
#include "kernels/attention_forward.hpp"
#include "precision/format.hpp"
#include "simd/batch.hpp"
#include "stats/entropy_bound.hpp"
#include "train/train.hpp"
#include "train/train_config_parse.hpp"

namespace attnscale {
namespace {

// budgetMs from now (from 1e9 ms on, Infinity included: no deadline).
Clock::time_point deadline_after(double budgetMs) {
  if (!(budgetMs < 1e9)) return Clock::time_point::max();
  return Clock::now() +
         std::chrono::microseconds(static_cast<long long>(std::max(0.0, budgetMs) * 1000));
}

// What sweepBegin and estimateBegin read: one config per scale and the list of d_k.
bool read_sweep(val cfg, val dks, val scales, std::vector<Config>& configs, std::vector<int>& list,
                ConfigError& err) {
  FieldMap fields;
  return read_fields(cfg, fields, err) && read_scales(fields, scales, configs, err) &&
         read_int_list(dks, "dks", 1, 4096, list, err);
}

// One step of job `id` of `jobs` (sweeps or estimates): { done: true } once it has returned every
// point or does not exist (then end(id) frees it); else it works on its next point for about
// budgetMs: { done: false, dk: null } when the budget ran out first, { done: false, dk, points:
// [point(result, dk) per scale] } when the point completed.
template <class Jobs, class End, class Point>
val advance_job(Jobs& jobs, int id, double budgetMs, End end, Point point) {
  auto it = jobs.find(id);
  val out = val::object();
  if (it == jobs.end() || it->second->done()) {
    end(id);
    out.set("done", true);
    return out;
  }
  auto& job = *it->second;
  const int dk = job.nextDk();
  out.set("done", false);
  if (!job.advance(deadline_after(budgetMs))) {
    out.set("dk", val::null());
    return out;
  }
  out.set("dk", dk);
  val points = val::array();
  for (const auto& result : job.point()) points.call<void>("push", point(result, dk));
  out.set("points", points);
  return out;
}

class JsEngine {
 public:
  val run(val cfg) {
    Config c;
    ConfigError err;
    if (!read_config(cfg, c, err)) return error_value(err);
    val out = run_value(engine_.run(c));
    out.set("config", config_to_json(c));
    return out;
  }

  // run in two calls (engine.js runForward, runBackward): the forward's result, with
  // backwardPending false when it already holds the gradient norms (large shapes).
  val runForward(val cfg) {
    Config c;
    ConfigError err;
    if (!read_config(cfg, c, err)) return error_value(err);
    val out = run_value(engine_.run_forward(c));
    out.set("config", config_to_json(c));
    out.set("backwardPending", engine_.backward_pending());
    return out;
  }

  // { done: false } while the backward goes on, { done: true, <every scalar field> } once done.
  val runBackward(double budgetMs) {
    if (!engine_.backward_pending())
      return error_value("Error",
                         "runBackward: no backward is pending (runForward starts one; any other "
                         "call of this engine ends it)");
    RunStats stats;
    val out = val::object();
    const bool done = engine_.run_backward(deadline_after(budgetMs), stats);
    out.set("done", done);
    if (done) set_stats(out, stats);
    return out;
  }

  // run's scalar fields without the backward (engine.js forwardStats).
  val forwardStats(val cfg) {
    Config c;
    ConfigError err;
    if (!read_config(cfg, c, err)) return error_value(err);
    val out = val::object();
    set_stats(out, engine_.forward_stats(c));
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
    std::vector<Config> configs;
    std::vector<int> list;
    ConfigError err;
    if (!read_sweep(cfg, dks, scales, configs, list, err)) return error_value(err);
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
    return advance_job(
        sweeps_, id, budgetMs, [this](int done) { sweepEnd(done); },
        [](const RunResult& r, int dk) {
          val point = val::object();
          point.set("dk", dk);
          set_stats(point, r.stats);
          return point;
        });
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

  // Starts an estimate of sweepBegin's sweep (same arguments, same errors) from `rows` sampled
  // query rows, an integer in [2, seqLen] (undefined: min(128, seqLen)); returns
  // { id, dk: Int32Array, rows: Int32Array (the sampled rows) } or an error.
  // (`gradients` is checked to be a boolean on the JS side, engine.js.)
  val estimateBegin(val cfg, val dks, val scales, val rows, bool gradients) {
    std::vector<Config> configs;
    std::vector<int> list;
    ConfigError err;
    if (!read_sweep(cfg, dks, scales, configs, list, err)) return error_value(err);
    int count = 0;
    if (!read_estimate_rows(rows, configs.front().seqLen, count, err)) return error_value(err);
    const int id = nextEstimateId_++;
    auto job = std::make_unique<EstimateJob>(std::move(configs), list, count, gradients);
    val out = val::object();
    out.set("id", id);
    out.set("dk", copy_to_js("Int32Array", list.data(), list.size()));
    out.set("rows", copy_to_js("Int32Array", job->rows().data(), job->rows().size()));
    estimates_.emplace(id, std::move(job));
    return out;
  }

  // As sweepAdvance, for estimate `id`: a completed point is { done: false, dk, points: [one
  // estimate per scale] } (estimate_value).
  val estimateAdvance(int id, double budgetMs) {
    return advance_job(
        estimates_, id, budgetMs, [this](int done) { estimateEnd(done); }, estimate_value);
  }

  void estimateEnd(int id) { estimates_.erase(id); }

  // Milliseconds per phase of the last sweep that ended (a profile for the benchmarks).
  val lastSweepPhaseMs() const {
    val out = val::object();
    for (int p = 0; p < static_cast<int>(Phase::count); ++p)
      out.set(phase_name(static_cast<Phase>(p)), lastSweepPhases_[p]);
    return out;
  }

  // The measurements of `run` on a model's own heads: q of heads·seqLen·dk values, k (and v,
  // optional) of kvHeads·seqLen·dk, head-major → { heads: [one object per query head] }.
  val analyze(val q, val k, val v, val opts) {
    Config c;
    AnalyzeLayout layout;
    ConfigError err;
    if (!read_analyze_options(opts, c, layout, err)) return error_value(err);
    const std::size_t perHead = static_cast<std::size_t>(c.seqLen) * c.dk;
    const std::size_t nq = perHead * layout.heads, nk = perHead * layout.kvHeads;
    const bool withV = !v.isNull() && !v.isUndefined();
    const std::size_t total = nq + nk * (withV ? 2 : 1);
    if (total > kAnalyzeMaxValues)
      return error_value("RangeError", "q, k and v hold " + std::to_string(total) +
                                           " values; analyze takes at most " +
                                           std::to_string(kAnalyzeMaxValues) +
                                           " per call: pass fewer heads at a time");
    struct Input {
      const val* array;
      const char* name;
      const char* shape;
      std::size_t n;
      std::vector<float>* buffer;
    };
    const Input inputs[] = {{&q, "q", "heads", nq, &q_},
                            {&k, "k", "kvHeads", nk, &k_},
                            {&v, "v", "kvHeads", withV ? nk : 0, &v_}};
    for (const Input& in : inputs) {
      if (in.array == &v && !withV) continue;
      const std::string expected = std::string(in.name) + " must be a Float32Array of " + in.shape +
                                   "·seqLen·dk = " + std::to_string(in.n) + " values";
      if (!in.array->instanceof (val::global("Float32Array")))
        return error_value("TypeError", expected + ", got " + in.array->typeOf().as<std::string>());
      const std::size_t len = (*in.array)["length"].as<std::size_t>();
      if (len != in.n)
        return error_value("RangeError", expected + ", got length " + std::to_string(len));
      in.buffer->resize(in.n);
      val(emscripten::typed_memory_view(in.n, in.buffer->data())).call<void>("set", *in.array);
    }
    const LayerInputs layer{c.seqLen,
                            c.dk,
                            layout.heads,
                            layout.kvHeads,
                            q_.data(),
                            k_.data(),
                            withV ? v_.data() : nullptr};
    const std::vector<HeadReport> reports = analyze_.analyze(c, layer, layout.detail);
    val heads = val::array();
    for (const HeadReport& r : reports)
      heads.call<void>("push", head_value(r, withV, layout.detail));
    val out = val::object();
    out.set("heads", heads);
    out.set("config", config_to_json(c));
    return out;
  }

  val round(std::string precision, val input, bool saturate) {
    Format f;
    f.saturate = saturate;
    if (!parse_precision(precision, f.precision))
      return error_value("RangeError", "precision must be one of " + precision_names_text(true) +
                                           ", got \"" + precision.substr(0, 40) + "\"");
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
    Config c;
    ConfigError err;
    if (!read_attention_config(opts, c, err)) return error_value(err);
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
    // large outputs (77 µs vs 135 µs at 64 Ki floats).
    val output = val::global("Float32Array").new_(n);
    output.call<void>("set", val(emscripten::typed_memory_view(n, o_.data())));
    val out = val::object();
    out.set("output", output);
    return out;
  }

 private:
  // q, k and v of one analyze call at most (64 MiB of copies; with a head's workspace at T = 2048,
  // d_k = 4096, ~210 MiB of wasm memory).
  static constexpr std::size_t kAnalyzeMaxValues = std::size_t{16} << 20;

  AttentionEngine engine_;
  AnalyzeEngine analyze_;
  AttentionForward forward_;
  std::vector<float> q_, k_, v_, o_;
  std::map<int, std::unique_ptr<SweepJob>> sweeps_;
  PhaseTimes lastSweepPhases_{};
  int nextSweepId_ = 1;
  std::map<int, std::unique_ptr<EstimateJob>> estimates_;
  int nextEstimateId_ = 1;
  std::vector<float> buffer_;
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
  // engine.js checks the arguments (an integer T >= 1, a finite σ >= 0) and names them.
  emscripten::function("entropyLowerBound", &entropy_lower_bound);
  emscripten::class_<JsTrainer>("Trainer")
      .constructor<val>()
      .function("error", &JsTrainer::error)
      .function("step", &JsTrainer::step)
      .function("attention", &JsTrainer::attention)
      .function("qk", &JsTrainer::qk)
      .function("reset", &JsTrainer::reset)
      .function("stepsDone", &JsTrainer::stepsDone)
      .function("configJson", &JsTrainer::configJson);
  emscripten::class_<JsEngine>("Engine")
      .constructor<>()
      .function("run", &JsEngine::run)
      .function("runForward", &JsEngine::runForward)
      .function("runBackward", &JsEngine::runBackward)
      .function("forwardStats", &JsEngine::forwardStats)
      .function("validate", &JsEngine::validate)
      .function("sweepBegin", &JsEngine::sweepBegin)
      .function("sweepAdvance", &JsEngine::sweepAdvance)
      .function("sweepEnd", &JsEngine::sweepEnd)
      .function("estimateBegin", &JsEngine::estimateBegin)
      .function("estimateAdvance", &JsEngine::estimateAdvance)
      .function("estimateEnd", &JsEngine::estimateEnd)
      .function("seqLenSweepCheck", &JsEngine::seqLenSweepCheck)
      .function("seqLenPoint", &JsEngine::seqLenPoint)
      .function("lastSweepPhaseMs", &JsEngine::lastSweepPhaseMs)
      .function("round", &JsEngine::round)
      .function("attention", &JsEngine::attention)
      .function("analyze", &JsEngine::analyze);
}
