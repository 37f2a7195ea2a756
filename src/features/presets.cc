// Preset template sets, stored as template text (models keep the text and re-parse it).
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "chaintag/features.h"
#include "features/functions.h"

namespace chaintag {
namespace {

// The standard CRF++ CoNLL-2000 template (crf++/example/chunking/template), verbatim.
constexpr char kChunkConll[] =
    "# CRF++ CoNLL-2000 chunking template: words (column 0) and POS (column 1).\n"
    "U00:%x[-2,0]\n"
    "U01:%x[-1,0]\n"
    "U02:%x[0,0]\n"
    "U03:%x[1,0]\n"
    "U04:%x[2,0]\n"
    "U05:%x[-1,0]/%x[0,0]\n"
    "U06:%x[0,0]/%x[1,0]\n"
    "\n"
    "U10:%x[-2,1]\n"
    "U11:%x[-1,1]\n"
    "U12:%x[0,1]\n"
    "U13:%x[1,1]\n"
    "U14:%x[2,1]\n"
    "U15:%x[-2,1]/%x[-1,1]\n"
    "U16:%x[-1,1]/%x[0,1]\n"
    "U17:%x[0,1]/%x[1,1]\n"
    "U18:%x[1,1]/%x[2,1]\n"
    "\n"
    "U20:%x[-2,1]/%x[-1,1]/%x[0,1]\n"
    "U21:%x[-1,1]/%x[0,1]/%x[1,1]\n"
    "U22:%x[0,1]/%x[1,1]/%x[2,1]\n"
    "\n"
    "B\n";

// Additions for `chunk` and `np`: case-folded words, suffixes and shapes for unknown words
// (Sha & Pereira 2003 use words, POS and their n-grams; the rest follows common CRF chunkers),
// word/POS conjunctions and POS skip-grams and 4-grams.
constexpr char kChunkExtra[] =
    "# Case-folded words in a +-2 window and word bigrams beside the current token.\n"
    "U30:lower(%x[-2,0])\n"
    "U31:lower(%x[-1,0])\n"
    "U32:lower(%x[0,0])\n"
    "U33:lower(%x[1,0])\n"
    "U34:lower(%x[2,0])\n"
    "U35:lower(%x[-2,0])/lower(%x[-1,0])\n"
    "U36:lower(%x[1,0])/lower(%x[2,0])\n"
    "# Suffixes and shapes of the current word and its neighbours.\n"
    "U40:suf2(%x[0,0])\n"
    "U41:suf3(%x[0,0])\n"
    "U42:suf2(%x[-1,0])\n"
    "U43:suf3(%x[-1,0])\n"
    "U44:suf2(%x[1,0])\n"
    "U45:suf3(%x[1,0])\n"
    "U46:shape(%x[0,0])\n"
    "U47:shortshape(%x[-1,0])\n"
    "U48:shortshape(%x[0,0])\n"
    "U49:shortshape(%x[1,0])\n"
    "# Word/POS conjunctions.\n"
    "U50:%x[0,1]/%x[0,0]\n"
    "U51:%x[-1,1]/%x[0,0]\n"
    "U52:%x[0,0]/%x[1,1]\n"
    "U53:%x[-1,0]/%x[0,1]\n"
    "U54:%x[0,1]/%x[1,0]\n"
    "# POS skip bigram and 4-grams.\n"
    "U60:%x[-1,1]/%x[1,1]\n"
    "U61:%x[-2,1]/%x[-1,1]/%x[0,1]/%x[1,1]\n"
    "U62:%x[-1,1]/%x[0,1]/%x[1,1]/%x[2,1]\n";

// Word-only POS tagging, after Ratnaparkhi (1996) and Toutanova et al. (2003): the word,
// case-folded context words, affixes, shapes, orthographic flags and word bigrams. The last
// additions (U06, U07, U33, U34, U46, U47) gave +0.1 to +0.3 EWT dev XPOS accuracy with an
// averaged perceptron.
constexpr char kPos[] =
    "# POS tagging from words only (column 0).\n"
    "U00:%x[0,0]\n"
    "U01:lower(%x[0,0])\n"
    "U02:lower(%x[-1,0])\n"
    "U03:lower(%x[1,0])\n"
    "U04:lower(%x[-2,0])\n"
    "U05:lower(%x[2,0])\n"
    "U06:%x[-1,0]\n"
    "U07:%x[1,0]\n"
    "# Prefixes and suffixes (by code point) of the current word.\n"
    "U10:pre1(%x[0,0])\n"
    "U11:pre2(%x[0,0])\n"
    "U12:pre3(%x[0,0])\n"
    "U13:pre4(%x[0,0])\n"
    "U14:suf1(lower(%x[0,0]))\n"
    "U15:suf2(lower(%x[0,0]))\n"
    "U16:suf3(lower(%x[0,0]))\n"
    "U17:suf4(lower(%x[0,0]))\n"
    "# Shapes and orthographic flags.\n"
    "U20:shape(%x[0,0])\n"
    "U21:shortshape(%x[0,0])\n"
    "U22:hasdigit(%x[0,0])\n"
    "U23:hashyphen(%x[0,0])\n"
    "U24:hasupper(%x[0,0])\n"
    "U25:allcaps(%x[0,0])\n"
    "U26:shortshape(%x[-1,0])/hasupper(%x[0,0])\n"
    "# Word bigrams, the surrounding pair and the bigrams beside the current word.\n"
    "U30:lower(%x[-1,0])/lower(%x[0,0])\n"
    "U31:lower(%x[0,0])/lower(%x[1,0])\n"
    "U32:lower(%x[-1,0])/lower(%x[1,0])\n"
    "U33:lower(%x[-2,0])/lower(%x[-1,0])\n"
    "U34:lower(%x[1,0])/lower(%x[2,0])\n"
    "# Neighbours' suffixes and shapes.\n"
    "U40:suf3(lower(%x[-1,0]))\n"
    "U41:suf3(lower(%x[1,0]))\n"
    "U42:suf2(lower(%x[-1,0]))\n"
    "U43:suf2(lower(%x[1,0]))\n"
    "U44:shortshape(%x[1,0])\n"
    "U45:lower(%x[0,0])/suf3(lower(%x[1,0]))\n"
    "U46:suf3(lower(%x[0,0]))/shortshape(%x[0,0])\n"
    "U47:lower(%x[-1,0])/suf3(lower(%x[0,0]))\n"
    "\n"
    "B\n";

// Word classes from a lexicon (lex), for the current word and its neighbours and conjoined with
// case and suffix; on EWT dev XPOS, WordNet's parts of speech (with inflected forms) read this
// way gave +0.35 accuracy over `pos` alone (see models/MODELS.md).
constexpr char kPosLexicon[] =
    "# Word classes from the lexicon (train --lexicon FILE), keyed by case-folded words.\n"
    "U50:lex(lower(%x[0,0]))\n"
    "U51:lex(lower(%x[-1,0]))\n"
    "U52:lex(lower(%x[1,0]))\n"
    "U53:lex(lower(%x[0,0]))/hasupper(%x[0,0])\n"
    "U54:lex(lower(%x[0,0]))/suf2(lower(%x[0,0]))\n"
    "U55:lex(lower(%x[0,0]))/lex(lower(%x[1,0]))\n"
    "U56:lex(lower(%x[-1,0]))/lex(lower(%x[0,0]))\n"
    "U57:lex(lower(%x[0,0]))/shortshape(%x[-1,0])\n";

// Brown clusters (Brown et al. 1992) of the word and its neighbours as bit-string prefixes of
// several lengths, after Koo et al. (2008) and Owoputi et al. (2013): a short prefix is a coarse
// word class, the full path a fine one. Keyed by the word as written (clusters of cased text).
constexpr char kPosClusters[] =
    "# Word clusters (train --clusters FILE): bit-string prefixes of the word and neighbours.\n"
    "U60:cluster(%x[0,0],4)\n"
    "U61:cluster(%x[0,0],6)\n"
    "U62:cluster(%x[0,0],10)\n"
    "U63:cluster(%x[0,0],20)\n"
    "U64:cluster(%x[0,0])\n"
    "U65:cluster(%x[-1,0],4)\n"
    "U66:cluster(%x[-1,0])\n"
    "U67:cluster(%x[1,0],4)\n"
    "U68:cluster(%x[1,0])\n";

// The same for the presets of other tasks (chunking, base NPs, named entities), which add them
// when train --clusters is given: cluster prefixes of the word in a +-1 window, and the word's
// coarse class conjoined with its POS tag (column 1).
constexpr char kWordClusters[] =
    "# Word clusters (train --clusters FILE): bit-string prefixes of the word and neighbours.\n"
    "U70:cluster(%x[0,0],4)\n"
    "U71:cluster(%x[0,0],6)\n"
    "U72:cluster(%x[0,0],10)\n"
    "U73:cluster(%x[0,0])\n"
    "U74:cluster(%x[-1,0],4)\n"
    "U75:cluster(%x[-1,0])\n"
    "U76:cluster(%x[1,0],4)\n"
    "U77:cluster(%x[1,0])\n"
    "U78:cluster(%x[0,0],6)/%x[0,1]\n";

// Named entities from words (column 0) and POS (column 1), the feature set of the
// sklearn-crfsuite CoNLL-2002 tutorial (word, case-folded word, suffixes, case and digit flags,
// POS and its first two characters, the same for the neighbours) widened with prefixes, shapes,
// a +-2 window and word and POS bigrams.
constexpr char kNer[] =
    "# Named-entity recognition from words (column 0) and POS tags (column 1).\n"
    "U00:%x[0,0]\n"
    "U01:lower(%x[0,0])\n"
    "U02:lower(%x[-1,0])\n"
    "U03:lower(%x[1,0])\n"
    "U04:lower(%x[-2,0])\n"
    "U05:lower(%x[2,0])\n"
    "# Prefixes and suffixes of the current word.\n"
    "U10:pre1(%x[0,0])\n"
    "U11:pre2(%x[0,0])\n"
    "U12:pre3(%x[0,0])\n"
    "U13:pre4(%x[0,0])\n"
    "U14:suf2(lower(%x[0,0]))\n"
    "U15:suf3(lower(%x[0,0]))\n"
    "U16:suf4(lower(%x[0,0]))\n"
    "# Shapes and flags of the word and its neighbours.\n"
    "U20:shape(%x[0,0])\n"
    "U21:shortshape(%x[0,0])\n"
    "U22:shortshape(%x[-1,0])\n"
    "U23:shortshape(%x[1,0])\n"
    "U24:hasupper(%x[0,0])/allcaps(%x[0,0])\n"
    "U25:hasdigit(%x[0,0])\n"
    "U26:hashyphen(%x[0,0])\n"
    "U27:hasupper(%x[-1,0])/hasupper(%x[0,0])/hasupper(%x[1,0])\n"
    "# POS tags in a +-2 window, their first two characters, bigrams.\n"
    "U30:%x[0,1]\n"
    "U31:%x[-1,1]\n"
    "U32:%x[1,1]\n"
    "U33:%x[-2,1]\n"
    "U34:%x[2,1]\n"
    "U35:pre2(%x[0,1])\n"
    "U36:pre2(%x[-1,1])\n"
    "U37:pre2(%x[1,1])\n"
    "U38:%x[-1,1]/%x[0,1]\n"
    "U39:%x[0,1]/%x[1,1]\n"
    "# Word bigrams and word/shape conjunctions.\n"
    "U40:lower(%x[-1,0])/lower(%x[0,0])\n"
    "U41:lower(%x[0,0])/lower(%x[1,0])\n"
    "U42:lower(%x[-1,0])/shortshape(%x[0,0])\n"
    "U43:shortshape(%x[0,0])/lower(%x[1,0])\n"
    "U44:%x[0,1]/shortshape(%x[0,0])\n"
    "\n"
    "B\n";

// Label-history templates for the LMSBN (`--objective lmsbn`): previous labels and their
// conjunctions with the observations, the open chunk (type, length), the chunk before it, capped
// chunk counts and the label the same word got earlier in the sentence.
constexpr char kChunkHistory[] =
    "# Label history (LMSBN): the previous labels, alone and with words and POS.\n"
    "H00:%y[-1]\n"
    "H01:%y[-2]/%y[-1]\n"
    "H02:%y[-3]/%y[-2]/%y[-1]\n"
    "H03:%y[-1]/%x[0,1]\n"
    "H04:%y[-1]/%x[0,0]\n"
    "H05:%y[-2]/%y[-1]/%x[0,1]\n"
    "H06:%y[-1]/%x[-1,1]/%x[0,1]\n"
    "H07:%y[-1]/%x[0,1]/%x[1,1]\n"
    "# The open chunk, its length and the chunk before it; chunks so far.\n"
    "H10:%h[chunk]/%h[chunklen]\n"
    "H11:%h[chunk]/%h[chunklen]/%x[0,1]\n"
    "H12:%h[prevchunk]/%h[chunk]\n"
    "H13:%h[prevchunk]/%h[chunk]/%x[0,1]\n"
    "H14:%h[chunks:VP]/%h[chunks:NP]\n"
    "H15:%h[chunks:VP]/%x[0,1]\n"
    "H16:%h[same]\n";

constexpr char kPosHistory[] =
    "# Label history (LMSBN): the previous tags, alone and with words and suffixes.\n"
    "H00:%y[-1]\n"
    "H01:%y[-2]/%y[-1]\n"
    "H02:%y[-1]/lower(%x[0,0])\n"
    "H03:%y[-1]/suf3(lower(%x[0,0]))\n"
    "H04:%y[-2]/%y[-1]/suf2(lower(%x[0,0]))\n"
    "H05:%y[-1]/lower(%x[1,0])\n"
    "H06:%y[-1]/shortshape(%x[0,0])\n"
    "# Whether a verb occurred so far; the tag the same word got earlier.\n"
    "H10:%h[count:VB*]/%y[-1]\n"
    "H11:%h[count:VB*]/suf2(lower(%x[0,0]))\n"
    "H12:%h[same]\n";

// `base` without its label bigram line, followed by `history`.
std::string WithHistory(std::string_view base, std::string_view history) {
  base.remove_suffix(2);
  return absl::StrCat(features::ToAbsl(base), features::ToAbsl(history));
}

// `base` (which ends in the label bigram "B\n") with `extra` templates inserted before its "B".
std::string Extend(std::string_view base, std::string_view extra) {
  base.remove_suffix(2);
  return absl::StrCat(features::ToAbsl(base), features::ToAbsl(extra), "\nB\n");
}

std::string PresetText(std::string_view name) {
  if (name == "chunk-conll") return kChunkConll;
  if (name == "chunk" || name == "np") {
    return absl::StrCat("# Preset '", features::ToAbsl(name),
                        "': the CRF++ CoNLL-2000 set plus lexical additions.\n",
                        Extend(kChunkConll, kChunkExtra));
  }
  if (name == "pos") return kPos;
  if (name == "pos-lexicon") return Extend(kPos, kPosLexicon);
  if (name == "pos-clusters") return Extend(kPos, kPosClusters);
  if (name == "pos-lexicon-clusters") {
    return Extend(kPos, absl::StrCat(kPosLexicon, kPosClusters));
  }
  if (name == "ner") return kNer;
  if (name == "chunk-history") {
    return absl::StrCat(
        "# Preset 'chunk-history' (LMSBN): the 'chunk' observation templates plus label history.\n",
        WithHistory(Extend(kChunkConll, kChunkExtra), kChunkHistory));
  }
  if (name == "pos-history") {
    return absl::StrCat(
        "# Preset 'pos-history' (LMSBN): the 'pos' observation templates plus label history.\n",
        WithHistory(kPos, kPosHistory));
  }
  return "";
}

}  // namespace

std::vector<std::string> FeatureSpec::PresetNames() {
  return {"chunk-conll",
          "chunk",
          "np",
          "pos",
          "pos-lexicon",
          "pos-clusters",
          "pos-lexicon-clusters",
          "ner",
          "chunk-history",
          "pos-history"};
}

absl::StatusOr<FeatureSpec> FeatureSpec::Preset(std::string_view name,
                                                std::shared_ptr<const Lexicon> lexicon) {
  FeatureResources resources;
  resources.lexicon = std::move(lexicon);
  return Preset(name, std::move(resources));
}

absl::StatusOr<FeatureSpec> FeatureSpec::Preset(std::string_view name, FeatureResources resources) {
  std::string text = PresetText(name);
  if (text.empty()) {
    return absl::InvalidArgumentError(absl::StrCat("feature preset: expected one of ",
                                                   absl::StrJoin(PresetNames(), ", "), "; found '",
                                                   features::ToAbsl(name), "'"));
  }
  // A preset without cluster() templates adds its task's cluster templates when clusters are
  // given (train --preset pos --clusters FILE is pos-clusters), so every preset can use them.
  if (resources.clusters != nullptr && !absl::StrContains(text, "cluster(")) {
    const bool pos = absl::StartsWith(features::ToAbsl(name), "pos");
    const std::string_view extra = pos ? kPosClusters : kWordClusters;
    text = absl::EndsWith(text, "\nB\n") ? Extend(text, extra)
                                         : absl::StrCat(text, features::ToAbsl(extra));
  }
  return Parse(text, std::move(resources));
}

}  // namespace chaintag
