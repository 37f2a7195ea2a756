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
}

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
  kLex,  // word classes from the spec's Lexicon
};

// The function called `name` in templates, or nullopt.
std::optional<CellFunction> CellFunctionFromName(std::string_view name);
std::string_view CellFunctionName(CellFunction f);
// Comma-separated list of all names, for error messages.
std::string_view CellFunctionNameList();

// Appends f(value) to *out. Boolean functions append "1" or "0". `value` is UTF-8 (readers
// validate it); invalid bytes become U+FFFD in non-ASCII lower and are kept as-is elsewhere.
// kLex looks `value` up in `lexicon` (Lexicon::kAbsent when it is null or lacks the word).
void ApplyCellFunction(CellFunction f, std::string_view value, std::string* out,
                       const Lexicon* lexicon = nullptr);

// Exposed for tests.
void AppendLower(std::string_view value, std::string* out);
void AppendPrefix(std::string_view value, int code_points, std::string* out);
void AppendSuffix(std::string_view value, int code_points, std::string* out);
void AppendShape(std::string_view value, bool collapse_runs, std::string* out);

}  // namespace chaintag::features

#endif  // CHAINTAG_FEATURES_FUNCTIONS_H_
