// Word clusters in Liang's paths format (chaintag::WordClusters), read by cluster().
#include <algorithm>
#include <deque>
#include <istream>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "chaintag/clusters.h"
#include "chaintag/corpus.h"
#include "corpus/line_reader.h"
#include "string_view_compat.h"

namespace chaintag {

struct WordClusters::Impl {
  // Paths-file text in Serialize() order (not necessarily its exact bytes); `words` views into it.
  std::string text;
  // Lines the reader changed (NFC normalisation), whose views cannot point into `text`.
  std::deque<std::string> changed;
  absl::flat_hash_map<std::string_view, std::string_view> words;  // word -> bit string
  int num_clusters = 0;
  // Built on first use (Serialize, entries()): loading a model only looks words up.
  mutable std::once_flag entries_once;
  mutable std::vector<Entry> entries;
};

namespace {

constexpr int64_t kMaxPathsLineBytes = 1 << 16;

// The order of Serialize(): bit string, then count (descending), then word.
bool EntryLess(std::string_view path_a, int64_t count_a, std::string_view word_a,
               std::string_view path_b, int64_t count_b, std::string_view word_b) {
  if (path_a != path_b) return path_a < path_b;
  if (count_a != count_b) return count_a > count_b;
  return word_a < word_b;
}
bool EntryLess(const WordClusters::Entry& a, const WordClusters::Entry& b) {
  return EntryLess(a.path, a.count, a.word, b.path, b.count, b.word);
}

// "" when `path` is a valid bit string, else what is wrong with it.
std::string CheckPath(std::string_view path) {
  if (path.size() > static_cast<size_t>(WordClusters::kMaxPathBits)) {
    return absl::StrCat("a bit string of at most ", WordClusters::kMaxPathBits,
                        " bits, found one of ", path.size());
  }
  if (!std::all_of(path.begin(), path.end(), [](char c) { return c == '0' || c == '1'; })) {
    return absl::StrCat("a bit string of 0s and 1s, found '", ToAbsl(path.substr(0, 40)), "'");
  }
  return "";
}

bool IsPath(std::string_view path) {
  return path.size() <= static_cast<size_t>(WordClusters::kMaxPathBits) &&
         std::all_of(path.begin(), path.end(), [](char c) { return (c & ~1) == '0'; });
}

// The common count, 1 to 18 plain digits (SimpleAtoi's value), without SimpleAtoi's generality.
bool ParseDigits(std::string_view text, int64_t* value) {
  if (text.empty() || text.size() > 18) return false;
  int64_t v = 0;
  for (const char c : text) {
    if (c < '0' || c > '9') return false;
    v = v * 10 + (c - '0');
  }
  *value = v;
  return true;
}

// One line of a paths file, as views of the line.
struct PathsLine {
  std::string_view path, word;
  int64_t count = 0;
};

// Splits and checks a non-blank line; errors read like the reader's.
absl::StatusOr<PathsLine> SplitLine(const corpus_internal::LineReader& reader,
                                    std::string_view line) {
  const size_t tab1 = line.find('\t');
  if (tab1 == std::string_view::npos) {
    return reader.Error(absl::StrCat("expected BITSTRING<TAB>WORD<TAB>COUNT, found no tab in ",
                                     corpus_internal::QuoteLine(line)));
  }
  const size_t tab2 = line.find('\t', tab1 + 1);
  PathsLine out;
  out.path = line.substr(0, tab1);
  out.word = line.substr(tab1 + 1,
                         tab2 == std::string_view::npos ? std::string_view::npos : tab2 - tab1 - 1);
  if (!IsPath(out.path)) return reader.Error(absl::StrCat("expected ", CheckPath(out.path)));
  if (out.word.empty()) return reader.Error("expected a word after the bit string, found none");
  if (tab2 != std::string_view::npos) {
    const std::string_view count = line.substr(tab2 + 1);
    if (ParseDigits(count, &out.count)) return out;
    if (!absl::SimpleAtoi(ToAbsl(count), &out.count) || out.count < 0) {
      return reader.Error(absl::StrCat("expected a count (a non-negative integer), found ",
                                       corpus_internal::QuoteLine(count)));
    }
  }
  return out;
}

bool IsBlank(std::string_view line) {
  return line.find_first_not_of(" \t") == std::string_view::npos;
}

std::string SerializeEntries(const std::vector<WordClusters::Entry>& entries) {
  std::string out;
  for (const WordClusters::Entry& e : entries)
    absl::StrAppend(&out, e.path, "\t", e.word, "\t", e.count, "\n");
  return out;
}

// Calls `f(line_number, PathsLine)` for each non-blank line of text Index accepted (so no line
// fails) until it returns false.
template <typename F>
void ForEachLine(std::string_view text, const std::string& name, F&& f) {
  corpus_internal::LineReader reader(text, name, kMaxPathsLineBytes);
  std::string_view line;
  while (reader.Next(&line).value_or(false)) {
    if (IsBlank(line)) continue;
    absl::StatusOr<PathsLine> entry = SplitLine(reader, line);
    if (!entry.ok() || !f(reader.line_number(), *entry)) return;
  }
}

std::vector<WordClusters::Entry> EntriesOf(std::string_view text) {
  std::vector<WordClusters::Entry> entries;
  ForEachLine(text, "", [&](int64_t, const PathsLine& e) {
    entries.push_back({std::string(e.path), std::string(e.word), e.count});
    return true;
  });
  return entries;
}

// Indexes paths-file text in place: no string per word, and text already in Serialize() order
// (a paths file written by chaintag, the copy stored in a model) is neither sorted nor copied
// again; other text is sorted into that order first.
absl::StatusOr<std::shared_ptr<const WordClusters::Impl>> Index(std::string text,
                                                                const std::string& name) {
  auto impl = std::make_shared<WordClusters::Impl>();
  impl->text = std::move(text);
  const std::string_view all = impl->text;
  corpus_internal::LineReader reader(all, name, kMaxPathsLineBytes);
  impl->words.reserve(std::count(all.begin(), all.end(), '\n') + 1);  // no rehash as it grows
  bool sorted = true;
  PathsLine previous;
  std::string_view line;
  while (true) {
    absl::StatusOr<bool> more = reader.Next(&line);
    if (!more.ok()) return more.status();
    if (!*more) break;
    if (IsBlank(line)) continue;
    if (line.data() < all.data() || line.data() + line.size() > all.data() + all.size()) {
      line = impl->changed.emplace_back(line);  // normalised: not a view of the text
    }
    absl::StatusOr<PathsLine> entry = SplitLine(reader, line);
    if (!entry.ok()) return entry.status();
    if (!impl->words.try_emplace(entry->word, entry->path).second) {
      int64_t first = 0;  // the word's first line, looked for only for the message
      ForEachLine(all, name, [&](int64_t number, const PathsLine& e) {
        if (e.word == entry->word) first = number;
        return first == 0;
      });
      return reader.Error(absl::StrCat("expected each word once, found '", ToAbsl(entry->word),
                                       "' again (first on line ", first, ")"));
    }
    if (impl->words.size() == 1 || entry->path != previous.path) ++impl->num_clusters;
    if (impl->words.size() > 1) {
      sorted = sorted && EntryLess(previous.path, previous.count, previous.word, entry->path,
                                   entry->count, entry->word);
    }
    previous = *entry;
  }
  if (impl->words.empty()) {
    return ErrorAt(name, std::max<int64_t>(reader.line_number(), 1),
                   "expected BITSTRING<TAB>WORD<TAB>COUNT lines, found none");
  }
  if (sorted) return impl;
  // Words are distinct, so EntryLess is a strict total order: sorting gives one result.
  std::vector<WordClusters::Entry> entries = EntriesOf(all);
  std::sort(
      entries.begin(), entries.end(),
      [](const WordClusters::Entry& a, const WordClusters::Entry& b) { return EntryLess(a, b); });
  return Index(SerializeEntries(entries), name);
}

}  // namespace

WordClusters::WordClusters() : impl_(std::make_shared<const Impl>()) {}

absl::StatusOr<WordClusters> WordClusters::Read(const std::string& path) {
  absl::StatusOr<std::unique_ptr<std::istream>> in = OpenInputStream(path);
  if (!in.ok()) return in.status();
  const std::string name = path == "-" ? "<stdin>" : path;
  // Line by line first, so an overlong line (or /dev/zero) fails before it is held whole; the
  // checked lines, one per input line, are then indexed with the same line numbers.
  corpus_internal::LineReader reader(**in, name, kMaxPathsLineBytes);
  std::string text;
  std::string_view line;
  while (true) {
    absl::StatusOr<bool> more = reader.Next(&line);
    if (!more.ok()) return more.status();
    if (!*more) break;
    absl::StrAppend(&text, ToAbsl(line), "\n");
  }
  if ((*in)->bad()) return absl::DataLossError(absl::StrCat(path, ": read error"));
  auto impl = Index(std::move(text), name);
  if (!impl.ok()) return impl.status();
  WordClusters clusters;
  clusters.impl_ = *std::move(impl);
  return clusters;
}

absl::StatusOr<WordClusters> WordClusters::Parse(std::string_view text, const std::string& name) {
  // The models of one pipeline often store the same clustering (the shipped POS and chunk models
  // do): a text parsed before is shared while anything still holds its clustering. The lock is
  // held while parsing, so models loaded at the same time (Model::LoadAll) parse a shared
  // clustering once: the second waits for the first.
  static std::mutex mu;
  static std::vector<std::weak_ptr<const Impl>>* parsed =
      new std::vector<std::weak_ptr<const Impl>>();
  WordClusters clusters;
  std::lock_guard<std::mutex> lock(mu);
  std::erase_if(*parsed, [](const std::weak_ptr<const Impl>& p) { return p.expired(); });
  for (const std::weak_ptr<const Impl>& p : *parsed) {
    std::shared_ptr<const Impl> impl = p.lock();
    if (impl != nullptr && impl->text == text) {
      clusters.impl_ = std::move(impl);
      return clusters;
    }
  }
  auto impl = Index(std::string(text), name);
  if (!impl.ok()) return impl.status();
  clusters.impl_ = *std::move(impl);
  // Unsorted text is indexed as its sorted copy, which another equal text would not match.
  if (clusters.impl_->text == text) parsed->push_back(clusters.impl_);
  return clusters;
}

absl::StatusOr<WordClusters> WordClusters::FromEntries(std::vector<Entry> entries) {
  absl::flat_hash_set<std::string_view> words;
  words.reserve(entries.size());
  for (const Entry& e : entries) {
    if (std::string bad = CheckPath(e.path); !bad.empty()) {
      return absl::InvalidArgumentError(absl::StrCat("word '", e.word, "': expected ", bad));
    }
    if (e.word.empty() || e.word.find_first_of("\t\n\r") != std::string::npos) {
      return absl::InvalidArgumentError(
          "expected words that are not empty and hold no tab or line break");
    }
    if (!words.insert(e.word).second) {
      return absl::InvalidArgumentError(
          absl::StrCat("expected each word once, found '", e.word, "' twice"));
    }
  }
  std::sort(entries.begin(), entries.end(),
            [](const Entry& a, const Entry& b) { return EntryLess(a, b); });
  auto impl = Index(SerializeEntries(entries), "clusters");
  if (!impl.ok()) return impl.status();
  WordClusters clusters;
  clusters.impl_ = *std::move(impl);
  return clusters;
}

std::string_view WordClusters::Lookup(std::string_view word) const {
  auto it = impl_->words.find(word);
  if (it == impl_->words.end()) return kAbsent;
  return it->second;
}

int WordClusters::num_words() const { return static_cast<int>(impl_->words.size()); }
int WordClusters::num_clusters() const { return impl_->num_clusters; }
const std::vector<WordClusters::Entry>& WordClusters::entries() const {
  std::call_once(impl_->entries_once, [&] { impl_->entries = EntriesOf(impl_->text); });
  return impl_->entries;
}

std::string WordClusters::Serialize() const { return SerializeEntries(entries()); }

}  // namespace chaintag
