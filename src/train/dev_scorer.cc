#include "train/dev_scorer.h"

#include <algorithm>
#include <cstdint>

#include "absl/strings/str_cat.h"
#include "chaintag/eval.h"
#include "train/parallel.h"

namespace chaintag::train_internal {

DevScorer::DevScorer(const TrainingData& data, const TransitionMask& mask, int threads)
    : data_(data), mask_(mask), workers_(std::max(1, threads)) {}

absl::Status DevScorer::Prepare(const FeatureSpec& spec, const std::vector<Sentence>& dev) {
  Featurizer featurizer(spec);
  for (const Sentence& sentence : dev) {
    if (sentence.size() == 0) continue;
    const int64_t line = sentence.token_lines.empty() ? 0 : sentence.token_lines[0];
    if (static_cast<int>(sentence.labels.size()) != sentence.size()) {
      return absl::InvalidArgumentError(absl::StrCat(
          sentence.file, ":", line, ": dev data: expected a gold label for each of the ",
          sentence.size(), " tokens, found ", sentence.labels.size(), " labels"));
    }
    if (absl::Status status = featurizer.CheckColumns(sentence); !status.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat(sentence.file, ":", line, ": ", status.message()));
    }
    featurized_.emplace_back();
    featurizer.Featurize(sentence, data_.attributes, &featurized_.back());
    gold_.push_back(&sentence.labels);
  }
  return absl::OkStatus();
}

absl::StatusOr<std::pair<double, std::string>> DevScorer::Score(absl::Span<const double> w) {
  const int num_sentences = static_cast<int>(featurized_.size());
  predicted_ids_.resize(num_sentences);
  // Decoding runs on contiguous slices in parallel; counting stays sequential and ordered.
  const int num_workers = std::min<int>(workers_.size(), std::max(1, num_sentences));
  std::vector<absl::Status> status(num_workers);
  auto run = [&](int k) {
    Worker& worker = workers_[k];
    const int begin = static_cast<int>(int64_t{num_sentences} * k / num_workers);
    const int end = static_cast<int>(int64_t{num_sentences} * (k + 1) / num_workers);
    for (int i = begin; i < end; ++i) {
      data_.parameters.Score(featurized_[i], w, &worker.lattice);
      ApplyTransitionMask(mask_, &worker.lattice);
      absl::StatusOr<Labeling> best = ViterbiDecode(worker.lattice, &worker.scratch);
      if (!best.ok()) {
        status[k] = best.status();
        return;
      }
      predicted_ids_[i] = std::move(best->labels);
    }
  };
  RunOnThreads(num_workers, run);
  if (absl::Status s = FirstError(status); !s.ok()) return s;
  Evaluator evaluator;
  std::vector<std::string> predicted;
  for (int i = 0; i < num_sentences; ++i) {
    predicted.clear();
    for (int y : predicted_ids_[i]) predicted.push_back(data_.labels[y]);
    if (absl::Status s = evaluator.Add(*gold_[i], predicted); !s.ok()) return s;
  }
  const EvalReport report = evaluator.Report();
  if (report.has_chunks) return std::make_pair(report.overall.f1, std::string("F1"));
  return std::make_pair(report.accuracy, std::string("accuracy"));
}

}  // namespace chaintag::train_internal
