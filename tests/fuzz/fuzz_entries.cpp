#include "fuzz_entries.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "config/config.hpp"
#include "engine/attention_engine.hpp"
#include "precision/format.hpp"
#include "train/train.hpp"
#include "train/train_config_parse.hpp"

namespace attnscale::fuzz {

namespace {

[[noreturn]] void fail(const char* what) {
  std::fprintf(stderr, "fuzz check failed: %s\n", what);
  std::abort();
}

class Reader {
 public:
  Reader(const std::uint8_t* data, std::size_t size) : data_(data), size_(size) {}
  bool empty() const { return pos_ >= size_; }
  std::uint8_t byte() { return pos_ < size_ ? data_[pos_++] : 0; }
  double number() {
    static const double special[] = {0.0,
                                     -0.0,
                                     1.0,
                                     -1.0,
                                     0.5,
                                     2.0,
                                     64,
                                     4096,
                                     4097,
                                     2048,
                                     2049,
                                     1e6,
                                     1e300,
                                     -1e300,
                                     4294967295.0,
                                     4294967296.0,
                                     std::numeric_limits<double>::infinity(),
                                     -std::numeric_limits<double>::infinity(),
                                     std::numeric_limits<double>::quiet_NaN(),
                                     std::numeric_limits<double>::denorm_min()};
    const std::uint8_t tag = byte();
    if (tag < 128) return special[tag % (sizeof special / sizeof *special)];
    if (tag < 192) return static_cast<double>(byte()) - 64.0;  // small integers, some negative
    double x = 0;
    for (int i = 0; i < 8; ++i) reinterpret_cast<std::uint8_t*>(&x)[i] = byte();
    return x;
  }
  std::string text() {
    static const char* const words[] = {"fp32",  "bf16",     "fp16",  "fp8e4m3", "fp8e5m2", "none",
                                        "sqrt",  "linear",   "naive", "online",  "",        "FP16",
                                        "sqrt ", "\xff\xfe", "0.5",   "sgd",     "adam"};
    return words[byte() % (sizeof words / sizeof *words)];
  }

