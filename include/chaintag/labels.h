// Labels: a label inventory (name <-> id), chunk schemes (chunks.h), the allowed-transition
// masks they imply, and a latent model's hidden states per label (LatentLayout). The one place
// that knows what a label and a chunk tag are.
#ifndef CHAINTAG_LABELS_H_
#define CHAINTAG_LABELS_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "chaintag/chunks.h"

namespace chaintag {

// Label names and dense ids 0..size()-1, in the order given (models keep their labels sorted).
class LabelSet {
 public:
  LabelSet() = default;
  explicit LabelSet(std::vector<std::string> names);
  int size() const { return static_cast<int>(names_.size()); }
  const std::vector<std::string>& names() const { return names_; }
  const std::string& name(int id) const { return names_[id]; }
  int Id(std::string_view name) const;  // -1 if absent
  // Adds `name` if new; returns its id.
  int Add(std::string_view name);

 private:
  std::vector<std::string> names_;
  absl::flat_hash_map<std::string, int> ids_;
};

// Allowed transitions as masks on the lattice (Wapiti-style): the decoders are unchanged.
struct TransitionMask {
  int num_labels = 0;
  std::vector<char> allowed;        // N x N, allowed[prev * N + y]
  std::vector<char> allowed_start;  // N
  std::vector<char> allowed_end;    // N
};
// BIO/IOB2/IOBES validity inferred from label names: I-X and E-X may only follow B-X or I-X (or
// start the sentence only if allowed below); labels that are not chunk tags are unrestricted.
// A transition (or sentence start, prev = -1) that occurs in the training data, given as
// `observed` (N+1) x N with row 0 for the start, is always allowed, so IOB1 data stays decodable.
TransitionMask InferChunkTransitionMask(const std::vector<std::string>& labels,
                                        const std::vector<char>& observed);

// Which hidden states belong to which label: state_label(h) is non-decreasing in h, so label y
// owns the states [first_state(y), end_state(y)).
class LatentLayout {
 public:
  static constexpr int kMaxStatesPerLabel = 64;
  static constexpr int kMaxStates = 4096;

  LatentLayout() = default;
  // `state_labels[h]` = label of hidden state h; non-decreasing, every label 0..N-1 owning 1 to
  // kMaxStatesPerLabel states, at most kMaxStates in all. Errors say which rule is broken.
  static absl::StatusOr<LatentLayout> Create(int num_labels, std::vector<int32_t> state_labels);
  // Per label count of hidden states (each in 1..kMaxStatesPerLabel).
  static absl::StatusOr<LatentLayout> FromCounts(absl::Span<const int> states_per_label);

  int num_labels() const { return first_.empty() ? 0 : static_cast<int>(first_.size()) - 1; }
  int num_states() const { return static_cast<int>(state_labels_.size()); }
  int label_of(int state) const { return state_labels_[state]; }
  int first_state(int label) const { return first_[label]; }
  int end_state(int label) const { return first_[label + 1]; }
  int states_of(int label) const { return first_[label + 1] - first_[label]; }
  const std::vector<int32_t>& state_labels() const { return state_labels_; }
  bool empty() const { return state_labels_.empty(); }

 private:
  std::vector<int32_t> state_labels_;
  std::vector<int32_t> first_;  // N + 1 offsets
};

}  // namespace chaintag

#endif  // CHAINTAG_LABELS_H_
