// The engine's results as JS values, for bindings.cpp: statistics, histograms, typed arrays.
#pragma once

#include <emscripten/val.h>

#include <string>

#include "engine/analyze.hpp"
#include "engine/estimate/estimate_job.hpp"
#include "engine/run_result.hpp"
#include "js_values.hpp"

namespace attnscale {

using emscripten::val;

inline val histogram_value(const Histogram& h) {
  val out = val::object();
  out.set("edges", copy_to_js("Float64Array", h.edges.data(), h.edges.size()));
  out.set("counts", copy_to_js("Uint32Array", h.counts.data(), h.counts.size()));
  return out;
}

inline void set_stats(val& out, const RunStats& s) {
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

// run's result: every scalar, both histograms, the weights and the per-row arrays.
inline val run_value(const RunResult& r) {
  val out = val::object();
  set_stats(out, r.stats);
  out.set("histogram", histogram_value(r.histogram));
  out.set("rawHistogram", histogram_value(r.rawHistogram));
  out.set("attention", copy_to_js("Float32Array", r.attention.data(), r.attention.size()));
  out.set("rowEntropy", copy_to_js("Float32Array", r.rowEntropy.data(), r.rowEntropy.size()));
  out.set("rowMaxWeight", copy_to_js("Float32Array", r.rowMaxWeight.data(), r.rowMaxWeight.size()));
  out.set("rowJacobianNorm",
          copy_to_js("Float32Array", r.rowJacobianNorm.data(), r.rowJacobianNorm.size()));
  return out;
}

// One scale's estimate at one d_k: { dk, rows, <field>, <field>Se for each estimated field, the
// sample's jacobianNormMedian and gradNormQ, nonFinite: { logits, exp, weights } (times T/r),
// exactOnly: [the fields left to the exact sweep] }.
inline val estimate_value(const EstimateStats& e, int dk) {
  val out = val::object();
  out.set("dk", dk);
  out.set("rows", e.rows);
  for (const EstimateField& f : estimate_fields()) {
    const Estimate& x = e.*f.member;
    out.set(f.name, x.value);
    out.set(std::string(f.name) + "Se", x.se);
  }
  out.set("jacobianNormMedian", e.jacobianNormMedian);
  out.set("gradNormQ", e.gradNormQ);
  val nonFinite = val::object();
  nonFinite.set("logits", e.nonFiniteLogits);
  nonFinite.set("exp", e.nonFiniteExp);
  nonFinite.set("weights", e.nonFiniteWeights);
  out.set("nonFinite", nonFinite);
  val exactOnly = val::array();
  for (const char* name : exact_only_fields()) exactOnly.call<void>("push", std::string(name));
  out.set("exactOnly", exactOnly);
  return out;
}

// One head of analyze(): run's fields except those of the sampling (the theory of σ, which
// assumes Gaussians) and of the backward (there is no upstream gradient); the output's check and
// the online softmax's difference only when V was given.
inline val head_value(const HeadReport& r, bool withV, bool detail) {
  val out = val::object();
  out.set("head", r.head);
  out.set("kvHead", r.kvHead);
  out.set("qMean", r.q.mean);
  out.set("qStd", r.q.std);
  out.set("kMean", r.k.mean);
  out.set("kStd", r.k.std);
  out.set("nonFiniteInputs", static_cast<double>(r.q.nonFinite + r.k.nonFinite));
  out.set("iidRawLogitStd", r.iidRawLogitStd);
  out.set("sinkWeight", r.sinkWeight);
  set_stats(out, r.result.stats);
  for (const char* name : {"rawLogitStdTheory", "gradNormQ", "gradNormK"}) out.delete_(name);
  if (!withV) {
    out.delete_("onlineMaxAbsDiff");
    out["nonFinite"].set("output", val::null());
  }
  out.set("histogram", histogram_value(r.result.histogram));
  out.set("rawHistogram", histogram_value(r.result.rawHistogram));
  if (detail) {
    const RunResult& x = r.result;
    out.set("rowEntropy", copy_to_js("Float32Array", x.rowEntropy.data(), x.rowEntropy.size()));
    out.set("rowMaxWeight",
            copy_to_js("Float32Array", x.rowMaxWeight.data(), x.rowMaxWeight.size()));
    out.set("rowJacobianNorm",
            copy_to_js("Float32Array", x.rowJacobianNorm.data(), x.rowJacobianNorm.size()));
    out.set("attention", copy_to_js("Float32Array", x.attention.data(), x.attention.size()));
  }
  return out;
}

}  // namespace attnscale
