// Clique MAP algorithms on the paper's synthetic cliques (Gupta et al. 2007, Section 4): n nodes,
// 24 labels, node potentials uniform in [0, 2]; Potts with lambda = 1/n, MAJORITY with a dense
// symmetric W (W_ii = 1, W_ij uniform in [0, 2]). Counters: N nodes, L labels.
#include <random>
#include <vector>

#include "benchmark/benchmark.h"
#include "collective/collective.h"

namespace chaintag {
namespace {

constexpr int kLabels = 24;

Clique MakeClique(int n, bool majority, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> unit(0, 2);
  std::vector<double> phi(static_cast<size_t>(n) * kLabels);
  for (double& v : phi) v = unit(rng);
  if (!majority)
    return *Clique::Create(n, kLabels, phi, *CliquePotential::Potts(1.0 / n, kLabels, n));
  std::vector<std::vector<double>> w(kLabels, std::vector<double>(kLabels, 1.0));
  for (int i = 0; i < kLabels; ++i)
    for (int j = i + 1; j < kLabels; ++j) w[i][j] = w[j][i] = unit(rng);
  return *Clique::Create(n, kLabels, phi, *CliquePotential::Majority(w));
}

void Run(benchmark::State& state, CliqueAlgorithm algorithm, bool majority) {
  const int n = static_cast<int>(state.range(0));
  const Clique clique = MakeClique(n, majority, 7);
  for (auto _ : state) {
    auto solution = SolveClique(clique, algorithm);
    if (!solution.ok()) state.SkipWithError("solve failed");
    benchmark::DoNotOptimize(solution);
  }
  state.counters["N"] = n;
  state.counters["L"] = kLabels;
}

void BM_PottsAlphaPass(benchmark::State& s) { Run(s, CliqueAlgorithm::kAlphaPass, false); }
void BM_PottsAlphaPass2(benchmark::State& s) { Run(s, CliqueAlgorithm::kAlphaPass2, false); }
void BM_PottsIcm(benchmark::State& s) { Run(s, CliqueAlgorithm::kIcm, false); }
void BM_MajorityAlphaPass(benchmark::State& s) { Run(s, CliqueAlgorithm::kAlphaPass, true); }
void BM_MajorityIcm(benchmark::State& s) { Run(s, CliqueAlgorithm::kIcm, true); }
void BM_MajorityExact(benchmark::State& s) { Run(s, CliqueAlgorithm::kMajorityExact, true); }

void BM_PottsMaxMarginals(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  const Clique clique = MakeClique(n, false, 7);
  for (auto _ : state) {
    auto mm = CliqueMaxMarginals(clique, CliqueAlgorithm::kAlphaPass);
    if (!mm.ok()) state.SkipWithError("max-marginals failed");
    benchmark::DoNotOptimize(mm);
  }
  state.counters["N"] = n;
  state.counters["L"] = kLabels;
}

BENCHMARK(BM_PottsAlphaPass)->Arg(10)->Arg(100)->Arg(1000)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_PottsAlphaPass2)->Arg(10)->Arg(100)->Arg(1000)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_PottsIcm)->Arg(10)->Arg(100)->Arg(1000)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_MajorityAlphaPass)->Arg(10)->Arg(100)->Arg(400)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_MajorityIcm)->Arg(10)->Arg(100)->Arg(400)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_MajorityExact)->Arg(10)->Arg(100)->Arg(200)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_PottsMaxMarginals)->Arg(10)->Arg(30)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace chaintag
BENCHMARK_MAIN();
