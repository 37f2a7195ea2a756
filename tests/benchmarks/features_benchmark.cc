// Featurization throughput (tokens/s): Featurize with a dictionary built from the training split,
// and the string-only ForEachAttribute pass used to build dictionaries. Reads CoNLL-2000 and EWT
// from CHAINTAG_SHARED_CORPORA when present, otherwise synthetic sentences.
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "benchmark/benchmark.h"
#include "chaintag/corpus.h"
#include "chaintag/features.h"
#include "features/featurizer.h"

namespace chaintag {
namespace {

struct Data {
  std::vector<Sentence> train;
  std::vector<Sentence> test;
  std::string source;
  int64_t test_tokens = 0;
};

// Synthetic word/POS sentences with a Zipf-like vocabulary (used when corpora are absent).
std::vector<Sentence> Synthetic(int sentences, uint32_t seed) {
  std::mt19937 rng(seed);
  const std::vector<std::string> tags = {"NN", "VBZ", "DT", "JJ", "IN", "NNP", "RB", ",", "."};
  std::vector<Sentence> out;
  for (int i = 0; i < sentences; ++i) {
    Sentence s;
    s.columns.resize(2);
    const int n = 5 + static_cast<int>(rng() % 40);
    for (int t = 0; t < n; ++t) {
      const uint32_t r = rng() % 5000;
      const uint32_t w = r * r / 5000;  // skewed towards small ids
      std::string word(1, w % 7 == 0 ? 'W' : 'w');
      word.append(std::to_string(w));
      word.append(w % 3 ? "ing" : "s");
      s.columns[0].push_back(std::move(word));
      s.columns[1].push_back(tags[rng() % tags.size()]);
    }
    out.push_back(std::move(s));
  }
  return out;
}

const Data& LoadData(const std::string& task) {
  static std::map<std::string, Data>* cache = new std::map<std::string, Data>();
  auto it = cache->find(task);
  if (it != cache->end()) return it->second;
  Data& data = (*cache)[task];
  const std::string root = CHAINTAG_SHARED_CORPORA;
  ReaderOptions options;
  std::string train_path, test_path;
  if (task == "chunk") {
    options.format = CorpusFormat::kConll;
    train_path = root + "/conll2000/train.txt";
    test_path = root + "/conll2000/dev.txt";
  } else {
    options.format = CorpusFormat::kConllu;
    train_path = root + "/ud-english-ewt/en_ewt-ud-train.conllu";
    test_path = root + "/ud-english-ewt/en_ewt-ud-dev.conllu";
  }
  if (std::filesystem::exists(train_path) && std::filesystem::exists(test_path)) {
    absl::StatusOr<std::vector<Sentence>> train = ReadCorpus({train_path}, options);
    absl::StatusOr<std::vector<Sentence>> test = ReadCorpus({test_path}, options);
    if (train.ok() && test.ok()) {
      data.train = *std::move(train);
      data.test = *std::move(test);
      data.source = test_path.substr(root.size() + 1);
    }
  }
  if (data.test.empty()) {
    data.train = Synthetic(9000, 1);
    data.test = Synthetic(1800, 2);
    data.source = "synthetic";
  }
  for (const Sentence& s : data.test) data.test_tokens += s.size();
  return data;
}

// The preset's spec, or nothing after marking the benchmark skipped with the error.
std::optional<FeatureSpec> PresetOrSkip(benchmark::State& state, const std::string& preset) {
  absl::StatusOr<FeatureSpec> spec = FeatureSpec::Preset(preset);
  if (!spec.ok()) {
    state.SkipWithError(std::string(spec.status().message()).c_str());
    return std::nullopt;
  }
  return std::move(*spec);
}

void Featurize(benchmark::State& state, const std::string& preset, const std::string& task,
               bool value_cache) {
  const Data& data = LoadData(task);
  std::optional<FeatureSpec> spec = PresetOrSkip(state, preset);
  if (!spec) return;
  Featurizer featurizer(*spec);
  const AttributeDictionary dict = BuildAttributeDictionary(featurizer, data.train, 1);
  if (value_cache) featurizer.EnableValueCache(&dict);
  FeaturizedSentence out;
  int64_t attributes = 0;
  for (auto _ : state) {
    for (const Sentence& s : data.test) {
      featurizer.Featurize(s, dict, &out);
      attributes += static_cast<int64_t>(out.attributes.size());
      benchmark::DoNotOptimize(out.attributes.data());
    }
  }
  state.SetItemsProcessed(state.iterations() * data.test_tokens);
  state.counters["tokens"] = static_cast<double>(data.test_tokens);
  state.counters["dict_size"] = dict.size();
  state.counters["found_per_token"] =
      static_cast<double>(attributes) / (state.iterations() * data.test_tokens);
  state.SetLabel(data.source);
}

void BM_Featurize(benchmark::State& state, const std::string& preset, const std::string& task) {
  Featurize(state, preset, task, /*value_cache=*/false);
}

// With the per-value cache the Tagger enables (warm after the first iteration).
void BM_FeaturizeCached(benchmark::State& state, const std::string& preset,
                        const std::string& task) {
  Featurize(state, preset, task, /*value_cache=*/true);
}

void BM_ForEachAttribute(benchmark::State& state, const std::string& preset,
                         const std::string& task) {
  const Data& data = LoadData(task);
  std::optional<FeatureSpec> spec = PresetOrSkip(state, preset);
  if (!spec) return;
  Featurizer featurizer(*spec);
  int64_t bytes = 0;
  for (auto _ : state) {
    for (const Sentence& s : data.test) {
      featurizer.ForEachAttribute(s, [&](int, std::string_view a) { bytes += a.size(); });
    }
  }
  benchmark::DoNotOptimize(bytes);
  state.SetItemsProcessed(state.iterations() * data.test_tokens);
  state.SetLabel(data.source);
}

void BM_BuildDictionary(benchmark::State& state, const std::string& preset,
                        const std::string& task) {
  const Data& data = LoadData(task);
  std::optional<FeatureSpec> spec = PresetOrSkip(state, preset);
  if (!spec) return;
  Featurizer featurizer(*spec);
  int64_t tokens = 0;
  for (const Sentence& s : data.train) tokens += s.size();
  int size = 0;
  for (auto _ : state) size = BuildAttributeDictionary(featurizer, data.train, 1).size();
  state.SetItemsProcessed(state.iterations() * tokens);
  state.counters["dict_size"] = size;
  state.SetLabel("training split of " + data.source);
}

BENCHMARK_CAPTURE(BM_Featurize, chunk_conll, std::string("chunk-conll"), std::string("chunk"))
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Featurize, chunk, std::string("chunk"), std::string("chunk"))
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Featurize, pos, std::string("pos"), std::string("pos"))
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_FeaturizeCached, chunk, std::string("chunk"), std::string("chunk"))
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_FeaturizeCached, pos, std::string("pos"), std::string("pos"))
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_ForEachAttribute, chunk_conll, std::string("chunk-conll"),
                  std::string("chunk"))
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_ForEachAttribute, pos, std::string("pos"), std::string("pos"))
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_BuildDictionary, chunk_conll, std::string("chunk-conll"), std::string("chunk"))
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);
BENCHMARK_CAPTURE(BM_BuildDictionary, chunk, std::string("chunk"), std::string("chunk"))
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);
BENCHMARK_CAPTURE(BM_BuildDictionary, pos, std::string("pos"), std::string("pos"))
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);

}  // namespace
}  // namespace chaintag

BENCHMARK_MAIN();
