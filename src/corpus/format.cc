// Corpus format names and extension-based detection.
#include <optional>
#include <string_view>

#include "absl/strings/str_cat.h"
#include "chaintag/corpus.h"
#include "corpus/line_reader.h"

namespace chaintag {

absl::StatusOr<CorpusFormat> ParseCorpusFormat(std::string_view name) {
  if (name == "conll") return CorpusFormat::kConll;
  if (name == "conllu") return CorpusFormat::kConllu;
  if (name == "ptb") return CorpusFormat::kPtb;
  if (name == "tagged") return CorpusFormat::kTagged;
  if (name == "attributes") return CorpusFormat::kAttributes;
  return absl::InvalidArgumentError(
      absl::StrCat("expected a format (conll, conllu, ptb, tagged, attributes), found \"",
                   corpus_internal::ToAbsl(name), "\""));
}

std::string_view CorpusFormatName(CorpusFormat format) {
  switch (format) {
    case CorpusFormat::kConll:
      return "conll";
    case CorpusFormat::kConllu:
      return "conllu";
    case CorpusFormat::kPtb:
      return "ptb";
    case CorpusFormat::kTagged:
      return "tagged";
    case CorpusFormat::kAttributes:
      return "attributes";
  }
  return "conll";
}

std::optional<CorpusFormat> CorpusFormatFromExtension(std::string_view path) {
  if (path.ends_with(".gz")) path.remove_suffix(3);
  if (path.ends_with(".conll")) return CorpusFormat::kConll;
  if (path.ends_with(".conllu")) return CorpusFormat::kConllu;
  if (path.ends_with(".mrg") || path.ends_with(".tree") || path.ends_with(".ptb")) {
    return CorpusFormat::kPtb;
  }
  if (path.ends_with(".pos") || path.ends_with(".tagged")) {
    return CorpusFormat::kTagged;
  }
  return std::nullopt;
}

CorpusFormat CorpusFormatFromPath(std::string_view path) {
  return CorpusFormatFromExtension(path).value_or(CorpusFormat::kConll);
}

}  // namespace chaintag
