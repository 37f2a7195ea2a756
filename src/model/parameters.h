// The model's weights in the trainers' layout (ModelParameters) and in the tagging layout
// (Model::TaggingScores): internal to the library, trainers and tests.
#ifndef CHAINTAG_MODEL_PARAMETERS_H_
#define CHAINTAG_MODEL_PARAMETERS_H_

#include <cstdint>
#include <vector>

#include "absl/types/span.h"
#include "chaintag/features.h"
#include "chaintag/lattice.h"
#include "chaintag/model.h"
#include "features/featurizer.h"

namespace chaintag {

// Weights of a first-order linear-chain model in the trainers' layout. State features are the
// (attribute, label) pairs observed in training (as in CRFsuite), stored per attribute in CSR
// form; then come the label bigram transitions and the sentence start/end weights. The trainers
// optimise `weights` in place, so this layout is the parameter vector of every objective:
//   weights[0 .. F)                     state features, F = feature_labels.size()
//   weights[F .. F + N*N)               transition(prev, y) at F + prev*N + y
//   weights[F + N*N .. F + N*N + N)     start(y)
//   weights[F + N*N + N .. F + N*N + 2N) end(y)
// A Model does not keep this form (see Model::Parameters).
struct ModelParameters {
  int num_labels = 0;
  // 1: first-order chain. 2: second order, with (N+1) x N x N trigram weights after the end
  // weights (trigram(a, b, c) for y_{t-2} = a, y_{t-1} = b, y_t = c; a = N before the sentence).
  int order = 1;
  // A + 1 entries: features of attribute a are [off[a], off[a+1]).
  std::vector<int32_t> attribute_offsets;
  std::vector<int32_t> feature_labels;  // F entries: label of each state feature
  std::vector<double> weights;          // F + N*N + 2N (+ (N+1)*N*N for order 2) entries

  int num_attributes() const {
    return attribute_offsets.empty() ? 0 : static_cast<int>(attribute_offsets.size()) - 1;
  }
  int64_t num_state_features() const { return static_cast<int64_t>(feature_labels.size()); }
  int64_t transition_offset() const { return num_state_features(); }
  int64_t start_offset() const { return transition_offset() + int64_t{num_labels} * num_labels; }
  int64_t end_offset() const { return start_offset() + num_labels; }
  int64_t trigram_offset() const { return end_offset() + num_labels; }
  int64_t num_trigrams() const {
    return order == 2 ? int64_t{num_labels + 1} * num_labels * num_labels : 0;
  }
  int64_t size() const { return trigram_offset() + num_trigrams(); }
  // Copies the transition, start and end weights of `w` into `lattice` (of this model's label
  // count). A second-order lattice shares the trigram weights of `w` (and `trigram_bounds`, 2N
  // pruning bounds, if given; Lattice::SharedTrigram) instead of copying them, so `w` must
  // outlive the lattice's use.
  void FillChain(absl::Span<const double> w, Lattice* lattice,
                 const double* trigram_bounds = nullptr) const;

  // Fills `lattice` (resized to M x N) with the scores of a featurized sentence under `w`
  // (`w` has size() entries; pass `weights` for the model's own); see FillChain.
  void Score(const FeaturizedSentence& sentence, absl::Span<const double> w, Lattice* lattice,
             const double* trigram_bounds = nullptr) const;
};

// The model's weights laid out for tagging: each attribute's (label, weight) pairs interleaved
// in one run, so scoring a feature touches one cache line instead of two; and the transition,
// start and end scores with the transition mask already applied. Weights are float32 (as in the
// file), so Tagger's lattices equal Parameters().Score + ApplyTransitionMask.
struct Model::TaggingScores {
  struct Entry {
    int32_t label;
    float weight;
  };
  std::vector<int32_t> ranges;  // 2 per attribute: [begin, end) in entries
  std::vector<Entry> entries;
  // Attributes with features for at least a third of the N labels, and two or more (the
  // frequent ones: a bias, common words), also as dense rows, added with vector instructions:
  // dense_of[a] = the row of attribute a or -1, dense = rows x N, 0 where the attribute has no
  // feature. Adding a row gives exactly the entries' sums (adding 0.0 changes nothing).
  std::vector<int32_t> dense_of;
  std::vector<double> dense;
  std::vector<double> transition;      // N*N, masked
  std::vector<double> start;           // N, masked
  std::vector<double> end;             // N, masked
  std::vector<double> trigram;         // (N+1)*N*N for second-order models, else empty
  std::vector<double> trigram_bounds;  // 2N: per middle label min, then max (pruning bounds)
  std::vector<double> trigram_exp;     // exp(trigram - trigram_exp_shift) (probabilities)
  double trigram_exp_shift = 0;
};

}  // namespace chaintag

#endif  // CHAINTAG_MODEL_PARAMETERS_H_
