// chaintag clusters [--clusters C] [--min-count K] [--max-words N] [--pretokenized] [--threads N]
//   [-o FILE] FILE...
// Brown clustering of unlabeled text, written as a paths file (BITSTRING<TAB>WORD<TAB>COUNT) for
// train --clusters and the cluster() template function.
#include "chaintag/clusters.h"

#include <chrono>
#include <iostream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "cli/cli.h"
#include "cli/commands.h"

namespace chaintag::cli {

int RunClusters(const std::vector<std::string>& args) {
  const std::string cmd = "clusters";
  po::options_description options("clusters options");
  options.add_options()(
      "clusters,c", po::value<int>()->default_value(1000),
      absl::StrCat("clusters kept active while words enter (1 to ", BrownOptions::kMaxClusters,
                   "): the leaves of the cluster tree")
          .c_str())("min-count", po::value<int64_t>()->default_value(1),
                    "leave out words seen fewer times (bigrams across them are not counted)")(
      "max-words", po::value<int64_t>()->default_value(BrownOptions::kDefaultMaxWords),
      "cluster at most this many words, the most frequent (the work grows as words x clusters^2; "
      "the others are left out as --min-count leaves words out)")(
      "pretokenized", po::bool_switch(),
      "input is already tokenised: split lines at whitespace instead of running the tokeniser")(
      "threads", po::value<int>()->default_value(1),
      "worker threads for the loss-table updates (0: every core); the output does not depend on "
      "it")("output,o", po::value<std::string>()->default_value("-"),
            "paths file to write (default: standard output)");
  po::variables_map vm;
  if (int rc = ParseOrExit(cmd,
                           "[--clusters C] [--min-count K] [--max-words N] [--pretokenized] [-o "
                           "FILE] FILE...",
                           options, args, &vm);
      rc >= 0) {
    return rc;
  }
  BrownOptions brown;
  brown.clusters = vm["clusters"].as<int>();
  brown.min_count = vm["min-count"].as<int64_t>();
  brown.max_words = vm["max-words"].as<int64_t>();
  if (brown.clusters < 1 || brown.clusters > BrownOptions::kMaxClusters) {
    return UsageError(cmd, absl::StrCat("--clusters: expected 1 to ", BrownOptions::kMaxClusters,
                                        ", found ", brown.clusters));
  }
  if (brown.min_count < 1) {
    return UsageError(cmd,
                      absl::StrCat("--min-count: expected at least 1, found ", brown.min_count));
  }
  if (brown.max_words < 1) {
    return UsageError(cmd,
                      absl::StrCat("--max-words: expected at least 1, found ", brown.max_words));
  }
  absl::StatusOr<int> threads = ThreadsFrom(cmd, vm["threads"].as<int>());
  if (!threads.ok()) return UsageError(cmd, std::string(threads.status().message()));
  brown.threads = *threads;
  const std::vector<std::string> files = InputFiles(vm);
  const std::string output = vm["output"].as<std::string>();
  if (absl::Status s = CheckOutputIsNotAnInput(output, FilesRead(vm, {})); !s.ok()) {
    return UsageError(cmd, std::string(s.message()));
  }
  if (output != "-") {
    if (absl::Status s = CheckWritable(output); !s.ok()) return Fail(cmd, s);
  }

  const auto start = std::chrono::steady_clock::now();
  auto seconds = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  BrownCorpus corpus;
  for (const std::string& file : files) {
    if (absl::Status s = corpus.AddTextFile(file, vm["pretokenized"].as<bool>()); !s.ok()) {
      return Fail(cmd, s);
    }
  }
  std::cerr << absl::StrFormat("chaintag clusters: read %d tokens, %d distinct words (%.1fs)\n",
                               corpus.tokens(), corpus.word_types(), seconds());
  const BrownVocabulary vocabulary = BrownVocabularyOf(corpus, brown);
  if (vocabulary.words < vocabulary.words_at_min_count) {
    // Steps of O(V C^2) a second, measured: 51,698 words x 256^2 in 485 s (models/MODELS.md).
    constexpr double kStepsPerSecond = 7e6;
    const double c2 = static_cast<double>(brown.clusters) * brown.clusters;
    auto duration = [&](int64_t words) {
      const double seconds = words * c2 / kStepsPerSecond;
      return seconds < 120    ? absl::StrFormat("%.0f s", seconds)
             : seconds < 7200 ? absl::StrFormat("%.0f min", seconds / 60)
                              : absl::StrFormat("%.0f hours", seconds / 3600);
    };
    std::cerr << absl::StrFormat(
        "chaintag clusters: warning: %d words are seen at least %d times; clustering the %d most "
        "frequent (--max-words), about %s at the measured ~7e6 steps/s (words x clusters^2); all "
        "of them would take about %s: raise --max-words or --min-count to choose\n",
        vocabulary.words_at_min_count, brown.min_count, vocabulary.words,
        duration(vocabulary.words), duration(vocabulary.words_at_min_count));
  }
  absl::StatusOr<WordClusters> clusters = BrownCluster(corpus, brown, [&](const BrownProgress& p) {
    if (p.finishing) {
      std::cerr << absl::StrFormat(
          "chaintag clusters: building the hierarchy, %d clusters "
          "left (%.1fs)\n",
          p.active_clusters, seconds());
    } else {
      std::cerr << absl::StrFormat(
          "chaintag clusters: %d of %d words added, %d clusters active (%.1fs)\n", p.words_added,
          p.vocabulary, p.active_clusters, seconds());
    }
  });
  if (!clusters.ok()) return Fail(cmd, clusters.status());
  auto out = Output::Open(output);
  if (!out.ok()) return Fail(cmd, out.status());
  (*out)->stream() << clusters->Serialize();
  if (absl::Status s = (*out)->Commit(); !s.ok()) return Fail(cmd, s);
  std::cerr << absl::StrFormat("chaintag clusters: %d words in %d clusters (%.1fs)\n",
                               clusters->num_words(), clusters->num_clusters(), seconds());
  return output == "-" ? FinishStdout(cmd) : kExitOk;
}

}  // namespace chaintag::cli
