// Decoding time against sentence length M (N = 23 labels as in the CoNLL-2000 chunker, random
// scores) for plain Viterbi and the AuxDp modes. Counter R = product states summed over the DP
// runs of one decode, so the expected cost is O(M * N^2 * R) (tools/plot-decode-bench.py fits it).
#include <memory>
#include <random>
#include <vector>

#include "benchmark/benchmark.h"
#include "chaintag/decode.h"
#include "chaintag/lattice.h"
#include "decode/aux_dp.h"

namespace chaintag {
namespace {

constexpr int kLabels = 23;

Lattice RandomLattice(int m, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> unary(0.0, 2.0), trans(0.0, 1.0);
  Lattice lattice(m, kLabels);
  for (int t = 0; t < m; ++t)
    for (int y = 0; y < kLabels; ++y) lattice.unary(t, y) = unary(rng);
  for (int p = 0; p < kLabels; ++p)
    for (int y = 0; y < kLabels; ++y) lattice.transition(p, y) = trans(rng);
  return lattice;
}

void SetCounters(benchmark::State& state, int m, double r) {
  state.counters["M"] = m;
  state.counters["R"] = r;
  state.SetItemsProcessed(state.iterations());  // sentences
}

void BM_Viterbi(benchmark::State& state) {
  const int m = state.range(0);
  Lattice lattice = RandomLattice(m, m);
  ViterbiScratch scratch;
  for (auto _ : state) benchmark::DoNotOptimize(ViterbiDecode(lattice, &scratch));
  SetCounters(state, m, 1);
}

// One label-count constraint: labels {0, 1, 2} between 1 and 3 times (R = 4).
void BM_CountOne(benchmark::State& state) {
  const int m = state.range(0);
  Lattice lattice = RandomLattice(m, m);
  LabelCountStatistic count(kLabels, {0, 1, 2}, 1, 3);
  const Statistic* stats[] = {&count};
  AuxDpDecoder decoder;
  for (auto _ : state) benchmark::DoNotOptimize(ConstrainedDecode(lattice, stats, &decoder));
  SetCounters(state, m, count.NumStates());
}

// Two combined: the above and labels {3, 4} at most twice (R = 4 * 3).
void BM_CountTwo(benchmark::State& state) {
  const int m = state.range(0);
  Lattice lattice = RandomLattice(m, m);
  LabelCountStatistic a(kLabels, {0, 1, 2}, 1, 3);
  LabelCountStatistic b(kLabels, {3, 4}, 0, 2);
  const Statistic* stats[] = {&a, &b};
  AuxDpDecoder decoder;
  for (auto _ : state) benchmark::DoNotOptimize(ConstrainedDecode(lattice, stats, &decoder));
  SetCounters(state, m, a.NumStates() * b.NumStates());
}

// Best labeling scoring between (best - 3) and (best - 1), resolution 0.01 (coarsened if needed);
// two DP runs (max and min per state).
void BM_ScoreRange(benchmark::State& state) {
  const int m = state.range(0);
  Lattice lattice = RandomLattice(m, m);
  const double best = ViterbiDecode(lattice)->score;
  double used = 0.01;
  for (auto _ : state) {
    benchmark::DoNotOptimize(ScoreRangeDecode(lattice, best - 3, best - 1, 0.01, {}, &used));
  }
  auto stat = ScoreRangeStatistic::Create(lattice, best - 3, best - 1, used, 1 << 20);
  SetCounters(state, m, stat.ok() ? 2.0 * (*stat)->NumStates() : 0.0);
  state.counters["resolution"] = used;
}

void BM_KBest10(benchmark::State& state) {
  const int m = state.range(0);
  Lattice lattice = RandomLattice(m, m);
  AuxDpDecoder decoder;
  for (auto _ : state) benchmark::DoNotOptimize(KBestDecode(lattice, 10, {}, &decoder));
  SetCounters(state, m, 1);
}

// One labeling through the k-best path (forward pass, back-pointers, one path): its fixed cost.
void BM_KBest1(benchmark::State& state) {
  const int m = state.range(0);
  Lattice lattice = RandomLattice(m, m);
  AuxDpDecoder decoder;
  for (auto _ : state) benchmark::DoNotOptimize(KBestDecode(lattice, 1, {}, &decoder));
  SetCounters(state, m, 1);
}

// Diverse k-best with D = 2: run j has R = 3^(j-1), so R in total = sum_j 3^(j-1).
void DiverseK(benchmark::State& state, int k) {
  const int m = state.range(0);
  Lattice lattice = RandomLattice(m, m);
  AuxDpDecoder decoder;
  for (auto _ : state) benchmark::DoNotOptimize(DiverseKBest(lattice, k, 2, {}, nullptr, &decoder));
  double r = 0, p = 1;
  for (int j = 0; j < k; ++j, p *= 3) r += p;
  SetCounters(state, m, r);
}
void BM_Diverse3(benchmark::State& state) { DiverseK(state, 3); }
void BM_Diverse5(benchmark::State& state) { DiverseK(state, 5); }

#define CHAINTAG_LENGTHS ->Arg(5)->Arg(10)->Arg(20)->Arg(40)->Arg(60)->Arg(80)->Arg(100)
BENCHMARK(BM_Viterbi) CHAINTAG_LENGTHS;
BENCHMARK(BM_CountOne) CHAINTAG_LENGTHS;
BENCHMARK(BM_CountTwo) CHAINTAG_LENGTHS;
BENCHMARK(BM_ScoreRange) CHAINTAG_LENGTHS;
BENCHMARK(BM_KBest1) CHAINTAG_LENGTHS;
BENCHMARK(BM_KBest10) CHAINTAG_LENGTHS;
BENCHMARK(BM_Diverse3) CHAINTAG_LENGTHS;
BENCHMARK(BM_Diverse5) CHAINTAG_LENGTHS;

}  // namespace
}  // namespace chaintag

BENCHMARK_MAIN();
