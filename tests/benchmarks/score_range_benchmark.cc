// Binding score ranges on a trained model's lattices against Viterbi on the same lattices (issue
// 32: within 20x Viterbi; second-order ranges served). Lattices are built once; each iteration
// decodes every sentence of the corpus.
//   score_range_benchmark --model=MODEL --corpus=FILE [--format=conll|conllu]
//       [--near=1 --far=3 | --range=A..B] [benchmark flags]
// BM_ScoreRange asks each sentence for the best labeling scoring in [V - far, V - near] around its
// Viterbi score V (or in the fixed range A..B) with the CLI's defaults (resolution 0.001, 256
// states, 512 MB) and counts the statuses; items_per_second = tokens/s for both.
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "benchmark/benchmark.h"
#include "chaintag/corpus.h"
#include "chaintag/decode.h"
#include "chaintag/model.h"
#include "decode/aux_dp.h"

namespace chaintag {
namespace {

std::vector<Lattice> g_lattices;
std::vector<double> g_viterbi;  // each lattice's best score
int64_t g_tokens = 0;
double g_near = 1, g_far = 3;
bool g_fixed = false;
double g_lower = 0, g_upper = 0;

void BM_Viterbi(benchmark::State& state) {
  ViterbiScratch scratch;
  for (auto _ : state) {
    for (const Lattice& lattice : g_lattices) {
      benchmark::DoNotOptimize(ViterbiDecode(lattice, &scratch));
    }
  }
  state.SetItemsProcessed(state.iterations() * g_tokens);
}

void BM_ScoreRange(benchmark::State& state) {
  int64_t ok = 0, infeasible = 0, too_large = 0;
  for (auto _ : state) {
    ok = infeasible = too_large = 0;
    for (size_t i = 0; i < g_lattices.size(); ++i) {
      const double lower = g_fixed ? g_lower : g_viterbi[i] - g_far;
      const double upper = g_fixed ? g_upper : g_viterbi[i] - g_near;
      double used = 0;
      auto got =
          ScoreRangeDecode(g_lattices[i], lower, upper, 0.001, {}, &used, 256, int64_t{512} << 20);
      if (got.ok()) {
        ++ok;
      } else if (IsInfeasible(got.status())) {
        ++infeasible;
      } else {
        ++too_large;
      }
      benchmark::DoNotOptimize(got);
    }
  }
  state.counters["ok"] = static_cast<double>(ok);
  state.counters["infeasible"] = static_cast<double>(infeasible);
  state.counters["too_large"] = static_cast<double>(too_large);
  state.SetItemsProcessed(state.iterations() * g_tokens);
}

BENCHMARK(BM_Viterbi)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ScoreRange)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace chaintag

int main(int argc, char** argv) {
  std::string model_path, corpus_path, format = "conll";
  std::vector<char*> rest = {argv[0]};
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "--model=", 8) == 0) {
      model_path = argv[i] + 8;
    } else if (std::strncmp(argv[i], "--corpus=", 9) == 0) {
      corpus_path = argv[i] + 9;
    } else if (std::strncmp(argv[i], "--format=", 9) == 0) {
      format = argv[i] + 9;
    } else if (std::strncmp(argv[i], "--near=", 7) == 0) {
      chaintag::g_near = std::atof(argv[i] + 7);
    } else if (std::strncmp(argv[i], "--far=", 6) == 0) {
      chaintag::g_far = std::atof(argv[i] + 6);
    } else if (std::strncmp(argv[i], "--range=", 8) == 0) {
      const std::string range = argv[i] + 8;
      const size_t dots = range.find("..");
      if (dots == std::string::npos) {
        std::cerr << "score_range_benchmark: --range=" << range << ": expected A..B\n";
        return 2;
      }
      chaintag::g_fixed = true;
      chaintag::g_lower = std::atof(range.substr(0, dots).c_str());
      chaintag::g_upper = std::atof(range.substr(dots + 2).c_str());
    } else {
      rest.push_back(argv[i]);
    }
  }
  if (model_path.empty() || corpus_path.empty()) {
    std::cerr << "usage: score_range_benchmark --model=MODEL --corpus=FILE [--format=F] "
                 "[--near=X --far=Y | --range=A..B] [benchmark flags]\n";
    return 2;
  }
  auto model = chaintag::Model::Load(model_path);
  if (!model.ok()) {
    std::cerr << model.status().message() << "\n";
    return 1;
  }
  chaintag::ReaderOptions options;
  auto parsed = chaintag::ParseCorpusFormat(format);
  if (!parsed.ok()) {
    std::cerr << parsed.status().message() << "\n";
    return 2;
  }
  options.format = *parsed;
  options.label_column = model->input_options().label_column;
  options.conllu_label = model->input_options().conllu_label;
  auto corpus = chaintag::ReadCorpus({corpus_path}, options);
  if (!corpus.ok()) {
    std::cerr << corpus.status().message() << "\n";
    return 1;
  }
  chaintag::Tagger tagger(*model);
  for (const chaintag::Sentence& s : *corpus) {
    chaintag::Lattice lattice;
    if (absl::Status st = tagger.BuildLattice(s, &lattice); !st.ok()) {
      std::cerr << st.message() << "\n";
      return 1;
    }
    auto best = chaintag::ViterbiDecode(lattice);
    if (!best.ok()) continue;  // nothing feasible: no range question to ask
    chaintag::g_viterbi.push_back(best->score);
    chaintag::g_lattices.push_back(std::move(lattice));
    chaintag::g_tokens += s.size();
  }
  int rest_argc = static_cast<int>(rest.size());
  benchmark::Initialize(&rest_argc, rest.data());
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
