// Picks the sentences a model stores as self-tests, as training sentences stream past.
#ifndef CHAINTAG_SRC_TRAIN_SELF_TEST_PICKER_H_
#define CHAINTAG_SRC_TRAIN_SELF_TEST_PICKER_H_

#include <optional>
#include <vector>

#include "chaintag/corpus.h"

namespace chaintag::train_internal {

// Deterministic: the first kCount sentences of at most kMaxLength tokens, else the first
// non-empty one, so the corpus need not be kept.
class SelfTestPicker {
 public:
  void Offer(const Sentence& s);
  std::vector<Sentence> Take();

 private:
  static constexpr int kCount = 5;
  static constexpr int kMaxLength = 15;
  std::vector<Sentence> chosen_;
  std::optional<Sentence> fallback_;
};

}  // namespace chaintag::train_internal

#endif  // CHAINTAG_SRC_TRAIN_SELF_TEST_PICKER_H_
