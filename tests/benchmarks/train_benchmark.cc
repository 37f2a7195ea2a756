// CRF training on CoNLL-2000 with the chunk-conll preset (the figures issue 3 asks for).
//   train_benchmark --benchmark_filter=CrfObjective     one objective+gradient evaluation
//   train_benchmark --benchmark_filter=TrainConll2000   full L-BFGS training (c2 = 1), dev F1
// Needs ../shared/corpora; skips with a message when it is absent.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "chaintag/corpus.h"
#include "chaintag/features.h"
#include "chaintag/train.h"
#include "train/crf_objective.h"
#include "train/training_data.h"

namespace chaintag {
namespace {

const std::string kCorpora = CHAINTAG_SHARED_CORPORA;

const std::vector<Sentence>* Corpus(const std::string& name) {
  const std::string path = kCorpora + "/conll2000/" + name;
  if (!std::filesystem::exists(path)) return nullptr;
  ReaderOptions options;
  absl::StatusOr<std::vector<Sentence>> corpus = ReadCorpus({path}, options);
  if (!corpus.ok()) return nullptr;
  return new std::vector<Sentence>(std::move(*corpus));
}

void BM_CrfObjective(benchmark::State& state) {
  static const std::vector<Sentence>* train = Corpus("train.txt");
  if (train == nullptr) {
    state.SkipWithError("CoNLL-2000 not found under CHAINTAG_SHARED_CORPORA");
    return;
  }
  static const train_internal::TrainingData* data = []() -> train_internal::TrainingData* {
    absl::StatusOr<FeatureSpec> spec = FeatureSpec::Preset("chunk-conll");
    if (!spec.ok()) return nullptr;
    auto d = train_internal::BuildTrainingData(*spec, *train, 1);
    if (!d.ok()) {
      fprintf(stderr, "%s\n", std::string(d.status().message()).c_str());
      return nullptr;
    }
    return new train_internal::TrainingData(std::move(*d));
  }();
  if (data == nullptr) {
    state.SkipWithError("cannot build the CoNLL-2000 training data");
    return;
  }
  train_internal::CrfObjective objective(*data, 1.0, static_cast<int>(state.range(0)));
  std::vector<double> w(objective.size(), 0.01), g(objective.size());
  for (auto _ : state) benchmark::DoNotOptimize(objective.Evaluate(w, absl::MakeSpan(g)));
  state.counters["features"] = static_cast<double>(objective.size());
  state.counters["tokens/s"] = benchmark::Counter(static_cast<double>(data->num_positions()),
                                                  benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_CrfObjective)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_TrainConll2000(benchmark::State& state) {
  const std::vector<Sentence>* train = Corpus("train.txt");
  const std::vector<Sentence>* dev = Corpus("dev.txt");
  if (train == nullptr || dev == nullptr) {
    state.SkipWithError("CoNLL-2000 not found under CHAINTAG_SHARED_CORPORA");
    return;
  }
  TrainOptions options;
  options.threads = static_cast<int>(state.range(0));
  struct LastIteration : TrainObserver {
    void OnIteration(const TrainProgress& p) override {
      iterations = p.iteration;
      dev_f1 = p.dev_score.value_or(0);
    }
    int iterations = 0;
    double dev_f1 = 0;
  } last;
  for (auto _ : state) {
    absl::StatusOr<Model> model =
        Train(options, *FeatureSpec::Preset("chunk-conll"), *train, dev, &last);
    if (!model.ok()) {
      state.SkipWithError(std::string(model.status().message()).c_str());
      return;
    }
    state.counters["features"] = static_cast<double>(model->num_state_features());
    state.counters["best_dev_f1"] = std::stod(model->Metadata("dev_score"));
  }
  state.counters["iterations"] = last.iterations;
  state.counters["last_dev_f1"] = last.dev_f1;
}
BENCHMARK(BM_TrainConll2000)->Arg(2)->Iterations(1)->Unit(benchmark::kSecond)->UseRealTime();

}  // namespace
}  // namespace chaintag

BENCHMARK_MAIN();
