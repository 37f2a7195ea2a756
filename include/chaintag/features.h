// Feature templates, presets, the attribute dictionary and featurization.
//
// A template set is a small text (one template per line, CRF++-like), stored verbatim in models:
//   U02:%x[0,0]          the word at offset 0 (column 0)
//   U11:%x[-1,1]/%x[0,1] conjunction of the POS at -1 and at 0
//   U20:lower(%x[0,0])   functions over a cell: lower, suf1..4, pre1..4, shape, shortshape,
//                        hasdigit, hashyphen, hasupper, allcaps (see features/template.cc)
//   B                    label bigram (transition) feature
// Out-of-sentence cells read as _B-1, _B-2 (before) and _B+1, _B+2 (after), as in CRF++.
#ifndef CHAINTAG_FEATURES_H_
#define CHAINTAG_FEATURES_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "chaintag/corpus.h"

namespace chaintag {

// A parsed template set. Immutable; cheap to share across threads.
class FeatureSpec {
 public:
  // Parses the template language; errors name the template line.
  static absl::StatusOr<FeatureSpec> Parse(std::string_view text);
  // Presets: "chunk-conll" (the standard CRF++ CoNLL-2000 template), "chunk", "np", "pos".
  static absl::StatusOr<FeatureSpec> Preset(std::string_view name);
  static std::vector<std::string> PresetNames();

  // The template text, exactly as parsed (stored in the model).
  const std::string& text() const;
  // Number of input columns the templates read (max column index + 1).
  int num_input_columns() const;
  // Whether a label-bigram ("B") template is present.
  bool has_label_bigram() const;

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

// Attribute strings -> dense ids 0..size()-1.
class AttributeDictionary {
 public:
  // Returns the id or -1.
  int Find(std::string_view attribute) const;
  // Adds if absent; returns the id.
  int Insert(std::string_view attribute);
  int size() const { return static_cast<int>(names_.size()); }
  const std::string& name(int id) const { return names_[id]; }
  void Reserve(int n);

 private:
  absl::flat_hash_map<std::string, int> ids_;
  std::vector<std::string> names_;
};

// Attribute ids per position in CSR form: the attributes of position t are
// attributes[offsets[t] .. offsets[t+1]). All features are binary.
struct FeaturizedSentence {
  std::vector<int32_t> offsets;  // size() + 1 entries
  std::vector<int32_t> attributes;
  int size() const { return offsets.empty() ? 0 : static_cast<int>(offsets.size()) - 1; }
  absl::Span<const int32_t> at(int t) const {
    return absl::MakeConstSpan(attributes.data() + offsets[t], offsets[t + 1] - offsets[t]);
  }
};

// Applies a FeatureSpec to sentences. Thread-compatible: use one Featurizer per thread (it keeps
// scratch buffers); the spec and dictionary it reads are shared read-only.
class Featurizer {
 public:
  explicit Featurizer(FeatureSpec spec);
  ~Featurizer();
  Featurizer(Featurizer&&) noexcept;
  Featurizer& operator=(Featurizer&&) noexcept;

  // Fails when the sentence has fewer input columns than the templates read.
  absl::Status CheckColumns(const Sentence& sentence) const;
  // Calls `sink(t, attribute)` for every attribute string of every position (training uses this
  // to count attributes and build the dictionary). The string_view is valid during the call only.
  template <typename Sink>
  void ForEachAttribute(const Sentence& sentence, Sink&& sink);
  // Maps attributes to ids; attributes absent from `dict` are dropped.
  void Featurize(const Sentence& sentence, const AttributeDictionary& dict, FeaturizedSentence* out);
  // Attribute strings of one position (for tests and `info`).
  std::vector<std::string> Attributes(const Sentence& sentence, int t);

  const FeatureSpec& spec() const { return spec_; }

 private:
  // Generates all attribute strings of position t into `out` (cleared first).
  void GeneratePosition(const Sentence& sentence, int t, std::vector<std::string>* out);
  FeatureSpec spec_;
  struct Scratch;
  std::unique_ptr<Scratch> scratch_;
  std::vector<std::string> buffer_;
};

template <typename Sink>
void Featurizer::ForEachAttribute(const Sentence& sentence, Sink&& sink) {
  for (int t = 0; t < sentence.size(); ++t) {
    GeneratePosition(sentence, t, &buffer_);
    for (const std::string& a : buffer_) sink(t, std::string_view(a));
  }
}

// Builds a dictionary from a corpus keeping attributes seen at least `min_count` times.
AttributeDictionary BuildAttributeDictionary(Featurizer& featurizer,
                                             const std::vector<Sentence>& corpus, int min_count);

}  // namespace chaintag

#endif  // CHAINTAG_FEATURES_H_
