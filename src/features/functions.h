// Per-cell string functions of the template language (lower, pre1..4, suf1..4, shape, ...).
#ifndef CHAINTAG_FEATURES_FUNCTIONS_H_
#define CHAINTAG_FEATURES_FUNCTIONS_H_

#include <optional>
#include <string>
#include <string_view>

#include "absl/strings/string_view.h"
#include "string_view_compat.h"

namespace chaintag {
class Lexicon;
class WordClusters;
}  // namespace chaintag

namespace chaintag::features {

using ::chaintag::ToAbsl;
inline std::string_view FromAbsl(absl::string_view s) { return {s.data(), s.size()}; }

enum class CellFunction {
  kLower,
  kPre1,
  kPre2,
  kPre3,
  kPre4,
  kSuf1,
  kSuf2,
  kSuf3,
  kSuf4,
  kShape,
  kShortShape,
  kHasDigit,
  kHasHyphen,
  kHasUpper,
  kAllCaps,
  kLex,      // word classes from the spec's Lexicon
  kLex2,     // word classes from the spec's second Lexicon
  kCluster,  // the word's cluster bit string (a prefix of it) from the spec's WordClusters
};

// One function of a cell expression with its argument: cluster(EXPR, P) keeps P bits
// (arg = P; -1 keeps the full path). Other functions take no argument.
struct CellCall {
  CellFunction function = CellFunction::kLower;
  int arg = -1;
  CellCall() = default;
  CellCall(CellFunction f, int a = -1) : function(f), arg(a) {}  // NOLINT: implicit on purpose
  bool operator==(const CellCall&) const = default;
};

// What lex(), lex2() and cluster() read (null when the spec has none).
struct CellResources {
  const Lexicon* lexicon = nullptr;
  const Lexicon* lexicon2 = nullptr;
  const WordClusters* clusters = nullptr;
};

// The function called `name` in templates, or nullopt.
std::optional<CellFunction> CellFunctionFromName(std::string_view name);
std::string_view CellFunctionName(CellFunction f);
// Comma-separated list of all names, for error messages.
std::string_view CellFunctionNameList();

// Appends f(value) to *out. Boolean functions append "1" or "0". `value` is UTF-8 (readers
// validate it); invalid bytes become U+FFFD in non-ASCII lower and are kept as-is elsewhere.
// kLex and kLex2 look `value` up in the resources' lexicons (Lexicon::kAbsent when there is none
// or it lacks the word); kCluster in its clusters (WordClusters::kAbsent likewise).
void ApplyCellFunction(const CellCall& f, std::string_view value, std::string* out,
                       const CellResources* resources = nullptr);

// Exposed for tests.
void AppendLower(std::string_view value, std::string* out);
void AppendPrefix(std::string_view value, int code_points, std::string* out);
void AppendSuffix(std::string_view value, int code_points, std::string* out);
void AppendShape(std::string_view value, bool collapse_runs, std::string* out);

}  // namespace chaintag::features

#endif  // CHAINTAG_FEATURES_FUNCTIONS_H_
