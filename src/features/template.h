// The parsed form of a template set (FeatureSpec::Impl), shared by the parser and the Featurizer.
#ifndef CHAINTAG_FEATURES_TEMPLATE_H_
#define CHAINTAG_FEATURES_TEMPLATE_H_

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "chaintag/clusters.h"
#include "chaintag/features.h"
#include "features/functions.h"

namespace chaintag::features {

// One input column with a chain of functions (applied first to last); the Featurizer computes
// each distinct source once per token per sentence.
struct CellSource {
  int column = 0;
  std::vector<CellCall> functions;
  bool operator==(const CellSource&) const = default;
};

// A label-history reference of an LMSBN history template (%y[-k], %h[...]; docs/templates.md).
enum class HistoryKind {
  kLabel,          // %y[-k]: the label k positions back
  kChunkType,      // %h[chunk]: type of the chunk open before the current position
  kChunkLength,    // %h[chunklen]: its length so far, capped
  kPrevChunkType,  // %h[prevchunk]: type of the chunk before the open one
  kLabelCount,     // %h[count:L]: labels L (or prefix L*) so far, capped
  kChunkCount,     // %h[chunks:T]: chunks of type T begun so far, capped
  kSameWord,       // %h[same]: the label the same word form got last, earlier in the sentence
};
struct HistoryRef {
  HistoryKind kind = HistoryKind::kLabel;
  int back = 0;     // kLabel: k
  std::string arg;  // kLabelCount, kChunkCount: the label (pattern) or chunk type
  bool operator==(const HistoryRef&) const = default;
};
// Caps of the history values (counts read 0..kHistoryCountCap, lengths 0..kHistoryLengthCap).
inline constexpr int kHistoryCountCap = 3;
inline constexpr int kHistoryLengthCap = 4;
inline constexpr int kMaxHistoryBack = 8;
// History references one template may hold.
inline constexpr int kMaxHistoryRefs = 6;

// A template is a sequence of literal text and cell references, concatenated.
struct TemplatePiece {
  std::string literal;  // used when source < 0 and history < 0
  int source = -1;      // index into FeatureSpec::Impl::sources
  int row = 0;          // position offset
  int history = -1;     // index into FeatureSpec::Impl::history_refs
};

struct UnigramTemplate {
  int line = 0;      // 1-based line in the template text
  std::string name;  // text before the first ':' ("U05"), or empty
  std::vector<TemplatePiece> pieces;
};

}  // namespace chaintag::features

namespace chaintag {

struct FeatureSpec::Impl {
  std::string text;
  std::vector<features::UnigramTemplate> templates;
  // Templates with label-history references (LMSBN only); the Featurizer ignores them.
  std::vector<features::UnigramTemplate> history_templates;
  std::vector<features::HistoryRef> history_refs;
  std::vector<features::CellSource> sources;
  int num_input_columns = 0;
  bool has_label_bigram = false;
  // FeatureSpec::AttributeInput(): no templates, attributes come with the sentence.
  bool attribute_input = false;
  // Out-of-sentence markers: before[k-1] = "_B-k", after[k-1] = "_B+k" (CRF++ convention).
  std::vector<std::string> before_markers;
  std::vector<std::string> after_markers;
  // For sizing attribute buffers: literal bytes over all templates and the longest marker.
  size_t literal_bytes = 0;
  size_t longest_marker = 0;
  // Set when a template calls lex() (lex2(), cluster()): the first such template line, and what
  // it reads; `resources` points into them for the cell functions.
  int lex_line = 0;
  int lex2_line = 0;
  int cluster_line = 0;
  std::shared_ptr<const Lexicon> lexicon;
  std::shared_ptr<const Lexicon> lexicon2;
  std::shared_ptr<const WordClusters> clusters;
  features::CellResources resources;
};

namespace features {
// Parses template text into an Impl (FeatureSpec::Parse wraps this).
absl::StatusOr<FeatureSpec::Impl> ParseTemplates(std::string_view text);
}  // namespace features

}  // namespace chaintag

#endif  // CHAINTAG_FEATURES_TEMPLATE_H_
