// Replays every input kept under tests/fuzz/corpus/<target>/ (seeds and anything the fuzzers
// found) through the same entry points as `npm run fuzz`, so a fixed crash stays fixed.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <vector>

#include "fuzz_entries.hpp"

namespace {

namespace fs = std::filesystem;

int replay(const char* target, void (*entry)(const std::uint8_t*, std::size_t)) {
  const fs::path dir = fs::path(ATTNSCALE_SOURCE_DIR) / "tests" / "fuzz" / "corpus" / target;
  int count = 0;
  if (!fs::exists(dir)) return 0;
  for (const auto& file : fs::directory_iterator(dir)) {
    std::ifstream in(file.path(), std::ios::binary);
    const std::vector<std::uint8_t> bytes((std::istreambuf_iterator<char>(in)),
                                          std::istreambuf_iterator<char>());
    entry(bytes.data(), bytes.size());
    ++count;
  }
  return count;
}

TEST(FuzzCorpusReplay, ConfigAndRun) {
  EXPECT_GT(replay("config_run", attnscale::fuzz::config_and_run), 0);
}

TEST(FuzzCorpusReplay, Casts) { EXPECT_GT(replay("casts", attnscale::fuzz::casts), 0); }

TEST(FuzzCorpusReplay, TrainStep) { EXPECT_GT(replay("train", attnscale::fuzz::train_step), 0); }

}  // namespace
