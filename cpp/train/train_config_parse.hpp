// JS-shaped training config (field map from the Embind layer) → TrainConfig, with errors that name
// the field: TypeError for a wrong type or unknown field, RangeError for a value out of range.
#pragma once

#include <string>

#include "config/config.hpp"
#include "train/train.hpp"

namespace attnscale {

ConfigError parse_train_config(const FieldMap& fields, TrainConfig& out);

// The training fields with their ranges and defaults, as JSON (engine.trainSchema).
std::string train_schema_json();

}  // namespace attnscale
