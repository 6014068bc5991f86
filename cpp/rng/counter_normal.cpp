#include "rng/counter_normal.hpp"

namespace attnscale {

void fill_normal_row(std::uint32_t seed, Tensor tensor, std::uint32_t row, int cols, float* out) {
  using namespace simd;
  const std::uint32_t key = row_key(seed, tensor, row);
  alignas(64) std::uint32_t iota[W];
  for (std::size_t i = 0; i < W; ++i) iota[i] = static_cast<std::uint32_t>(i);
  const vu lanes = loadu(iota);
  int c = 0;
  for (; c + static_cast<int>(W) <= cols; c += static_cast<int>(W))
    storeu(out + c, normal_from_counter(key, vu(static_cast<std::uint32_t>(c)) + lanes));
  if (c < cols) {  // tail: same arithmetic on a full vector, keep the lanes that exist
    alignas(64) float tail[W];
    storeu(tail, normal_from_counter(key, vu(static_cast<std::uint32_t>(c)) + lanes));
    for (int i = 0; c + i < cols; ++i) out[c + i] = tail[i];
  }
}

}  // namespace attnscale
