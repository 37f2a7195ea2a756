// Feature templates, presets, the attribute dictionary and featurization.
//
// A template set is a small text (one template per line, CRF++-like), stored verbatim in models.
// Full reference: docs/templates.md.
//   U02:%x[0,0]          the word at offset 0 (column 0)
//   U11:%x[-1,1]/%x[0,1] conjunction of the POS at -1 and at 0 ('/' is literal text)
//   U20:lower(%x[0,0])   functions over a cell: lower, suf1..4, pre1..4, shape, shortshape,
//                        hasdigit, hashyphen, hasupper, allcaps, lex and lex2 (a Lexicon's
//                        classes), cluster(EXPR[, P]) (a word cluster's bit string, P bits);
//                        they nest: suf3(lower(%x[0,0]))
//   B                    label bigram (transition) feature (any line starting with 'B')
// An attribute string is the template line with every cell expression replaced by its value, so
// the name prefix ("U20:") keeps templates apart. Blank lines and lines starting with '#' are
// ignored; names before ':' must be unique. Out-of-sentence cells read as _B-1, _B-2 (before)
// and _B+1, _B+2 (after), as in CRF++; functions are not applied to these markers.
#ifndef CHAINTAG_FEATURES_H_
#define CHAINTAG_FEATURES_H_

#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "chaintag/clusters.h"
#include "chaintag/corpus.h"

namespace chaintag {

// A word-class lexicon for the `lex` template function: each word has a set of classes (for
// example the parts of speech a dictionary lists for it). The file format is one
// "WORD<TAB>CLASS [CLASS ...]" entry per line (classes separated by spaces or tabs; a word on
// several lines gets the union; blank lines are skipped; no comment syntax, so any word can be
// listed). Class names may not contain '|' and may not be "-". Keys are compared byte for byte
// after NFC normalisation, so a lexicon read through lex(lower(...)) should list case-folded
// words. Models that use a lexicon store it. Immutable; cheap to copy and share across threads.
class Lexicon {
 public:
  // What lex() yields for a word the lexicon does not list.
  static constexpr std::string_view kAbsent = "-";

  // Reads a lexicon file ("-" is standard input, .gz is decompressed). Errors read
  // "FILE:LINE: expected ..., found ...".
  static absl::StatusOr<Lexicon> Read(const std::string& path);
  // Parses lexicon text in the file format (Serialize() output included); `name` prefixes errors.
  static absl::StatusOr<Lexicon> Parse(std::string_view text, const std::string& name);

  // The classes of `word`, sorted and joined with '|' ("JJ|NN"), or kAbsent.
  std::string_view Lookup(std::string_view word) const;
  int num_words() const;
  // Distinct class sets (values Lookup can return besides kAbsent).
  int num_class_sets() const;
  // Canonical file-format text: words in byte order, one line each, classes sorted.
  std::string Serialize() const;

  Lexicon();
  struct Impl;

 private:
  std::shared_ptr<const Impl> impl_;
};

// Builds a tag lexicon (a tag dictionary) from labelled sentences: each word gets the labels
// that make up at least `min_share` of its occurrences. Built from one corpus and given to
// `train --lexicon` for another, it tells the tagger the tags of words its own training data
// lacks (`chaintag lexicon`).
struct TagLexiconOptions {
  // Key words by their case folding, as lex(lower(...)) looks them up; false keeps the forms.
  bool case_fold = true;
  // A label is kept when its count is at least this share of the word's count (0 < share <= 1).
  double min_share = 0.1;
  // Words seen fewer times are left out.
  int64_t min_count = 1;
};

class TagLexiconBuilder {
 public:
  explicit TagLexiconBuilder(TagLexiconOptions options = {});
  // Counts the (word, label) pairs of `sentence`. Errors name the file and line: sentences
  // without labels, and labels that cannot be class names (empty, "-", or with '|' or spaces).
  absl::Status Add(const Sentence& sentence);
  int64_t tokens() const { return tokens_; }
  // The lexicon; an error when no word reaches min_count.
  absl::StatusOr<Lexicon> Build() const;

