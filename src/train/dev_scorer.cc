#include "train/dev_scorer.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "chaintag/communicator.h"
#include "chaintag/eval.h"
#include "decode/latent.h"
#include "decode/second_order.h"
#include "features/featurizer.h"
#include "model/parameters.h"
#include "train/parallel.h"

namespace chaintag::train_internal {

DevScorer::DevScorer(const TrainingData& data, const TransitionMask& mask, int threads,
                     const LatentLayout* latent)
    : data_(data), mask_(mask), workers_(std::max(1, threads)) {
  if (IsDistributed(data.ranks)) {
    num_ranks_ = data.ranks->size();
    rank_ = data.ranks->rank();
  }
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
    // Every rank checks every sentence (so errors agree) but featurizes only its own.
    if (static_cast<int>(gold_.size() % num_ranks_) == rank_) {
      featurized_.emplace_back();
      featurizer.Featurize(sentence, data_.attributes, &featurized_.back());
    }
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

// Over ranks: every rank's decoded label ids, so each holds all of predicted_ids_. Each rank sends
// a status byte, then the int32 ids of its sentences in order; a failure on any rank fails all.
absl::Status DevScorer::ExchangePredictions(const absl::Status& mine) {
  std::string bytes(1, mine.ok() ? '\0' : '\1');
  if (mine.ok()) {
    for (size_t i = rank_; i < gold_.size(); i += num_ranks_) {
      for (int id : predicted_ids_[i]) {
        const int32_t v = id;
        bytes.append(reinterpret_cast<const char*>(&v), sizeof(v));
      }
    }
  }
  const std::vector<std::string> all = data_.ranks->AllGather(bytes);
  if (!mine.ok()) return mine;
  for (int r = 0; r < num_ranks_; ++r) {
    if (all[r].empty() || all[r][0] != '\0') {
      return absl::InternalError(absl::StrCat("dev scoring failed on MPI rank ", r));
    }
    if (r == rank_) continue;
    size_t at = 1;
    for (size_t i = r; i < gold_.size(); i += num_ranks_) {
      std::vector<int>& ids = predicted_ids_[i];
      ids.resize(gold_[i].size());
      if (at + ids.size() * sizeof(int32_t) > all[r].size()) {
        return absl::InternalError(absl::StrCat("dev scoring: MPI rank ", r, " sent too few ids"));
      }
      for (int& id : ids) {
        int32_t v;
        std::memcpy(&v, all[r].data() + at, sizeof(v));
        at += sizeof(v);
        id = v;
      }
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<std::pair<double, std::string>> DevScorer::Score(absl::Span<const double> w) {
  const int num_sentences = static_cast<int>(featurized_.size());
  predicted_ids_.resize(gold_.size());
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
        predicted_ids_[Global(i)] = std::move(ldi->solutions[0].labels);
        continue;
      }
      ApplyTransitionMask(mask_, &worker.lattice);
      absl::StatusOr<Labeling> best = ViterbiDecode(worker.lattice, &worker.scratch);
      if (!best.ok()) {
        status[k] = best.status();
        return;
      }
      predicted_ids_[Global(i)] = std::move(best->labels);
    }
  };
  RunOnThreads(num_workers, run);
  absl::Status decoded = FirstError(status);
  if (num_ranks_ > 1) decoded = ExchangePredictions(decoded);
  if (!decoded.ok()) return decoded;
  Evaluator evaluator(eval_labels_);
  for (size_t i = 0; i < gold_.size(); ++i) {
    if (absl::Status s = evaluator.AddIds(gold_[i], predicted_ids_[i]); !s.ok()) return s;
  }
  const EvalReport report = evaluator.Report();
  if (report.has_chunks) return std::make_pair(report.overall.f1, std::string("F1"));
  return std::make_pair(report.accuracy, std::string("accuracy"));
}

}  // namespace chaintag::train_internal
