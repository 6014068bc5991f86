// The plain reference of EstimateJob: the same rows (estimate_rows), their values taken from
// reference_run on the full inputs (double precision), and the estimators written out directly
// from their definitions: each standard error by the delta method on the sample covariance matrix
// of the per-row sums, not by the residual forms of engine/estimate/estimators.cpp. Tests compare
// the two; the page never uses it.
#pragma once

#include <vector>

#include "config/config.hpp"
#include "engine/estimate/estimate_job.hpp"

namespace attnscale {

// One EstimateStats per config (configs as for EstimateJob) at d_k = dk from `rows` rows.
std::vector<EstimateStats> reference_estimate(const std::vector<Config>& configs, int dk, int rows);

}  // namespace attnscale
