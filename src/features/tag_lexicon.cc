// Tag lexicons built from labelled corpora (chaintag::TagLexiconBuilder).
#include <algorithm>
#include <string>

#include "absl/strings/str_cat.h"
#include "chaintag/features.h"
#include "features/functions.h"

namespace chaintag {

TagLexiconBuilder::TagLexiconBuilder(TagLexiconOptions options) : options_(options) {}

absl::Status TagLexiconBuilder::Add(const Sentence& sentence) {
  const int64_t n = sentence.size();
  auto where = [&](int64_t t) { return absl::StrCat(Location(sentence, t), ": "); };
  if (n > 0 && static_cast<int64_t>(sentence.labels.size()) != n) {
    return absl::InvalidArgumentError(absl::StrCat(
        where(0), "expected labelled tokens for a tag lexicon, found a sentence without labels"));
  }
  std::string key;
  for (int64_t t = 0; t < n; ++t) {
    const std::string& label = sentence.labels[t];
    auto id = label_ids_.find(label);
    if (id == label_ids_.end()) {
      if (label.empty() || label == Lexicon::kAbsent ||
          label.find_first_of("| \t") != std::string::npos) {
        return absl::InvalidArgumentError(absl::StrCat(
            where(t), "expected a label usable as a lexicon class (not empty, not '",
            ToAbsl(Lexicon::kAbsent), "', without '|' or spaces), found '", label, "'"));
      }
      id = label_ids_.emplace(label, static_cast<int>(labels_.size())).first;
      labels_.push_back(label);
    }
    const std::string& word = sentence.columns[0][t];
    key.clear();
    if (options_.case_fold) {
      features::AppendLower(word, &key);
    } else {
      key = word;
    }
    ++counts_[key][id->second];
    ++tokens_;
  }
  return absl::OkStatus();
}

absl::StatusOr<Lexicon> TagLexiconBuilder::Build() const {
  if (!(options_.min_share > 0 && options_.min_share <= 1)) {
    return absl::InvalidArgumentError(
        absl::StrCat("min_share: expected a share in (0, 1], found ", options_.min_share));
  }
  std::string text;
  for (const auto& [word, by_label] : counts_) {
    int64_t total = 0;
    for (const auto& [label, count] : by_label) total += count;
    if (total < std::max<int64_t>(options_.min_count, 1)) continue;
    absl::StrAppend(&text, word, "\t");
    const char* separator = "";
    for (const auto& [label, count] : by_label) {
      // The tolerance keeps exact shares (1 of 10 at 0.1) from failing on rounding.
      if (static_cast<double>(count) >= options_.min_share * static_cast<double>(total) - 1e-9) {
        absl::StrAppend(&text, separator, labels_[label]);
        separator = " ";
      }
    }
    text.push_back('\n');
  }
  if (text.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("expected at least one word seen ", options_.min_count,
                     " times or more, found none (", tokens_, " tokens read)"));
  }
  return Lexicon::Parse(text, "<tag lexicon>");
}

}  // namespace chaintag
