// Measures the coverage table of docs/api.md, "Sweep estimates": random settings (T 256, 384 or
// 512; d_k 8 … 256; 32, 64 or 128 rows; causal or not; fp32 or bf16), three scalings each, and for
// every estimated field with an SE the share of estimates beyond 2, 3 and 4 SE of the exact run.
// `assumptions` 1 draws the inputs' mean in [−1, 1], σ in [0.5, 2] and ρ in [−0.95, 0.95]; 0
// keeps i.i.d. N(0, 1). Prints each estimate beyond 4 SE, then the counts by field, by rows and
// in all. Usage: estimate_coverage [settings=300] [assumptions=0] [seed=2000]
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "engine/attention_engine.hpp"
#include "engine/estimate/estimate_job.hpp"

namespace {

using namespace attnscale;

double exact_of(const RunStats& st, const std::string& name) {
  for (const auto& f : scalar_fields())
    if (name == f.name) return f.get(st);
  return std::nan("");
}

}  // namespace

int main(int argc, char** argv) {
  const int settings = argc > 1 ? std::atoi(argv[1]) : 300;
  const int broken = argc > 2 ? std::atoi(argv[2]) : 0;
  const unsigned seed = argc > 3 ? static_cast<unsigned>(std::atoi(argv[3])) : 2000;
  std::mt19937 gen(seed + broken);
  auto uniform = [&gen](double lo, double hi) {
    return std::uniform_real_distribution<>(lo, hi)(gen);
  };
  const int Ts[] = {256, 384, 512}, dks[] = {8, 16, 32, 64, 128, 256}, rowsOf[] = {32, 64, 128};
  std::map<std::string, std::array<int, 4>> counts;  // estimates, beyond 2, 3, 4 SE
  AttentionEngine engine;
  for (int k = 0; k < settings; ++k) {
    Config c;
    c.seqLen = Ts[gen() % 3];
    c.causal = gen() % 2;
    c.format.precision = gen() % 2 ? Precision::bf16 : Precision::fp32;
    c.seed = gen();
    if (broken) {
      c.mean = uniform(-1, 1);
      c.std = uniform(0.5, 2);
      c.correlation = uniform(-0.95, 0.95);
    }
    const int d = dks[gen() % 6], rows = rowsOf[gen() % 3];
    std::vector<Config> configs;
    for (ScaleMode m : {ScaleMode::none, ScaleMode::sqrt, ScaleMode::linear}) {
      configs.push_back(c);
      configs.back().scaleMode = m;
    }
    EstimateJob job(configs, {d}, rows);
    job.advance(Clock::time_point::max());
    for (std::size_t s = 0; s < configs.size(); ++s) {
      Config one = configs[s];
      one.dk = d;
      const RunStats exact = engine.stats(one);
      for (const EstimateField& f : estimate_fields()) {
        const Estimate e = job.point()[s].*f.member;
        if (e.se == 0) continue;  // exact fields
        const double z = std::fabs(e.value - exact_of(exact, f.name)) / e.se;
        for (const std::string& key :
             {std::string(f.name), "rows " + std::to_string(rows), std::string("all")}) {
          auto& a = counts[key];
          ++a[0];
          a[1] += z > 2;
          a[2] += z > 3;
          a[3] += z > 4;
        }
        if (z > 4)
          std::printf(
              "beyond 4 SE: %s, scale #%zu, T %d, d_k %d, rows %d, causal %d, μ %.2f, "
              "σ %.2f, ρ %.2f: %.1f SE\n",
              f.name, s, c.seqLen, d, rows, c.causal ? 1 : 0, c.mean, c.std, c.correlation, z);
      }
    }
  }
  for (const auto& [key, a] : counts)
    std::printf("%-18s %5d estimates  beyond 2 SE %4d (%.2f %%)  3 SE %3d (%.2f %%)  4 SE %d\n",
                key.c_str(), a[0], a[1], 100.0 * a[1] / a[0], a[2], 100.0 * a[2] / a[0], a[3]);
}
