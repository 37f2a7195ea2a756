// Tagging throughput of a trained model over a corpus, with and without featurization, at 1 and
// 2 threads. Used by tools/bench.sh:
//   tag_benchmark --model=MODEL --corpus=FILE [--format=conll|conllu] [benchmark flags]
// Reports items_per_second = tokens/s.
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "benchmark/benchmark.h"
#include "chaintag/corpus.h"
#include "chaintag/decode.h"
#include "chaintag/features.h"
#include "chaintag/model.h"
#include "features/featurizer.h"
#include "model/parameters.h"

namespace chaintag {
namespace {

std::unique_ptr<Model> g_model;
std::vector<Sentence> g_corpus;
std::vector<FeaturizedSentence> g_featurized;
int64_t g_tokens = 0;

// Featurize + score + Viterbi: what `chaintag tag` does per sentence.
void BM_TagWithFeaturization(benchmark::State& state) {
  Tagger tagger(*g_model);
  const size_t n = g_corpus.size();
  const size_t begin = n * state.thread_index() / state.threads();
  const size_t end = n * (state.thread_index() + 1) / state.threads();
  int64_t tokens = 0;
  for (auto _ : state) {
    for (size_t i = begin; i < end; ++i) {
      auto labeling = tagger.Tag(g_corpus[i]);
      benchmark::DoNotOptimize(labeling);
      tokens += g_corpus[i].size();
    }
  }
  state.SetItemsProcessed(tokens);
}

// Score + Viterbi from pre-computed attribute ids (the "without featurization" figure).
void BM_TagPrecomputedAttributes(benchmark::State& state) {
  const ModelParameters p = g_model->Parameters();
  Lattice lattice;
  ViterbiScratch scratch;
  const size_t n = g_featurized.size();
  const size_t begin = n * state.thread_index() / state.threads();
  const size_t end = n * (state.thread_index() + 1) / state.threads();
  int64_t tokens = 0;
  for (auto _ : state) {
    for (size_t i = begin; i < end; ++i) {
      p.Score(g_featurized[i], p.weights, &lattice);
      ApplyTransitionMask(g_model->transition_mask(), &lattice);
      auto labeling = ViterbiDecode(lattice, &scratch);
      benchmark::DoNotOptimize(labeling);
      tokens += g_featurized[i].size();
    }
  }
  state.SetItemsProcessed(tokens);
}

BENCHMARK(BM_TagWithFeaturization)
    ->Threads(1)
    ->Threads(2)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_TagPrecomputedAttributes)
    ->Threads(1)
    ->Threads(2)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace chaintag

int main(int argc, char** argv) {
  std::string model_path, corpus_path, format = "conll";
  std::vector<char*> rest = {argv[0]};
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "--model=", 8) == 0)
      model_path = argv[i] + 8;
    else if (std::strncmp(argv[i], "--corpus=", 9) == 0)
      corpus_path = argv[i] + 9;
    else if (std::strncmp(argv[i], "--format=", 9) == 0)
      format = argv[i] + 9;
    else
      rest.push_back(argv[i]);
  }
  if (model_path.empty() || corpus_path.empty()) {
    std::cerr
        << "usage: tag_benchmark --model=MODEL --corpus=FILE [--format=F] [benchmark flags]\n";
    return 2;
  }
  auto model = chaintag::Model::Load(model_path);
  if (!model.ok()) {
    std::cerr << model.status().message() << "\n";
    return 1;
  }
  chaintag::g_model = std::make_unique<chaintag::Model>(std::move(*model));
  chaintag::ReaderOptions options;
  auto parsed = chaintag::ParseCorpusFormat(format);
  if (!parsed.ok()) {
    std::cerr << parsed.status().message() << "\n";
    return 2;
  }
  options.format = *parsed;
  auto corpus = chaintag::ReadCorpus({corpus_path}, options);
  if (!corpus.ok()) {
    std::cerr << corpus.status().message() << "\n";
    return 1;
  }
  chaintag::g_corpus = std::move(*corpus);
  chaintag::Featurizer featurizer(chaintag::g_model->spec());
  for (const auto& s : chaintag::g_corpus) {
    chaintag::g_featurized.emplace_back();
    featurizer.Featurize(s, chaintag::g_model->attributes(), &chaintag::g_featurized.back());
    chaintag::g_tokens += s.size();
  }
  int rest_argc = static_cast<int>(rest.size());
  benchmark::Initialize(&rest_argc, rest.data());
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
