#include "rng/counter_normal.hpp"

namespace attnscale {

void fill_normal_row(std::uint32_t seed, Tensor tensor, std::uint32_t row, int cols, float* out) {
  fill_normal_columns(seed, tensor, row, 0, cols, out);
}

void fill_normal_columns(std::uint32_t seed, Tensor tensor, std::uint32_t row, int col0, int count,
                         float* out) {
  ColumnHashes hashes;
  hashes.compute(col0, count);
  fill_normal_hashed(seed, tensor, row, hashes, out);
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
  const int count = hashes.count, w = static_cast<int>(W);
  // Two independent vectors per iteration (more ILP; the scalar build keeps one, less code); the
  // last, partial vector goes through `tail` (its padded lanes' hashes exist too).
  int c = 0;
  for (; simd::kHasSimd && c + 2 * w <= count; c += 2 * w) {
    const vf x0 = normal_from_hashes(key, loadu(hashes.a.data() + c), loadu(hashes.b.data() + c));
    const vf x1 =
        normal_from_hashes(key, loadu(hashes.a.data() + c + w), loadu(hashes.b.data() + c + w));
    storeu(out + c, x0);
    storeu(out + c + w, x1);
  }
  for (; c < count; c += w) {
    const vf x = normal_from_hashes(key, loadu(hashes.a.data() + c), loadu(hashes.b.data() + c));
    if (c + w <= count) {
      storeu(out + c, x);
      continue;
    }
    alignas(64) float tail[W];
    storeu(tail, x);
    for (int i = 0; c + i < count; ++i) out[c + i] = tail[i];
  }
}

}  // namespace attnscale
