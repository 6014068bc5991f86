// Fuzz entry points, shared by the libFuzzer targets (`npm run fuzz`) and by the GoogleTest that
// replays the kept corpus in `npm test`. Each returns normally on any input; a bug shows as a
// sanitizer report or a failed check (abort).
#pragma once

#include <cstddef>
#include <cstdint>

namespace attnscale::fuzz {

// Bytes → config fields (any field, any kind of value, extremes and NaN included) → parse_config;
// valid small configs are run and swept, and every statistic is checked for sanity.
void config_and_run(const std::uint8_t* data, std::size_t size);

// Bytes → float32 bit patterns → every format and overflow convention; the vectorized cast must
// equal the scalar reference bit for bit.
void casts(const std::uint8_t* data, std::size_t size);

// Bytes → training config (parse_train_config) → a few steps of every copy on small valid
// configs; metrics and attention rows are checked for sanity.
void train_step(const std::uint8_t* data, std::size_t size);

}  // namespace attnscale::fuzz
