// LMSBN scores: observation scores once per sentence, history attributes per (position, history).
#include <algorithm>
#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"
#include "chaintag/model.h"

namespace chaintag {

LmsbnScorer::LmsbnScorer(const Model& model)
    : model_(&model), tagger_(std::make_unique<Tagger>(model)), history_(model.spec()) {
  history_.SetLabels(model.labels());
}

LmsbnScorer::~LmsbnScorer() = default;

absl::Status LmsbnScorer::Prepare(const Sentence& sentence) {
  if (absl::Status s = tagger_->BuildLattice(sentence, &lattice_); !s.ok()) return s;
  history_.Prepare(sentence);
  const int m = lattice_.size();
  states_.resize(m + 1);
  states_[0] = history_.Initial();
  prefix_.assign(m, -1);
  valid_ = 0;
  return absl::OkStatus();
}

void LmsbnScorer::Scores(int t, absl::Span<const int> history, absl::Span<double> scores) {
  // Keep the states of the common prefix; recompute the rest (depth-first search changes only
  // the last few labels between calls).
  int same = 0;
  const int limit = std::min(valid_, t);
  while (same < limit && prefix_[same] == history[same]) ++same;
  for (int i = same; i < t; ++i) {
    states_[i + 1] = states_[i];
    history_.Advance(history[i], &states_[i + 1]);
    prefix_[i] = history[i];
  }
  valid_ = t;
  ids_.clear();
  history_.FindIds(t, history, states_[t], model_->attributes(), &ids_);
  const absl::Span<const double> row = lattice_.unary_row(t);
  std::copy(row.begin(), row.end(), scores.begin());
  const Model::TaggingScores& w = model_->tagging_scores();
  for (const int32_t a : ids_) {
    const int32_t end = w.ranges[2 * a + 1];
    for (int32_t f = w.ranges[2 * a]; f < end; ++f)
      scores[w.entries[f].label] += w.entries[f].weight;
  }
}

absl::StatusOr<BranchAndBoundResult> Tagger::SearchLeftToRight(
    const Sentence& sentence, const BranchAndBoundOptions& options) {
  if (model_->family() != ModelFamily::kLmsbn) {
    return absl::FailedPreconditionError(
        "branch-and-bound search: expected an lmsbn model, found a linear-chain model");
  }
  if (lmsbn_ == nullptr) lmsbn_ = std::make_unique<LmsbnScorer>(*model_);
  if (absl::Status s = lmsbn_->Prepare(sentence); !s.ok()) return s;
  absl::StatusOr<BranchAndBoundResult> result = BranchAndBoundDecode(*lmsbn_, options);
  if (!result.ok() && !IsInfeasible(result.status())) {
    return absl::Status(result.status().code(),
                        absl::StrCat(Location(sentence), ": ", result.status().message()));
  }
  return result;
}

}  // namespace chaintag
