// Tokens/s of sentence splitting + PTB tokenisation over EWT dev `# text = ` lines.
#include <fstream>
#include <string>
#include <vector>

#include "benchmark/benchmark.h"
#include "chaintag/text.h"

namespace chaintag {
namespace {

// The dev texts, five sentences per paragraph, paragraphs separated by blank lines, repeated
// to about 4 MB. Empty when the corpus is absent.
const std::string& RawText() {
  static const std::string* text = [] {
    auto* out = new std::string;
    std::ifstream in(std::string(CHAINTAG_SHARED_CORPORA) + "/ud-english-ewt/en_ewt-ud-dev.conllu");
    std::string line, once;
    int in_paragraph = 0;
    while (std::getline(in, line)) {
      if (line.rfind("# text = ", 0) != 0) continue;
      once += line.substr(9);
      once += ++in_paragraph % 5 == 0 ? "\n\n" : "\n";
    }
    while (!once.empty() && out->size() < (size_t{4} << 20)) *out += once;
    return out;
  }();
  return *text;
}

void Segment(benchmark::State& state, bool always_icu) {
  const std::string& text = RawText();
  if (text.empty()) {
    state.SkipWithError("EWT dev not found under CHAINTAG_SHARED_CORPORA");
    return;
  }
  TextOptions options;
  options.always_use_icu = always_icu;
  TextSegmenter segmenter(options);
  std::vector<Sentence> out;
  int64_t tokens = 0, sentences = 0;
  for (auto _ : state) {
    segmenter.Reset("ewt-dev");
    for (size_t i = 0; i < text.size(); i += 65536) {
      out.clear();
      if (!segmenter.Feed(std::string_view(text).substr(i, 65536), &out).ok()) {
        state.SkipWithError("segmentation failed");
        return;
      }
      for (const Sentence& s : out) tokens += s.size();
      sentences += out.size();
    }
    out.clear();
    (void)segmenter.Finish(&out);
    for (const Sentence& s : out) tokens += s.size();
    sentences += out.size();
  }
  state.SetItemsProcessed(tokens);
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * text.size());
  state.counters["tokens/sentence"] = static_cast<double>(tokens) / std::max<int64_t>(sentences, 1);
}

void BM_SegmentEwtDev(benchmark::State& state) { Segment(state, false); }
void BM_SegmentEwtDevAlwaysIcu(benchmark::State& state) { Segment(state, true); }
BENCHMARK(BM_SegmentEwtDev)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_SegmentEwtDevAlwaysIcu)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace chaintag

BENCHMARK_MAIN();
