// Reading speed of the corpus readers on the EWT training file (CoNLL-U) and CoNLL-2000.
#include <filesystem>
#include <optional>
#include <string>

#include "benchmark/benchmark.h"
#include "chaintag/corpus.h"

namespace {

void ReadFile(benchmark::State& state, const std::string& relative, chaintag::CorpusFormat format) {
  const std::string path = std::string(CHAINTAG_SHARED_CORPORA) + "/" + relative;
  if (!std::filesystem::exists(path)) {
    state.SkipWithError(("corpus not found: " + path).c_str());
    return;
  }
  const int64_t bytes = static_cast<int64_t>(std::filesystem::file_size(path));
  chaintag::ReaderOptions options;
  options.format = format;
  int64_t tokens = 0;
  for (auto _ : state) {
    auto reader = chaintag::OpenSentenceReader(path, options);
    if (!reader.ok()) {
      state.SkipWithError(std::string(reader.status().message()).c_str());
      return;
    }
    while (true) {
      auto next = (*reader)->Next();
      if (!next.ok()) {
        state.SkipWithError(std::string(next.status().message()).c_str());
        return;
      }
      if (!next->has_value()) break;
      tokens += (*next)->size();
      benchmark::DoNotOptimize(**next);
    }
  }
  state.SetBytesProcessed(state.iterations() * bytes);
  state.counters["tokens/s"] =
      benchmark::Counter(static_cast<double>(tokens), benchmark::Counter::kIsRate);
}

void BM_ReadEwtTrainConllu(benchmark::State& state) {
  ReadFile(state, "ud-english-ewt/en_ewt-ud-train.conllu", chaintag::CorpusFormat::kConllu);
}
BENCHMARK(BM_ReadEwtTrainConllu)->Unit(benchmark::kMillisecond);

void BM_ReadConll2000Train(benchmark::State& state) {
  ReadFile(state, "conll2000/train.txt", chaintag::CorpusFormat::kConll);
}
BENCHMARK(BM_ReadConll2000Train)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
