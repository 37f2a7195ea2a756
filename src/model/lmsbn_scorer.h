// The scores of an LMSBN model for one sentence, for branch-and-bound (decode/branch_and_bound.h).
#ifndef CHAINTAG_MODEL_LMSBN_SCORER_H_
#define CHAINTAG_MODEL_LMSBN_SCORER_H_

#include <cstdint>
#include <vector>

#include "absl/types/span.h"
#include "chaintag/corpus.h"
#include "chaintag/features.h"
#include "chaintag/lattice.h"
#include "chaintag/model.h"
#include "decode/branch_and_bound.h"
#include "features/featurizer.h"

namespace chaintag {

// The scores of an LMSBN model for one sentence (a LeftToRightScorer): the observation templates
// are scored once per sentence (as a Tagger's lattice); the history attributes and the per-label
// bias per (position, history), from a history state kept per position of the current prefix.
class LmsbnScorer : public LeftToRightScorer {
 public:
  explicit LmsbnScorer(const Model& model);
  ~LmsbnScorer() override;
  // Takes the observation scores of `sentence` (Tagger::BuildLattice), which must outlive the
  // scorer's use.
  void Prepare(const Sentence& sentence, const Lattice& observations);
  int size() const override { return lattice_->size(); }
  int num_labels() const override { return model_->num_labels(); }
  void Scores(int t, absl::Span<const int> history, absl::Span<double> scores) override;

 private:
  const Model* model_;
  const Lattice* lattice_ = nullptr;
  HistoryFeaturizer history_;
  std::vector<HistoryFeaturizer::State> states_;  // states_[i]: after prefix_[0..i)
  std::vector<int> prefix_;
  int valid_ = 0;  // states_[0..valid_] match prefix_
  std::vector<int32_t> ids_;
};

}  // namespace chaintag

#endif  // CHAINTAG_MODEL_LMSBN_SCORER_H_
