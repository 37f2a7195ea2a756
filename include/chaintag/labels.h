// Labels: a label inventory (name <-> id), chunk schemes (chunks.h) and the allowed-transition
// masks they imply. The one place that knows what a label and a chunk tag are.
#ifndef CHAINTAG_LABELS_H_
#define CHAINTAG_LABELS_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
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

}  // namespace chaintag

#endif  // CHAINTAG_LABELS_H_
