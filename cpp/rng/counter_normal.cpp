#include "rng/counter_normal.hpp"

namespace attnscale {

void fill_normal_row(std::uint32_t seed, Tensor tensor, std::uint32_t row, int cols, float* out) {
  fill_normal_columns(seed, tensor, row, 0, cols, out);
}

void fill_normal_columns(std::uint32_t seed, Tensor tensor, std::uint32_t row, int col0, int count,
                         float* out) {
  using namespace simd;
  const std::uint32_t key = row_key(seed, tensor, row);
  alignas(64) std::uint32_t iota[W];
  for (std::size_t i = 0; i < W; ++i) iota[i] = static_cast<std::uint32_t>(i);
  const vu lanes = loadu(iota);
  int c = 0;
  const auto column = [&](int at) { return vu(static_cast<std::uint32_t>(col0 + at)) + lanes; };
  for (; c + static_cast<int>(W) <= count; c += static_cast<int>(W))
    storeu(out + c, normal_from_counter(key, column(c)));
  if (c < count) {  // tail: same arithmetic on a full vector, keep the lanes that exist
    alignas(64) float tail[W];
    storeu(tail, normal_from_counter(key, column(c)));
    for (int i = 0; c + i < count; ++i) out[c + i] = tail[i];
  }
}

void ColumnHashes::compute(int from, int n) {
  using namespace simd;
  col0 = from;
  count = n;
  const std::size_t padded = (static_cast<std::size_t>(n) + W - 1) / W * W;
  a.resize(padded);
  b.resize(padded);
  for (std::size_t i = 0; i < padded; ++i) {
    const std::uint32_t column = static_cast<std::uint32_t>(from) + static_cast<std::uint32_t>(i);
    a[i] = mix32(column + column);
    b[i] = mix32(column + column + 1);
  }
}

void fill_normal_hashed(std::uint32_t seed, Tensor tensor, std::uint32_t row,
                        const ColumnHashes& hashes, float* out) {
  using namespace simd;
  const std::uint32_t key = row_key(seed, tensor, row);
  const int count = hashes.count;
  int c = 0;
  for (; c + static_cast<int>(W) <= count; c += static_cast<int>(W))
    storeu(out + c,
           normal_from_hashes(key, loadu(hashes.a.data() + c), loadu(hashes.b.data() + c)));
  if (c < count) {  // tail: the padded lanes' hashes are computed too; keep the lanes that exist
    alignas(64) float tail[W];
    storeu(tail, normal_from_hashes(key, loadu(hashes.a.data() + c), loadu(hashes.b.data() + c)));
    for (int i = 0; c + i < count; ++i) out[c + i] = tail[i];
  }
}

}  // namespace attnscale