 private:
  TagLexiconOptions options_;
  int64_t tokens_ = 0;
  // Word -> (label id -> count).
  absl::flat_hash_map<std::string, absl::flat_hash_map<int, int64_t>> counts_;
  absl::flat_hash_map<std::string, int> label_ids_;
  std::vector<std::string> labels_;
};

// What templates' word-class functions read; a model stores each one it was trained with.
struct FeatureResources {
  std::shared_ptr<const Lexicon> lexicon;        // lex()
  std::shared_ptr<const Lexicon> lexicon2;       // lex2()
  std::shared_ptr<const WordClusters> clusters;  // cluster()
};

// A word-class lexicon from a WordNet 3.0 database directory (Debian wordnet-base:
// /usr/share/wordnet): each case-folded word gets its WordNet parts of speech (n, v, a, r; P for
// a noun WordNet also lists capitalised) and each inflected form its class (n-s, v-s, v-ed,
// v-ing, a-er, a-est, r-er, r-est) from the exception lists (*.exc) and the regular inflections
// (the inverse of morphy's detachment rules). Multiword entries are left out. Errors name the
// file and line (`chaintag lexicon --from-wordnet DIR`).
absl::StatusOr<Lexicon> WordNetLexicon(const std::string& dir);

// A parsed template set. Immutable; cheap to share across threads.
class FeatureSpec {
 public:
  // Parses the template language; errors name the template line. Templates that call lex()
  // need `lexicon`; the spec keeps it (and models store it).
  static absl::StatusOr<FeatureSpec> Parse(std::string_view text,
                                           std::shared_ptr<const Lexicon> lexicon = nullptr);
  // The same with every resource: templates that call lex2() need resources.lexicon2, those
  // that call cluster() need resources.clusters.
  static absl::StatusOr<FeatureSpec> Parse(std::string_view text, FeatureResources resources);
  // Reads and parses a template file ("-" is standard input, .gz is decompressed): refuses a
  // directory ("PATH: expected a template file, found a directory"), files over
  // kMaxTemplateFileBytes, bare CR line ends, NUL bytes and invalid UTF-8 ("PATH:LINE: ...");
  // skips a leading byte order mark. Parse errors are prefixed with "PATH: ".
  static absl::StatusOr<FeatureSpec> ReadFile(const std::string& path,
                                              std::shared_ptr<const Lexicon> lexicon = nullptr);
  static absl::StatusOr<FeatureSpec> ReadFile(const std::string& path, FeatureResources resources);
  static constexpr int64_t kMaxTemplateFileBytes = int64_t{1} << 20;
  // Function calls in one cell expression nest at most this deep (lower(pre3(%x[0,0])) is 2);
  // deeper nesting is a parse error, in a template file and a model's templates section alike.
  static constexpr int kMaxCallDepth = 32;
  // Presets: "chunk-conll" (the standard CRF++ CoNLL-2000 template), "chunk", "np", "pos", and
  // "pos-lexicon" (pos plus word classes from a lexicon, which it needs).
  static absl::StatusOr<FeatureSpec> Preset(std::string_view name,
                                            std::shared_ptr<const Lexicon> lexicon = nullptr);
  static absl::StatusOr<FeatureSpec> Preset(std::string_view name, FeatureResources resources);
  static std::vector<std::string> PresetNames();
  // The spec of models trained on attribute input (CRFsuite data format): no templates; the
  // Featurizer reads each token's attributes and weights from the Sentence (its attribute_*
  // fields) instead. text() is empty.
  static FeatureSpec AttributeInput();
  bool reads_attributes() const;

  // Whether some template calls lex(), and the lexicon given to Parse (or null).
  bool uses_lexicon() const;
  const std::shared_ptr<const Lexicon>& lexicon() const;
  // Likewise for lex2() and its second lexicon, and for cluster() and its word clusters.
  bool uses_lexicon2() const;
  const std::shared_ptr<const Lexicon>& lexicon2() const;
  bool uses_clusters() const;
  const std::shared_ptr<const WordClusters>& clusters() const;

  // The template text, exactly as parsed (stored in the model).
  const std::string& text() const;
  // Number of input columns the templates read (max column index + 1).
  int num_input_columns() const;
  // Whether a label-bigram ("B") template is present.
  bool has_label_bigram() const;
  // Number of unigram templates = attributes generated per position (before dictionary lookup).
  // History templates (%y, %h) are not counted; the Featurizer ignores them.
  int num_templates() const;
  // Number of label-history templates (those with %y[-k] or %h[...]; LMSBN models only).
  int num_history_templates() const;
  // The lines of the label-history templates, as written (`chaintag info` lists them).
  std::vector<std::string> HistoryTemplateLines() const;

  FeatureSpec();
  ~FeatureSpec();
  FeatureSpec(const FeatureSpec&);
  FeatureSpec& operator=(const FeatureSpec&);
  FeatureSpec(FeatureSpec&&) noexcept;
  FeatureSpec& operator=(FeatureSpec&&) noexcept;

  struct Impl;
  const Impl& impl() const { return *impl_; }

