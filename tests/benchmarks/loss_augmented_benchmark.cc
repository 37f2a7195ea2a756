// Loss-augmented decoding at CoNLL-2000 chunking sizes: 23 labels, sentences of M tokens with about
// M/2 gold chunks, random scores. Arguments: M.
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "benchmark/benchmark.h"
#include "chaintag/lattice.h"
#include "chaintag/train.h"
#include "train/losses.h"  // LossAugmentedScratch is complete only here

namespace chaintag {
namespace {

std::vector<std::string> ChunkLabels() {
  std::vector<std::string> labels = {"O"};
  for (const char* type :
       {"ADJP", "ADVP", "CONJP", "INTJ", "LST", "NP", "PP", "PRT", "SBAR", "UCP", "VP"}) {
    labels.push_back(std::string("B-") + type);
    labels.push_back(std::string("I-") + type);
  }
  return labels;
}

struct Problem {
  Lattice lattice;
  std::vector<int> gold;
};

Problem MakeProblem(int m, int n) {
  std::mt19937 rng(m);
  std::uniform_real_distribution<double> score(-1.0, 1.0);
  Problem p{Lattice(m, n), std::vector<int>(m, 0)};
  for (int t = 0; t < m; ++t)
    for (int y = 0; y < n; ++y) p.lattice.unary(t, y) = score(rng);
  for (int a = 0; a < n; ++a)
    for (int b = 0; b < n; ++b) p.lattice.transition(a, b) = score(rng);
  // Gold: chunks of 1-2 tokens of a random type, separated by O half of the time.
  std::uniform_int_distribution<int> type(0, 10), len(1, 2);
  for (int t = 0; t < m;) {
    const int k = 1 + 2 * type(rng);
    const int l = len(rng);
    for (int i = 0; i < l && t < m; ++i, ++t) p.gold[t] = i == 0 ? k : k + 1;
    if (t < m && std::bernoulli_distribution(0.5)(rng)) p.gold[t++] = 0;
  }
  return p;
}

void Run(benchmark::State& state, const char* loss_name, const char* level, LossScaling scaling) {
  const std::vector<std::string> labels = ChunkLabels();
  auto spec = ParseLossSpec(loss_name, level);
  auto loss = BindLoss(*spec, labels);
  const Problem p = MakeProblem(static_cast<int>(state.range(0)), static_cast<int>(labels.size()));
  LossAugmentedScratchPtr scratch = MakeLossAugmentedScratch();
  for (auto _ : state) {
    auto result = LossAugmentedDecode(p.lattice, p.gold, **loss, scaling, scratch.get());
    if (!result.ok()) {
      state.SkipWithError(std::string(result.status().message()).c_str());
      break;
    }
    benchmark::DoNotOptimize(result->value);
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}

void BM_MarginHamming(benchmark::State& s) { Run(s, "hamming", "token", LossScaling::kMargin); }
void BM_SlackHamming(benchmark::State& s) { Run(s, "hamming", "token", LossScaling::kSlack); }
void BM_MarginChunkF1(benchmark::State& s) { Run(s, "f1", "chunk", LossScaling::kMargin); }
void BM_SlackChunkF1(benchmark::State& s) { Run(s, "f1", "chunk", LossScaling::kSlack); }
void BM_SlackTokenF1(benchmark::State& s) { Run(s, "f1", "token", LossScaling::kSlack); }

BENCHMARK(BM_MarginHamming)->Arg(24)->Arg(40)->Arg(78);
BENCHMARK(BM_SlackHamming)->Arg(24)->Arg(40)->Arg(78);
BENCHMARK(BM_MarginChunkF1)->Arg(24)->Arg(40)->Arg(78);
BENCHMARK(BM_SlackChunkF1)->Arg(24)->Arg(40)->Arg(78);
BENCHMARK(BM_SlackTokenF1)->Arg(24)->Arg(40)->Arg(78);

}  // namespace
}  // namespace chaintag

BENCHMARK_MAIN();
