// LMSBN scores: observation scores once per sentence, history attributes per (position, history).
#include "model/lmsbn_scorer.h"

#include <algorithm>

#include "model/parameters.h"

namespace chaintag {

LmsbnScorer::LmsbnScorer(const Model& model) : model_(&model), history_(model.spec()) {
  history_.SetLabels(model.labels());
}

LmsbnScorer::~LmsbnScorer() = default;

void LmsbnScorer::Prepare(const Sentence& sentence, const Lattice& observations) {
  lattice_ = &observations;
  history_.Prepare(sentence);
  const int m = observations.size();
  states_.resize(m + 1);
  states_[0] = history_.Initial();
  prefix_.assign(m, -1);
  valid_ = 0;
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
  const absl::Span<const double> row = lattice_->unary_row(t);
  std::copy(row.begin(), row.end(), scores.begin());
  const Model::TaggingScores& w = model_->tagging_scores();
  for (const int32_t a : ids_) {
    const int32_t end = w.ranges[2 * a + 1];
    for (int32_t f = w.ranges[2 * a]; f < end; ++f)
      scores[w.entries[f].label] += w.entries[f].weight;
  }
}

}  // namespace chaintag
