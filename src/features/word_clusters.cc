// Word clusters in Liang's paths format (chaintag::WordClusters), read by cluster().
#include <algorithm>
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
  std::vector<Entry> entries;                        // Serialize() order
  absl::flat_hash_map<std::string, uint32_t> words;  // word -> entry
  int num_clusters = 0;
};

namespace {

constexpr int64_t kMaxPathsLineBytes = 1 << 16;

bool EntryLess(const WordClusters::Entry& a, const WordClusters::Entry& b) {
  if (a.path != b.path) return a.path < b.path;
  if (a.count != b.count) return a.count > b.count;
  return a.word < b.word;
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

using WordIndex = absl::flat_hash_map<std::string, uint32_t>;

// Sorts entries given in input order, indexed by `words` (word -> input position), into
// Serialize() order and counts the clusters. A paths file written by chaintag (and the copy
// stored in a model) is already in that order, so loading one neither sorts nor re-indexes.
std::shared_ptr<const WordClusters::Impl> Finish(std::vector<WordClusters::Entry> entries,
                                                 WordIndex words) {
  if (!std::is_sorted(entries.begin(), entries.end(), EntryLess)) {
    // Words are distinct, so EntryLess is a strict total order: the same result as sorting.
    std::vector<uint32_t> order(entries.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<uint32_t>(i);
    std::sort(order.begin(), order.end(),
              [&](uint32_t a, uint32_t b) { return EntryLess(entries[a], entries[b]); });
    std::vector<uint32_t> rank(entries.size());
    std::vector<WordClusters::Entry> sorted;
    sorted.reserve(entries.size());
    for (size_t i = 0; i < order.size(); ++i) {
      rank[order[i]] = static_cast<uint32_t>(i);
      sorted.push_back(std::move(entries[order[i]]));
    }
    for (auto& [word, index] : words) index = rank[index];
    entries = std::move(sorted);
  }
  auto impl = std::make_shared<WordClusters::Impl>();
  for (size_t i = 0; i < entries.size(); ++i) {
    if (i == 0 || entries[i].path != entries[i - 1].path) ++impl->num_clusters;
  }
  impl->entries = std::move(entries);
  impl->words = std::move(words);
  return impl;
}

// `expected_lines`: how many lines to make room for (0: unknown), so that the tables are not
// rebuilt as they grow.
absl::StatusOr<std::shared_ptr<const WordClusters::Impl>> ReadLines(
    corpus_internal::LineReader& reader, const std::string& name, size_t expected_lines = 0) {
  std::vector<WordClusters::Entry> entries;
  std::vector<int64_t> lines;  // of each entry, for the duplicate error
  WordIndex words;
  entries.reserve(expected_lines);
  lines.reserve(expected_lines);
  words.reserve(expected_lines);
  std::string_view line;
  while (true) {
    absl::StatusOr<bool> more = reader.Next(&line);
    if (!more.ok()) return more.status();
    if (!*more) break;
    if (line.find_first_not_of(" \t") == std::string_view::npos) continue;
    const size_t tab1 = line.find('\t');
    if (tab1 == std::string_view::npos) {
      return reader.Error(absl::StrCat("expected BITSTRING<TAB>WORD<TAB>COUNT, found no tab in ",
                                       corpus_internal::QuoteLine(line)));
    }
    const size_t tab2 = line.find('\t', tab1 + 1);
    WordClusters::Entry entry;
    entry.path = std::string(line.substr(0, tab1));
    entry.word = std::string(line.substr(
        tab1 + 1, tab2 == std::string_view::npos ? std::string_view::npos : tab2 - tab1 - 1));
    if (std::string bad = CheckPath(entry.path); !bad.empty()) {
      return reader.Error(absl::StrCat("expected ", bad));
    }
    if (entry.word.empty()) return reader.Error("expected a word after the bit string, found none");
    if (tab2 != std::string_view::npos) {
      const std::string_view count = line.substr(tab2 + 1);
      if (!absl::SimpleAtoi(ToAbsl(count), &entry.count) || entry.count < 0) {
        return reader.Error(absl::StrCat("expected a count (a non-negative integer), found ",
                                         corpus_internal::QuoteLine(count)));
      }
    }
    auto [it, inserted] = words.try_emplace(entry.word, static_cast<uint32_t>(entries.size()));
    if (!inserted) {
      return reader.Error(absl::StrCat("expected each word once, found '", entry.word,
                                       "' again (first on line ", lines[it->second], ")"));
    }
    entries.push_back(std::move(entry));
    lines.push_back(reader.line_number());
  }
  if (entries.empty()) {
    return ErrorAt(name, std::max<int64_t>(reader.line_number(), 1),
                   "expected BITSTRING<TAB>WORD<TAB>COUNT lines, found none");
  }
  return Finish(std::move(entries), std::move(words));
}

}  // namespace

WordClusters::WordClusters() : impl_(std::make_shared<const Impl>()) {}

absl::StatusOr<WordClusters> WordClusters::Read(const std::string& path) {
  absl::StatusOr<std::unique_ptr<std::istream>> in = OpenInputStream(path);
  if (!in.ok()) return in.status();
  const std::string name = path == "-" ? "<stdin>" : path;
  corpus_internal::LineReader reader(**in, name, kMaxPathsLineBytes);
  auto impl = ReadLines(reader, name);
  if (!impl.ok()) return impl.status();
  if ((*in)->bad()) return absl::DataLossError(absl::StrCat(path, ": read error"));
  WordClusters clusters;
  clusters.impl_ = *std::move(impl);
  return clusters;
}

absl::StatusOr<WordClusters> WordClusters::Parse(std::string_view text, const std::string& name) {
  // The models of one pipeline often store the same clustering (the shipped POS and chunk models
  // do): a text parsed before is shared while anything still holds its clustering. The lock is
  // held while parsing, so models loaded at the same time (Model::LoadAll) parse a shared
  // clustering once: the second waits for the first.
  struct Parsed {
    std::string text;
    std::weak_ptr<const Impl> impl;
  };
  static std::mutex mu;
  static std::vector<Parsed>* parsed = new std::vector<Parsed>();
  WordClusters clusters;
  std::lock_guard<std::mutex> lock(mu);
  std::erase_if(*parsed, [](const Parsed& p) { return p.impl.expired(); });
  for (const Parsed& p : *parsed) {
    if (p.text != text) continue;
    if ((clusters.impl_ = p.impl.lock()) != nullptr) return clusters;
  }
  corpus_internal::LineReader reader(text, name, kMaxPathsLineBytes);
  auto impl = ReadLines(reader, name, std::count(text.begin(), text.end(), '\n') + 1);
  if (!impl.ok()) return impl.status();
  clusters.impl_ = *std::move(impl);
  parsed->push_back({std::string(text), clusters.impl_});
  return clusters;
}

absl::StatusOr<WordClusters> WordClusters::FromEntries(std::vector<Entry> entries) {
  for (const Entry& e : entries) {
    if (std::string bad = CheckPath(e.path); !bad.empty()) {
      return absl::InvalidArgumentError(absl::StrCat("word '", e.word, "': expected ", bad));
    }
    if (e.word.empty() || e.word.find_first_of("\t\n\r") != std::string::npos) {
      return absl::InvalidArgumentError(
          "expected words that are not empty and hold no tab or line break");
    }
  }
  WordIndex words;
  words.reserve(entries.size());
  for (size_t i = 0; i < entries.size(); ++i) {
    if (!words.emplace(entries[i].word, static_cast<uint32_t>(i)).second) {
      return absl::InvalidArgumentError(
          absl::StrCat("expected each word once, found '", entries[i].word, "' twice"));
    }
  }
  WordClusters clusters;
  clusters.impl_ = Finish(std::move(entries), std::move(words));
  return clusters;
}

std::string_view WordClusters::Lookup(std::string_view word) const {
  auto it = impl_->words.find(ToAbsl(word));
  if (it == impl_->words.end()) return kAbsent;
  return impl_->entries[it->second].path;
}

int WordClusters::num_words() const { return static_cast<int>(impl_->entries.size()); }
int WordClusters::num_clusters() const { return impl_->num_clusters; }
const std::vector<WordClusters::Entry>& WordClusters::entries() const { return impl_->entries; }

std::string WordClusters::Serialize() const {
  std::string out;
  for (const Entry& e : impl_->entries)
    absl::StrAppend(&out, e.path, "\t", e.word, "\t", e.count, "\n");
  return out;
}

}  // namespace chaintag
