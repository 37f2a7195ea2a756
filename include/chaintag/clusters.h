// Word clusters: Brown clustering of unlabeled text (`chaintag clusters`) and the paths file that
// the cluster() template function reads (docs/templates.md).
#ifndef CHAINTAG_CLUSTERS_H_
#define CHAINTAG_CLUSTERS_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"

namespace chaintag {

// A hierarchical word clustering: each word has a bit string (its path from the root of the
// cluster tree; words of one cluster share it). The file format is Liang's `paths` file, as his
// wcluster writes it: one "BITSTRING<TAB>WORD<TAB>COUNT" line per word (the count is optional
// when reading). Words are compared byte for byte after NFC normalisation. Immutable; cheap to
// copy and share across threads.
class WordClusters {
 public:
  // What cluster() yields for a word the clustering does not list.
  static constexpr std::string_view kAbsent = "-";
  // Longest bit string accepted (a deeper tree than any clustering of real text).
  static constexpr int kMaxPathBits = 4096;

  // Reads a paths file ("-" is standard input, .gz is decompressed). Errors read
  // "FILE:LINE: expected ..., found ...".
  static absl::StatusOr<WordClusters> Read(const std::string& path);
  // Parses paths-file text (Serialize() output included); `name` prefixes errors.
  static absl::StatusOr<WordClusters> Parse(std::string_view text, const std::string& name);

  // The bit string of `word`, or kAbsent.
  std::string_view Lookup(std::string_view word) const;
  int num_words() const;
  // Distinct bit strings.
  int num_clusters() const;
  // Canonical paths-file text: lines ordered by bit string, then count (descending), then word.
  std::string Serialize() const;

  struct Entry {
    std::string path;
    std::string word;
    int64_t count = 0;
  };
  // Builds a clustering from entries (each word once; paths of '0' and '1' only).
  static absl::StatusOr<WordClusters> FromEntries(std::vector<Entry> entries);
  // The entries in Serialize() order.
  const std::vector<Entry>& entries() const;

  WordClusters();
  struct Impl;

 private:
  std::shared_ptr<const Impl> impl_;
};

// Brown clustering (Brown et al. 1992, "Class-based n-gram models of natural language"), with
// Liang's windowed algorithm (Liang 2005, "Semi-supervised learning for natural language", 3.2):
// words enter in decreasing frequency; whenever `clusters` + 1 clusters are active, the pair whose
// merge loses the least average mutual information of adjacent-cluster bigrams is merged; once
// every word has entered, merging continues down to one cluster, which builds the hierarchy over
// the last `clusters` clusters. Loss tables are updated incrementally: O(V C^2) in all.
struct BrownOptions {
  int clusters = 1000;
  // Words seen fewer times are left out (and bigrams across them are not counted).
  int64_t min_count = 1;
  // Worker threads for the loss-table updates; the output does not depend on it.
  int threads = 1;
  // At most this many words are clustered (the work grows as V C^2): the most frequent ones,
  // words of equal count in byte order (the order in which words enter); the others are left out
  // as min_count leaves words out.
  int64_t max_words = kDefaultMaxWords;
  static constexpr int kMaxClusters = 2048;
  static constexpr int64_t kDefaultMaxWords = 100000;
};

// Collects the token stream of the corpus, sentence by sentence. Bigrams are counted over the
// whole stream, as in Liang's wcluster (a sentence's last word and the next one's first word
// form a bigram); a word left out by min_count breaks it.
class BrownCorpus {
 public:
  // Caps on what the corpus may hold, so a huge input fails with a clear error instead of
  // exhausting memory.
  static constexpr int64_t kMaxTokens = int64_t{1} << 30;
  static constexpr int64_t kMaxWordTypes = int64_t{1} << 24;
  static constexpr int64_t kMaxWordBytes = 1024;

  BrownCorpus();
  ~BrownCorpus();
  BrownCorpus(BrownCorpus&&) noexcept;
  BrownCorpus& operator=(BrownCorpus&&) noexcept;

  // Adds one sentence. Errors (the caps above; empty tokens or tokens with tabs or line breaks,
  // which a paths file cannot hold) say what was expected; callers add the location.
  absl::Status AddSentence(absl::Span<const std::string_view> tokens);
  absl::Status AddSentence(absl::Span<const std::string> tokens);
  // Adds every sentence of a text file ("-" is standard input, gzip is decompressed): each line
  // is a sentence or paragraph; raw text goes through chaintag's tokeniser (TextSegmenter, so
  // clusters see the tokens tagging sees), pretokenized text is split at whitespace.
  // Errors name the file and line.
  absl::Status AddTextFile(const std::string& path, bool pretokenized);

  int64_t tokens() const;
  int64_t word_types() const;

  struct Impl;
  const Impl& impl() const { return *impl_; }

 private:
  std::unique_ptr<Impl> impl_;
};

// How many words BrownCluster will cluster: those seen at least options.min_count times, at most
// options.max_words of them.
struct BrownVocabulary {
  int64_t words = 0;               // words clustered
  int64_t words_at_min_count = 0;  // words seen at least options.min_count times
};
BrownVocabulary BrownVocabularyOf(const BrownCorpus& corpus, const BrownOptions& options);

struct BrownProgress {
  int64_t words_added = 0;
  int64_t vocabulary = 0;
  int active_clusters = 0;
  bool finishing = false;  // true while merging down to the root
};

// Clusters `corpus`; `progress` (optional) is called now and then from the calling thread.
// Errors: no word reaches min_count, clusters outside 1..kMaxClusters, max_words < 1.
absl::StatusOr<WordClusters> BrownCluster(
    const BrownCorpus& corpus, const BrownOptions& options,
    const std::function<void(const BrownProgress&)>& progress = nullptr);

}  // namespace chaintag

#endif  // CHAINTAG_CLUSTERS_H_
