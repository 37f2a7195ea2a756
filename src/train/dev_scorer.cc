#include "train/dev_scorer.h"

#include <algorithm>
#include <cstdint>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "chaintag/eval.h"
#include "decode/second_order.h"
#include "train/parallel.h"

namespace chaintag::train_internal {

DevScorer::DevScorer(const TrainingData& data, const TransitionMask& mask, int threads,
                     const LatentLayout* latent)
    : data_(data), mask_(mask), workers_(std::max(1, threads)) {
  if (latent != nullptr && !latent->empty()) {
    latent_ = latent;
    hidden_mask_ = ExpandTransitionMask(mask, *latent);
  }
}

absl::Status CheckDevSentence(const Featurizer& featurizer, const Sentence& sentence) {
  if (static_cast<int>(sentence.labels.size()) != sentence.size()) {
    return ErrorAt(sentence, 0,
                   absl::StrCat("dev data: expected a gold label for each of the ", sentence.size(),
                                " tokens, found ", sentence.labels.size(), " labels"));
  }
  return featurizer.CheckColumns(sentence);  // its message names the file and line itself
}

absl::Status DevScorer::Prepare(const FeatureSpec& spec, const std::vector<Sentence>& dev) {
  Featurizer featurizer(spec);
  // Gold labels become ids once here, so scoring each pass compares ids only.
  eval_labels_ = data_.labels;
  absl::flat_hash_map<std::string, int> ids;
  for (size_t y = 0; y < eval_labels_.size(); ++y) ids.emplace(eval_labels_[y], y);
  for (const Sentence& sentence : dev) {
    if (sentence.size() == 0) continue;
    if (absl::Status status = CheckDevSentence(featurizer, sentence); !status.ok()) return status;
    featurized_.emplace_back();
    featurizer.Featurize(sentence, data_.attributes, &featurized_.back());
    std::vector<int>& gold = gold_.emplace_back();
    gold.reserve(sentence.labels.size());
    for (const std::string& label : sentence.labels) {
      auto [it, inserted] = ids.try_emplace(label, static_cast<int>(eval_labels_.size()));
      if (inserted) eval_labels_.push_back(label);
      gold.push_back(it->second);
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<std::pair<double, std::string>> DevScorer::Score(absl::Span<const double> w) {
  const int num_sentences = static_cast<int>(featurized_.size());
  predicted_ids_.resize(num_sentences);
  // Decoding runs on contiguous slices in parallel; counting stays sequential and ordered.
  const int num_workers = std::min<int>(workers_.size(), std::max(1, num_sentences));
  std::vector<absl::Status> status(num_workers);
  // Second order: Viterbi's pruning bounds of the trigram weights, once per evaluation.
  const ModelParameters& params = data_.parameters;
  const std::vector<double> bounds =
      params.order == 2
          ? decode_internal::TrigramBounds(w.data() + params.trigram_offset(), params.num_labels)
          : std::vector<double>();
  auto run = [&](int k) {
    Worker& worker = workers_[k];
    const int begin = static_cast<int>(int64_t{num_sentences} * k / num_workers);
    const int end = static_cast<int>(int64_t{num_sentences} * (k + 1) / num_workers);
    for (int i = begin; i < end; ++i) {
      params.Score(featurized_[i], w, &worker.lattice, bounds.empty() ? nullptr : bounds.data());
      if (latent_ != nullptr) {
        ApplyTransitionMask(hidden_mask_, &worker.lattice);
        LdiOptions options;
        options.max_paths = kLatentDevPaths;
        absl::StatusOr<LatentDecodeResult> ldi =
            LdiDecode(worker.lattice, *latent_, options, &worker.latent);
        if (!ldi.ok()) {
          status[k] = ldi.status();
          return;
        }
        predicted_ids_[i] = std::move(ldi->solutions[0].labels);
        continue;
      }
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
  Evaluator evaluator(eval_labels_);
  for (int i = 0; i < num_sentences; ++i) {
    if (absl::Status s = evaluator.AddIds(gold_[i], predicted_ids_[i]); !s.ok()) return s;
  }
  const EvalReport report = evaluator.Report();
  if (report.has_chunks) return std::make_pair(report.overall.f1, std::string("F1"));
  return std::make_pair(report.accuracy, std::string("accuracy"));
}

}  // namespace chaintag::train_internal
