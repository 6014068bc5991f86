// FNV-1a 64 over raw bytes: how the trainer's golden tests hash their curves (the node tests in
// tests/js/engine/train.test.js hash the same bytes of the wasm builds the same way).
#pragma once

#include <cstddef>
#include <cstdint>

inline std::uint64_t fnv(std::uint64_t h, const void* p, std::size_t n) {
  const unsigned char* b = static_cast<const unsigned char*>(p);
  for (std::size_t i = 0; i < n; ++i) h = (h ^ b[i]) * 1099511628211ULL;
  return h;
}
