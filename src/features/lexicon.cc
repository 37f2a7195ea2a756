// Word-class lexicon for the lex() template function (chaintag::Lexicon).
#include <algorithm>
#include <istream>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "chaintag/corpus.h"
#include "chaintag/features.h"
#include "corpus/line_reader.h"
#include "features/functions.h"

namespace chaintag {

struct Lexicon::Impl {
  // Word -> index into class_sets; class_sets holds each distinct joined set once.
  absl::flat_hash_map<std::string, uint32_t> words;
  std::vector<std::string> class_sets;
};

namespace {

constexpr int64_t kMaxLexiconLineBytes = 1 << 20;

// Builds the lexicon line by line: each line's classes are sorted, joined and interned at once,
// so a word costs one map entry and no per-word vector of strings.
class LexiconBuilder {
 public:
  // Adds one non-blank line; the error message says what was expected (the caller adds FILE:LINE).
  absl::Status AddLine(std::string_view line) {
    const size_t tab = line.find('\t');
    if (tab == std::string_view::npos || tab == 0) {
      return absl::InvalidArgumentError(absl::StrCat("expected WORD<TAB>CLASS [CLASS ...], found ",
                                                     tab == 0 ? "an empty word" : "no tab", " in ",
                                                     corpus_internal::QuoteLine(line)));
    }
    const std::string_view word = line.substr(0, tab);
    const std::string_view field = line.substr(tab + 1);
    // A class field seen before on the line of a new word maps to the same class set: sorting,
    // checking and joining depend on the field alone. (Stored lexicons repeat a few hundred
    // fields over thousands of words.)
    if (auto known = field_sets_.find(ToAbsl(field)); known != field_sets_.end()) {
      if (impl_->words.try_emplace(ToAbsl(word), known->second).second) return absl::OkStatus();
    }
    classes_.clear();
    for (absl::string_view c :
         absl::StrSplit(ToAbsl(field), absl::ByAnyChar(" \t"), absl::SkipEmpty())) {
      if (c.find('|') != absl::string_view::npos || c == ToAbsl(Lexicon::kAbsent)) {
        return absl::InvalidArgumentError(
            absl::StrCat("expected a class name without '|' and other than '",
                         ToAbsl(Lexicon::kAbsent), "', found '", c, "'"));
      }
      classes_.push_back(features::FromAbsl(c));
    }
    if (classes_.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("expected at least one class after the tab, found none in ",
                       corpus_internal::QuoteLine(line)));
    }
    auto it = impl_->words.find(ToAbsl(word));
    std::vector<std::string> earlier;  // a word listed on several lines gets the union
    if (it != impl_->words.end()) {
      earlier = absl::StrSplit(impl_->class_sets[it->second], '|');
      classes_.insert(classes_.end(), earlier.begin(), earlier.end());
    }
    std::sort(classes_.begin(), classes_.end());
    classes_.erase(std::unique(classes_.begin(), classes_.end()), classes_.end());
    joined_.clear();
    for (std::string_view c : classes_) {
      if (!joined_.empty()) joined_.push_back('|');
      joined_.append(c);
    }
    auto [set, inserted] =
        set_ids_.try_emplace(joined_, static_cast<uint32_t>(impl_->class_sets.size()));
    if (inserted) impl_->class_sets.push_back(joined_);
    if (it != impl_->words.end()) {
      it->second = set->second;
    } else {
      impl_->words.emplace(word, set->second);
      field_sets_.try_emplace(ToAbsl(field), set->second);
    }
    return absl::OkStatus();
  }

  std::shared_ptr<const Lexicon::Impl> Finish() { return std::move(impl_); }
  void Reserve(size_t words) { impl_->words.reserve(words); }

 private:
  std::shared_ptr<Lexicon::Impl> impl_ = std::make_shared<Lexicon::Impl>();
  absl::flat_hash_map<std::string, uint32_t> set_ids_;
  absl::flat_hash_map<std::string, uint32_t> field_sets_;  // class field of a new word -> set
  std::vector<std::string_view> classes_;
  std::string joined_;
};

// `expected_lines`: how many words to make room for (0: unknown).
absl::Status ReadLines(corpus_internal::LineReader& reader, const std::string& name,
                       std::shared_ptr<const Lexicon::Impl>* out, size_t expected_lines = 0) {
  LexiconBuilder builder;
  builder.Reserve(expected_lines);
  std::string_view line;
  while (true) {
    absl::StatusOr<bool> more = reader.Next(&line);
    if (!more.ok()) return more.status();
    if (!*more) break;
    if (line.find_first_not_of(" \t") == std::string_view::npos) continue;
    if (absl::Status s = builder.AddLine(line); !s.ok()) {
      return reader.Error(features::FromAbsl(s.message()));
    }
  }
  *out = builder.Finish();
  if ((*out)->words.empty()) {
    return ErrorAt(name, std::max<int64_t>(reader.line_number(), 1),
                   "expected WORD<TAB>CLASS lines, found none");
  }
  return absl::OkStatus();
}

}  // namespace

Lexicon::Lexicon() : impl_(std::make_shared<const Impl>()) {}

absl::StatusOr<Lexicon> Lexicon::Read(const std::string& path) {
  absl::StatusOr<std::unique_ptr<std::istream>> in = OpenInputStream(path);
  if (!in.ok()) return in.status();
  Lexicon lexicon;
  const std::string name = path == "-" ? "<stdin>" : path;
  corpus_internal::LineReader reader(**in, name, kMaxLexiconLineBytes);
  if (absl::Status s = ReadLines(reader, name, &lexicon.impl_); !s.ok()) {
    return s;
  }
  if ((*in)->bad()) return absl::DataLossError(absl::StrCat(path, ": read error"));
  return lexicon;
}

absl::StatusOr<Lexicon> Lexicon::Parse(std::string_view text, const std::string& name) {
  corpus_internal::LineReader reader(text, name, kMaxLexiconLineBytes);
  Lexicon lexicon;
  const size_t lines = std::count(text.begin(), text.end(), '\n') + 1;
  if (absl::Status s = ReadLines(reader, name, &lexicon.impl_, lines); !s.ok()) return s;
  return lexicon;
}

std::string_view Lexicon::Lookup(std::string_view word) const {
  auto it = impl_->words.find(ToAbsl(word));
  if (it == impl_->words.end()) return kAbsent;
  return impl_->class_sets[it->second];
}

int Lexicon::num_words() const { return static_cast<int>(impl_->words.size()); }
int Lexicon::num_class_sets() const { return static_cast<int>(impl_->class_sets.size()); }

std::string Lexicon::Serialize() const {
  std::vector<std::pair<std::string_view, uint32_t>> sorted;
  sorted.reserve(impl_->words.size());
  size_t bytes = 0;
  for (const auto& [word, set] : impl_->words) {
    sorted.emplace_back(word, set);
    bytes += word.size() + impl_->class_sets[set].size() + 2;
  }
  std::sort(sorted.begin(), sorted.end());
  std::string out;
  out.reserve(bytes);
  for (const auto& [word, set] : sorted) {
    out.append(word);
    out.push_back('\t');
    for (char c : impl_->class_sets[set]) out.push_back(c == '|' ? ' ' : c);
    out.push_back('\n');
  }
  return out;
}

}  // namespace chaintag