 private:
  std::shared_ptr<const Impl> impl_;
};

// Attribute strings -> dense ids 0..size()-1 (in insertion order).
//
// Lookups dominate featurization, so the index is an open-addressing table of 8-byte slots
// (hash tag + offset of an entry in one byte arena) rather than a map of std::string: a miss
// usually touches one cache line, and the batched API below lets the Featurizer overlap misses.
// Each name is stored once, in the arena (training dictionaries hold millions of names).
class AttributeDictionary {
 public:
  // Returns the id or -1.
  int Find(std::string_view attribute) const { return FindHashed(attribute, Hash(attribute)); }
  // Adds if absent; returns the id.
  int Insert(std::string_view attribute);
  // Insert with Hash(attribute) computed (and its slot prefetched) ahead, as batched loads do.
  int InsertHashed(std::string_view attribute, uint64_t hash);
  int size() const { return size_; }
  // The name of `id` as a copy (kept for callers that store it); name_view does not copy.
  std::string name(int id) const { return std::string(name_view(id)); }
  // Valid until the next Insert or Reserve.
  std::string_view name_view(int id) const {
    const char* entry = arena_.data() + entry_offsets_[id];
    EntryHeader h;
    std::memcpy(&h, entry, sizeof(h));
    return std::string_view(entry + sizeof(h), h.length);
  }
  // Room for n names (the index and id table) and, when given, `name_bytes` bytes of names in
  // all (the arena, which otherwise grows by doubling: copies, and memory touched twice).
  void Reserve(int n, int64_t name_bytes = 0);
  // Bytes of heap memory held (arena, index and id table), for memory reports and tests.
  size_t MemoryBytes() const;
  // Frees the lookup index and the id table (16-24 bytes per name) while only size() is needed,
  // e.g. while a trainer optimises: until RestoreIndex, Find returns -1 and name/name_view must
  // not be called (Insert and Reserve restore first). The names stay in the arena.
  void ReleaseIndex();
  void RestoreIndex();

  // The table as a model file stores it (docs/model-format.md, section 'attributes'): the slots
  // (capacity a power of two) and the arena of {i32 id, u32 length, bytes} entries in id order.
  // Requires the index (not released).
  absl::Span<const uint64_t> stored_slots() const { return slots_; }
  std::string_view stored_arena() const { return arena_; }
  // A dictionary of `count` names from a stored table (little-endian words), checked without
  // trusting it: capacity a power of two of at least 16 and twice the count, `count` occupied
  // slots, entries in id order one after another, each name found at its own id (a duplicate is
  // an error), `check_name(name, id)` on each. Errors are the ones `error(what)` makes.
  static absl::StatusOr<AttributeDictionary> FromStoredTable(
      uint64_t count, std::string_view slots, std::string_view arena,
      const std::function<absl::Status(std::string_view name, int id)>& check_name,
      const std::function<absl::Status(std::string_view what)>& error);

  // Batched lookups: Hash once, PrefetchSlot some keys ahead, PrefetchEntry fewer ahead, then
  // FindHashed (equal to Find). Stable across builds and platforms: model files store tables
  // built with it.
  static uint64_t Hash(std::string_view attribute);
  int FindHashed(std::string_view attribute, uint64_t hash) const {
    if (slots_.empty()) return -1;
    const uint64_t tag = hash >> kOffsetBits;
    for (uint64_t i = hash & mask_;; i = (i + 1) & mask_) {
      const uint64_t slot = slots_[i];
      if (slot == 0) return -1;
      if ((slot >> kOffsetBits) == tag) {
        const char* entry = arena_.data() + (slot & kOffsetMask);
        EntryHeader h;
        std::memcpy(&h, entry, sizeof(h));
        // The 24-bit tag already matched, so a length check and memcmp almost always succeed.
        if (h.length == attribute.size() &&
            std::memcmp(entry + sizeof(h), attribute.data(), attribute.size()) == 0) {
          return h.id;
        }
      }
    }
  }
  // Loads the home slot of `hash` into cache (stage 1 of a batched lookup).
  void PrefetchSlot(uint64_t hash) const {
    if (!slots_.empty()) __builtin_prefetch(&slots_[hash & mask_]);
  }
  // Loads the entry the home slot points to (stage 2; call after PrefetchSlot had time to land).
  void PrefetchEntry(uint64_t hash) const {
    if (slots_.empty()) return;
    const uint64_t slot = slots_[hash & mask_];
    if (slot != 0) __builtin_prefetch(arena_.data() + (slot & kOffsetMask));
  }

 private:
  // Arena entries: header, then the attribute bytes. The full hash is not stored (8 bytes per
  // entry); Rehash recomputes it.
  struct EntryHeader {
    int32_t id;
    uint32_t length;
  };
  static constexpr int kOffsetBits = 40;  // arena up to 1 TB; 24-bit tag
  static constexpr uint64_t kOffsetMask = (uint64_t{1} << kOffsetBits) - 1;
  void Rehash(size_t capacity);

  std::vector<uint64_t> slots_;  // 0 = empty, else tag << kOffsetBits | arena offset (offset > 0)
  uint64_t mask_ = 0;
  std::string arena_;
  std::vector<uint64_t> entry_offsets_;  // arena offset of each id's entry (empty when released)
  int size_ = 0;
};

}  // namespace chaintag

#endif  // CHAINTAG_FEATURES_H_