 private:
  const std::uint8_t* data_;
  std::size_t size_;
  std::size_t pos_ = 0;
};

void check_stats(const RunStats& s, const Config& c) {
  auto in01 = [](double x) { return std::isnan(x) || (x >= 0 && x <= 1 + 1e-6); };
  if (!in01(s.saturatedFraction)) fail("saturatedFraction outside [0, 1]");
  if (!in01(s.maxWeight) && c.format.precision == Precision::fp32) fail("maxWeight outside [0, 1]");
  if (!(s.nonFiniteRows >= 0 && s.nonFiniteRows <= c.seqLen)) fail("nonFiniteRows outside [0, T]");
  if (!std::isnan(s.entropy) && s.entropy < -1e-6) fail("negative entropy");
  if (!(s.entropyMax >= 0)) fail("entropyMax");
  const std::uint64_t cells = static_cast<std::uint64_t>(c.seqLen) * c.seqLen;
  if (s.nonFinite.logits > cells || s.nonFinite.weights > cells || s.nonFinite.exp > cells)
    fail("non-finite count above T²");
}

// Up to maxFields (name, value) pairs: the name from `names`, the value a number, a boolean, one
// of the known words, or a value of another JS type.
template <std::size_t N>
FieldMap read_fields(Reader& in, const char* const (&names)[N], int maxFields) {
  FieldMap fields;
  const int count = in.byte() % (maxFields + 1);
  for (int i = 0; i < count && !in.empty(); ++i) {
    FieldValue v;
    const std::uint8_t kind = in.byte() % 4;
    if (kind == 0) {
      v.kind = FieldValue::Kind::number;
      v.number = in.number();
    } else if (kind == 1) {
      v.kind = FieldValue::Kind::boolean;
      v.boolean = in.byte() & 1;
    } else if (kind == 2) {
      v.kind = FieldValue::Kind::string;
      v.text = in.text();
    } else {
      v.kind = FieldValue::Kind::other;
      v.text = "null";
    }
    fields.emplace_back(names[in.byte() % N], v);
  }
  return fields;
}

}  // namespace

void config_and_run(const std::uint8_t* data, std::size_t size) {
  static const char* const names[] = {
      "dk",        "seqLen", "precision", "saturate", "scale",       "subtractMax", "softmax",
      "blockSize", "causal", "mean",      "std",      "correlation", "seed",        "bogus"};
  Reader in(data, size);
  const FieldMap fields = read_fields(in, names, 9);
  Config c;
  const ConfigError err = parse_config(fields, c);
  if (!err.ok()) {
    if (err.kind != "RangeError" && err.kind != "TypeError") fail("error kind");
    if (err.message.empty()) fail("empty error message");
    return;
  }
  if (!validate_config(c).ok()) fail("parse_config accepted what validate_config rejects");
  // Keep each execution short: the fuzzer explores the value space, not the size space.
  if (c.seqLen > 48 || c.dk > 48) return;
  AttentionEngine engine;
  const RunResult r = engine.run(c);
  check_stats(r.stats, c);
  SweepRunner sweep(c, {c.dk, 1, c.dk});
  while (!sweep.done()) check_stats(sweep.next(), c);
}

void casts(const std::uint8_t* data, std::size_t size) {
  std::vector<float> values(size / sizeof(float));
  if (values.empty()) return;
  std::memcpy(values.data(), data, values.size() * sizeof(float));
  for (int p = 0; p <= static_cast<int>(Precision::fp8e5m2); ++p) {
    for (bool saturate : {false, true}) {
      const Format f{static_cast<Precision>(p), saturate};
      std::vector<float> fast = values;
      round_inplace(f, fast.data(), fast.size());
      for (std::size_t i = 0; i < values.size(); ++i) {
        const float want = round_reference(f, values[i]);
        std::uint32_t a, b;
        std::memcpy(&a, &fast[i], 4);
        std::memcpy(&b, &want, 4);
        if (a != b) fail("vectorized cast differs from round_reference");
        if (std::isfinite(values[i]) && std::fabs(want) > largest_finite(f.precision) && saturate &&
            (f.precision == Precision::fp8e4m3 || f.precision == Precision::fp8e5m2))
          fail("saturating fp8 cast produced a value beyond the largest finite");
      }
    }
  }
}

void train_step(const std::uint8_t* data, std::size_t size) {
  static const char* const names[] = {"dk",           "seqLen",    "batchSize", "optimizer",
                                      "learningRate", "initScale", "precision", "saturate",
                                      "seed",         "scale",     "x"};
  Reader in(data, size);
  const FieldMap fields = read_fields(in, names, 7);
  TrainConfig c;
  const ConfigError err = parse_train_config(fields, c);
  if (!err.ok()) {
    if (err.message.empty()) fail("empty training error message");
    return;
  }
  if (static_cast<long long>(c.dk) * c.seqLen * c.batchSize > 4096) return;  // keep runs short
  Trainer trainer(c);
  if (!trainer.error().empty()) fail("parse_train_config accepted a config the trainer rejects");
  const int n = 1 + in.byte() % 3;
  std::vector<std::int32_t> steps(n);
  std::vector<double> metrics(static_cast<std::size_t>(trainer.copies()) * kTrainMetrics * n);
  trainer.step(n, steps.data(), metrics.data());
  for (int s = 0; s < n; ++s)
    if (steps[s] != s + 1) fail("step numbers");
  for (int copy = 0; copy < trainer.copies(); ++copy) {
    const double acc =
        metrics[(copy * kTrainMetrics + static_cast<int>(TrainMetric::accuracy)) * n];
    if (!(acc >= 0 && acc <= 1)) fail("accuracy outside [0, 1]");
    const std::vector<float> a = trainer.attention(copy);
    if (a.size() != static_cast<std::size_t>(c.seqLen) * c.seqLen) fail("attention size");
  }
  trainer.reset();
}

}  // namespace attnscale::fuzz
