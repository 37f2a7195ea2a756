// Dev scoring during training, the way tagging will score: model scores, transition mask,
// Viterbi, then conlleval (chunk F1) or token accuracy. Over MPI ranks (data.ranks), rank r
// decodes dev sentences i = r (mod P) and the ranks exchange their label ids, so every rank
// scores the whole dev set exactly as one process does.
#ifndef CHAINTAG_SRC_TRAIN_DEV_SCORER_H_
#define CHAINTAG_SRC_TRAIN_DEV_SCORER_H_

#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "chaintag/corpus.h"
#include "chaintag/decode.h"
#include "chaintag/features.h"
#include "chaintag/lattice.h"
#include "decode/latent.h"
#include "features/featurizer.h"
#include "train/training_data.h"

namespace chaintag::train_internal {

// A dev sentence must have a gold label per token and the columns the templates read; errors
// name the file and line. Every trainer's dev scoring checks its sentences with this.
absl::Status CheckDevSentence(const Featurizer& featurizer, const Sentence& sentence);

class DevScorer {
 public:
  // With a non-empty `latent` layout (ldcrf), `data` is over its hidden states and dev sentences
  // are decoded by LDI bounded at kLatentDevPaths hidden paths.
  DevScorer(const TrainingData& data, const TransitionMask& mask, int threads,
            const LatentLayout* latent = nullptr);
  static constexpr int kLatentDevPaths = 10;

  // Featurizes `dev` with the training dictionary; errors name the file and line.
  absl::Status Prepare(const FeatureSpec& spec, const std::vector<Sentence>& dev);

  // Returns (score, metric name): chunk F1 when the labels are chunk tags, else accuracy.
  absl::StatusOr<std::pair<double, std::string>> Score(absl::Span<const double> w);

  // The dev sentences this rank decodes (all of them in one process).
  size_t sentences_decoded() const { return featurized_.size(); }

 private:
  // The dev-set index of this rank's i-th featurized sentence.
  size_t Global(int i) const { return static_cast<size_t>(i) * num_ranks_ + rank_; }
  // Gives every rank all of predicted_ids_ (their decode status `mine`); see the .cc.
  absl::Status ExchangePredictions(const absl::Status& mine);

  struct Worker {
    Lattice lattice;
    ViterbiScratch scratch;
    LatentScratch latent;
  };
  const TrainingData& data_;
  const TransitionMask& mask_;
  const LatentLayout* latent_ = nullptr;  // null unless ldcrf
  TransitionMask hidden_mask_;            // mask_ over hidden states
  int num_ranks_ = 1;
  int rank_ = 0;
  std::vector<FeaturizedSentence> featurized_;  // this rank's sentences: i = rank_ (mod num_ranks_)
  // The model's labels, then the dev labels it does not know (ids of the Evaluator).
  std::vector<std::string> eval_labels_;
  std::vector<std::vector<int>> gold_;  // gold label ids per prepared sentence (every rank's)
  std::vector<std::vector<int>> predicted_ids_;
  std::vector<Worker> workers_;
};

}  // namespace chaintag::train_internal

#endif  // CHAINTAG_SRC_TRAIN_DEV_SCORER_H_
