// Second-order decoding against first order on the same random lattices (N = 23 chunk labels and
// N = 50 Penn tags, M = 20): Viterbi over label pairs with exact pruning, and 3-best through the
// AuxDp engine, which carries the label two positions back as a state.
#include <random>

#include "benchmark/benchmark.h"
#include "chaintag/decode.h"
#include "chaintag/lattice.h"
#include "decode/aux_dp.h"

namespace chaintag {
namespace {

constexpr int kLength = 20;

// Unary scores spread like a trained tagger's (sd 4), transitions and trigrams smaller (sd 1).
Lattice RandomLattice(int n, bool second_order) {
  std::mt19937 rng(n);
  std::normal_distribution<double> unary(0.0, 4.0), chain(0.0, 1.0);
  Lattice lattice(kLength, n);
  for (int t = 0; t < kLength; ++t)
    for (double& x : lattice.unary_row(t)) x = unary(rng);
  for (int p = 0; p < n; ++p)
    for (int y = 0; y < n; ++y) lattice.transition(p, y) = chain(rng);
  if (second_order) {
    lattice.EnableSecondOrder();
    for (double& x : lattice.trigram_data()) x = chain(rng);
  }
  return lattice;
}

void BM_Viterbi(benchmark::State& state) {
  const Lattice lattice = RandomLattice(state.range(0), state.range(1) == 2);
  ViterbiScratch scratch;
  for (auto _ : state) benchmark::DoNotOptimize(ViterbiDecode(lattice, &scratch));
  state.SetItemsProcessed(state.iterations() * kLength);  // tokens
}

void BM_KBest3(benchmark::State& state) {
  const Lattice lattice = RandomLattice(state.range(0), state.range(1) == 2);
  AuxDpDecoder decoder;
  for (auto _ : state) benchmark::DoNotOptimize(KBestDecode(lattice, 3, {}, &decoder));
  state.SetItemsProcessed(state.iterations() * kLength);
}

// Args: labels, order.
BENCHMARK(BM_Viterbi)->Args({23, 1})->Args({23, 2})->Args({50, 1})->Args({50, 2});
BENCHMARK(BM_KBest3)->Args({23, 1})->Args({23, 2})->Args({50, 1})->Args({50, 2});

}  // namespace
}  // namespace chaintag

BENCHMARK_MAIN();
