// Measures the table of docs/science.md, "QK-norm, soft-caps and s·ln T in training": the three
// scalings and the five newer schemes trained side by side (one Trainer, so every copy starts
// from the same parameters and sees the same batches), T 32, batch 16, Adam 1e-3, fp32,
// 500 steps, seeds 1-3, d_k 16/64/256, at initScale 1 and 2.
// Prints one markdown row per (initScale, d_k, copy): steps to 90 % for each seed (the first step
// whose accuracy averaged over the last 10 steps reaches 0.9; ">500" when never), the accuracy of
// steps 491-500 averaged over the seeds, and the step-1 entropy and saturated fraction (seed 1).
// Usage: train_findings [steps=500]
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "train/train.hpp"

namespace {

using attnscale::CopySpec;
using attnscale::QkNorm;
using attnscale::ScaleMode;
using attnscale::TrainMetric;

// { name, scaleMode, customScale, qkNorm, softcap, lengthScale }
std::vector<CopySpec> all_schemes() {
  return {{"none", ScaleMode::none, 1.0, QkNorm::none, 0, 0},
          {"sqrt", ScaleMode::sqrt, 1.0, QkNorm::none, 0, 0},
          {"linear", ScaleMode::linear, 1.0, QkNorm::none, 0, 0},
          {"rms_sqrt", ScaleMode::sqrt, 1.0, QkNorm::rms, 0, 0},
          {"layer_sqrt", ScaleMode::sqrt, 1.0, QkNorm::layer, 0, 0},
          {"none_cap5", ScaleMode::none, 1.0, QkNorm::none, 5, 0},
          {"none_cap50", ScaleMode::none, 1.0, QkNorm::none, 50, 0},
          {"sqrt_logn", ScaleMode::sqrt, 1.0, QkNorm::none, 0, 0.43}};
}

struct Outcome {
  int reach90 = -1;  // step, or -1
  double finalAccuracy = 0, entropy1 = 0, saturated1 = 0;
};

}  // namespace

int main(int argc, char** argv) {
  const int steps = argc > 1 ? std::atoi(argv[1]) : 500;
  const std::vector<CopySpec> schemes = all_schemes();
  const int nc = static_cast<int>(schemes.size());
  const int seeds[] = {1, 2, 3};
  std::printf(
      "| initScale | d_k | copy | →0.9 seed 1, 2, 3 | acc 491–500 (mean of seeds) | H @1 | sat @1 "
      "|\n|---|---|---|---|---|---|---|\n");
  for (double initScale : {1.0, 2.0}) {
    for (int dk : {16, 64, 256}) {
      std::vector<std::vector<Outcome>> out(static_cast<std::size_t>(nc));
      for (int seed : seeds) {
        attnscale::TrainConfig cfg;
        cfg.dk = dk;
        cfg.initScale = initScale;
        cfg.seed = static_cast<std::uint32_t>(seed);
        cfg.copies = schemes;
        attnscale::Trainer t(cfg);
        if (!t.error().empty()) {
          std::fprintf(stderr, "%s\n", t.error().c_str());
          return 1;
        }
        std::vector<std::int32_t> stepNo(static_cast<std::size_t>(steps));
        std::vector<double> m(static_cast<std::size_t>(nc) * attnscale::kTrainMetrics * steps);
        t.step(steps, stepNo.data(), m.data());
        auto at = [&](int c, TrainMetric k, int s) {
          return m[(static_cast<std::size_t>(c) * attnscale::kTrainMetrics +
                    static_cast<std::size_t>(k)) *
                       steps +
                   s];
        };
        for (int c = 0; c < nc; ++c) {
          Outcome o;
          double window = 0;
          for (int s = 0; s < steps; ++s) {
            window += at(c, TrainMetric::accuracy, s);
            if (s >= 10) window -= at(c, TrainMetric::accuracy, s - 10);
            if (s >= 9 && o.reach90 < 0 && window / 10 >= 0.9) o.reach90 = s + 1;
          }
          for (int s = steps - 10; s < steps; ++s)
            o.finalAccuracy += at(c, TrainMetric::accuracy, s);
          o.finalAccuracy /= 10;
          o.entropy1 = at(c, TrainMetric::entropy, 0);
          o.saturated1 = at(c, TrainMetric::saturatedFraction, 0);
          out[static_cast<std::size_t>(c)].push_back(o);
        }
      }
      for (int c = 0; c < nc; ++c) {
        const auto& o = out[static_cast<std::size_t>(c)];
        std::string reach;
        double acc = 0;
        for (std::size_t i = 0; i < o.size(); ++i) {
          reach += (i ? ", " : "") +
                   (o[i].reach90 < 0 ? ">" + std::to_string(steps) : std::to_string(o[i].reach90));
          acc += o[i].finalAccuracy / static_cast<double>(o.size());
        }
        std::printf("| %g | %d | %s | %s | %.3f | %.2f | %.2f |\n", initScale, dk,
                    schemes[static_cast<std::size_t>(c)].name.c_str(), reach.c_str(), acc,
                    o[0].entropy1, o[0].saturated1);
      }
      std::fflush(stdout);
    }
  }
  return 0;
}
