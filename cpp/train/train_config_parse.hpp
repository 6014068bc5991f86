// JS-shaped training config (field map from the Embind layer) → TrainConfig, with errors that name
// the field: TypeError for a wrong type or unknown field, RangeError for a value out of range.
#pragma once

#include <string>

#include "config/config.hpp"
#include "train/train.hpp"

namespace attnscale {

// `out.copies` is kept (the copies come as an array, parsed one by one with parse_copy_spec).
ConfigError parse_train_config(const FieldMap& fields, TrainConfig& out);

// One entry of the JS `copies` array: { name, scale, qkNorm, softcap, lengthScale }.
ConfigError parse_copy_spec(const FieldMap& fields, int index, CopySpec& out);

// One copy as JSON, {"name", "scale", "qkNorm", "softcap", "lengthScale"}, with its "label" after
// the name when `labelled` (trainer.config's copies, and the choices of trainSchema's `copies`).
std::string copy_spec_json(const CopySpec& c, bool labelled);

// The training fields with their ranges and defaults, as JSON (engine.trainSchema); its `copies`
// row lists the default copies and the copies the panel offers (copy_choices) with their labels.
std::string train_schema_json();

}  // namespace attnscale
