#include "train/self_test_picker.h"

#include <utility>

namespace chaintag::train_internal {
namespace {

// The self-test needs the input columns only.
Sentence Stripped(const Sentence& s) {
  Sentence copy = s;
  copy.conllu.reset();
  copy.offsets.clear();
  return copy;
}

}  // namespace

void SelfTestPicker::Offer(const Sentence& s) {
  if (s.size() == 0 || static_cast<int>(chosen_.size()) == kCount) return;
  if (s.size() <= kMaxLength) {
    chosen_.push_back(Stripped(s));
  } else if (chosen_.empty() && !fallback_.has_value()) {
    fallback_ = Stripped(s);
  }
}

std::vector<Sentence> SelfTestPicker::Take() {
  if (chosen_.empty() && fallback_.has_value()) chosen_.push_back(std::move(*fallback_));
  fallback_.reset();
  return std::move(chosen_);
}

}  // namespace chaintag::train_internal
