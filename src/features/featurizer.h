// Featurization: a FeatureSpec applied to sentences (attribute strings, ids per position), the
// label-history attributes of LMSBN models, and building a dictionary from a corpus. Internal:
// the tagger and the trainers use it; users reach it through Model and Train (chaintag/features.h
// holds the templates, presets and the dictionary).
#ifndef CHAINTAG_SRC_FEATURES_FEATURIZER_H_
#define CHAINTAG_SRC_FEATURES_FEATURIZER_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "chaintag/corpus.h"
#include "chaintag/features.h"

namespace chaintag {

// Attribute ids per position in CSR form: the attributes of position t are
// attributes[offsets[t] .. offsets[t+1]). Template features are binary (`values` empty); attribute
// input may carry real values, one per entry of `attributes`, which multiply the weights.
struct FeaturizedSentence {
  std::vector<int32_t> offsets;  // size() + 1 entries
  std::vector<int32_t> attributes;
  std::vector<float> values;  // empty: every value is 1 (the fast path); else attributes.size()
  bool weighted() const { return !values.empty(); }
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

  // Fails when the sentence has fewer input columns than the templates read. The other methods
  // assume it passed: a missing column reads as empty strings.
  absl::Status CheckColumns(const Sentence& sentence) const;
  // Calls `sink(t, attribute)` for every attribute string of every position (training uses this
  // to count attributes and build the dictionary). The string_view is valid during the call only.
  // For attribute input these are the sentence's attribute names (their values are not passed).
  template <typename Sink>
  void ForEachAttribute(const Sentence& sentence, Sink&& sink);
  // Maps attributes to ids; attributes absent from `dict` are dropped. Ids of a position come in
  // template order; `out` is overwritten (its capacity reused).
  void Featurize(const Sentence& sentence, const AttributeDictionary& dict,
                 FeaturizedSentence* out);
  // Attribute strings of one position (for tests and `info`).
  std::vector<std::string> Attributes(const Sentence& sentence, int t);

  // Makes Featurize with `dict` remember, per distinct cell value (at most `max_values` per input
  // column, then the memory is reset), the derived values and the ids of the templates that read
  // only that one cell, so repeated words skip building, hashing and looking up those strings.
  // The ids are those Featurize would give; `dict` must outlive this and must not change while
  // enabled (a Model's dictionary). Other dictionaries are featurized as before. nullptr disables.
  void EnableValueCache(const AttributeDictionary* dict, int max_values = 1 << 15);

  const FeatureSpec& spec() const { return spec_; }

 private:
  // Computes every cell source (column + functions) of every token of `sentence` once.
  void Prepare(const Sentence& sentence);
  // Writes the attribute strings of position t of the prepared sentence into `out`, one per
  // template (resized to num_templates(); strings reuse their capacity).
  void GeneratePosition(int t, std::vector<std::string>* out);
  // Featurize for FeatureSpec::AttributeInput(): looks the sentence's attributes up.
  void FeaturizeAttributes(const Sentence& sentence, const AttributeDictionary& dict,
                           FeaturizedSentence* out);
  // Featurize through the value cache; false (nothing written) when the sentence has a missing or
  // short column, which the uncached path handles.
  bool FeaturizeCached(const Sentence& sentence, const AttributeDictionary& dict,
                       FeaturizedSentence* out);
  FeatureSpec spec_;
  struct Scratch;
  // Sizes the attribute-string buffer for positions [begin, end) of the prepared sentence.
  static void SizeKeyBuffer(const FeatureSpec::Impl& impl, int num_sources, int num_templates,
                            int begin, int end, Scratch* scratch);
  std::unique_ptr<Scratch> scratch_;
  std::vector<std::string> buffer_;
};

template <typename Sink>
void Featurizer::ForEachAttribute(const Sentence& sentence, Sink&& sink) {
  if (spec_.reads_attributes()) {
    if (!sentence.has_attributes()) return;
    for (int t = 0; t < sentence.size(); ++t) {
      for (int32_t k = sentence.attribute_offsets[t]; k < sentence.attribute_offsets[t + 1]; ++k)
        sink(t, std::string_view(sentence.attribute_names[k]));
    }
    return;
  }
  Prepare(sentence);
  for (int t = 0; t < sentence.size(); ++t) {
    GeneratePosition(t, &buffer_);
    for (const std::string& a : buffer_) sink(t, std::string_view(a));
  }
}

// The label-history attributes of an LMSBN model (Miao and Rao, left-to-right large-margin
// model): the spec's history templates evaluated at position t given the labels y_0..y_{t-1}
// already decided, plus kBiasAttribute at every position (a per-label bias). The observation
// cells of history templates are rendered once per sentence (Prepare); per (position, history)
// only the history values are computed, from a small state advanced label by label, and ids are
// cached per sentence by (position, template, history values), so a search that revisits a
// history pays one hash lookup per template. Thread-compatible: one per thread.
class HistoryFeaturizer {
 public:
  static constexpr std::string_view kBiasAttribute = "%bias";

  explicit HistoryFeaturizer(FeatureSpec spec);
  ~HistoryFeaturizer();
  HistoryFeaturizer(HistoryFeaturizer&&) noexcept;
  HistoryFeaturizer& operator=(HistoryFeaturizer&&) noexcept;

  // Label ids: a tagger fixes them to the model's (SetLabels); training interns gold labels as
  // they come (InternLabel). Ids are this featurizer's own.
  void SetLabels(const std::vector<std::string>& labels);
  int InternLabel(std::string_view label);
  int num_labels() const;

  // The history summary after a prefix of labels (chunk state and capped counts).
  struct State {
    int last_label = -1;
    int open_type = -1;  // chunk type id of the open chunk, -1: none
    int open_length = 0;
    int prev_type = -1;
    std::vector<int> counts;  // one per count reference, capped
  };
  State Initial() const;
  // The state after giving `label` to the next position.
  void Advance(int label, State* state) const;

  // Computes the observation parts for `sentence` (call once per sentence, before the rest).
  void Prepare(const Sentence& sentence);
  // Calls sink(attribute) for every history attribute of position t, bias first, given the labels
  // of positions 0..t-1 (`history`, at least t entries) and the state after them.
  void ForEachAttribute(int t, absl::Span<const int> history, const State& state,
                        const std::function<void(std::string_view)>& sink);
  // The ids in `dict` of those attributes (absent ones dropped), appended to `ids`; cached per
  // sentence. `dict` must not change between Prepare calls.
  void FindIds(int t, absl::Span<const int> history, const State& state,
               const AttributeDictionary& dict, std::vector<int32_t>* ids);

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

// Builds a dictionary from a corpus keeping attributes seen at least `min_count` times (every
// occurrence counts); ids follow first occurrence (sentence, position, template order).
AttributeDictionary BuildAttributeDictionary(Featurizer& featurizer,
                                             const std::vector<Sentence>& corpus, int min_count);

}  // namespace chaintag

#endif  // CHAINTAG_SRC_FEATURES_FEATURIZER_H_
