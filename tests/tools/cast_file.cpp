// cast_file <precision> <saturate 0|1> <in.bin> <out.bin>: rounds the float32 bit patterns of
// in.bin natively and writes the results, so the JS tests can compare wasm casts with native.
#include <cstdio>
#include <fstream>
#include <iterator>
#include <vector>

#include "precision/format.hpp"

int main(int argc, char** argv) {
  using namespace attnscale;
  Format f;
  if (argc != 5 || !parse_precision(argv[1], f.precision)) {
    std::fprintf(stderr, "usage: cast_file <fp32|bf16|fp16|fp8e4m3|fp8e5m2> <0|1> <in> <out>\n");
    return 2;
  }
  f.saturate = argv[2][0] == '1';
  std::ifstream in(argv[3], std::ios::binary);
  std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<float> values(bytes.size() / sizeof(float));
  std::copy(bytes.begin(), bytes.begin() + values.size() * sizeof(float),
            reinterpret_cast<char*>(values.data()));
  round_inplace(f, values.data(), values.size());
  std::ofstream out(argv[4], std::ios::binary);
  out.write(reinterpret_cast<const char*>(values.data()),
            static_cast<std::streamsize>(values.size() * sizeof(float)));
  return 0;
}
