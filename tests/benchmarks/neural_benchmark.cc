// The neural encoder's kernels at the default size (100-dim words, 30-dim characters with 50
// filters, 100 hidden units each way, 50 labels as XPOS): tagging one 20-token sentence (forward
// pass, chain scores, Viterbi) and one training step's gradient (forward, CRF forward-backward,
// backward). Counter items/s = tokens per second on one thread. Args: BiLSTM layers.
#include <random>
#include <string>
#include <vector>

#include "benchmark/benchmark.h"
#include "chaintag/decode.h"
#include "neural/encoder.h"
#include "neural_train/neural_trainer.h"

namespace chaintag {
namespace {

constexpr int kLabels = 50;
constexpr int kTokens = 20;

struct Fixture {
  NeuralChain chain;
  NeuralData data;
  std::vector<neural::EncodedSentence> encoded;
};

Fixture Make(int layers) {
  std::mt19937_64 rng(1);
  NeuralData data;
  const char* letters = "abcdefghijklmnopqrstuvwxyz";
  for (int s = 0; s < 64; ++s) {
    std::vector<std::string> tokens;
    std::vector<int> labels;
    for (int t = 0; t < kTokens; ++t) {
      std::string w;
      for (int k = 0, n = 2 + static_cast<int>(rng() % 8); k < n; ++k) w += letters[rng() % 26];
      tokens.push_back(w);
      labels.push_back(static_cast<int>(rng() % kLabels));
    }
    data.tokens.push_back(tokens);
    data.labels.push_back(labels);
  }
  NeuralTrainOptions o;
  o.encoder.layers = layers;
  o.epochs = 1;
  o.batch_size = 64;
  Fixture f{*TrainNeuralChain(data, nullptr, kLabels, o, nullptr), data, {}};
  for (const auto& s : data.tokens) f.encoded.push_back(f.chain.encoder.Encode(s));
  return f;
}

void BM_NeuralTagSentence(benchmark::State& state) {
  const Fixture f = Make(static_cast<int>(state.range(0)));
  Lattice lattice;
  ViterbiScratch scratch;
  size_t i = 0;
  for (auto _ : state) {
    const std::vector<std::string>& tokens = f.data.tokens[i++ % f.data.tokens.size()];
    f.chain.FillLattice(f.chain.encoder.Encode(tokens), nullptr, nullptr, {}, &lattice);
    auto best = ViterbiDecode(lattice, &scratch);
    benchmark::DoNotOptimize(best);
  }
  state.SetItemsProcessed(state.iterations() * kTokens);
}
BENCHMARK(BM_NeuralTagSentence)->Arg(1)->Arg(2);

void BM_NeuralTrainBatch(benchmark::State& state) {
  const Fixture f = Make(static_cast<int>(state.range(0)));
  NeuralTrainOptions o;
  o.encoder.layers = static_cast<int>(state.range(0));
  o.epochs = 1;
  o.batch_size = 64;
  for (auto _ : state) {
    // One epoch over 64 sentences as one batch: forward, CRF, backward and an Adam step.
    auto chain = TrainNeuralChain(f.data, nullptr, kLabels, o, nullptr);
    benchmark::DoNotOptimize(chain);
  }
  state.SetItemsProcessed(state.iterations() * 64 * kTokens);
}
BENCHMARK(BM_NeuralTrainBatch)->Arg(1)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace chaintag

BENCHMARK_MAIN();
