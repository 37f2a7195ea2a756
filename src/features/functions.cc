#include "features/functions.h"

#include <array>
#include <cstdint>

#include "chaintag/clusters.h"
#include "chaintag/features.h"
#include "unicode/uchar.h"
#include "unicode/unistr.h"
#include "unicode/utf8.h"

namespace chaintag::features {
namespace {

struct NamedFunction {
  std::string_view name;
  CellFunction function;
};

constexpr std::array<NamedFunction, 18> kFunctions = {{
    {"lower", CellFunction::kLower},
    {"pre1", CellFunction::kPre1},
    {"pre2", CellFunction::kPre2},
    {"pre3", CellFunction::kPre3},
    {"pre4", CellFunction::kPre4},
    {"suf1", CellFunction::kSuf1},
    {"suf2", CellFunction::kSuf2},
    {"suf3", CellFunction::kSuf3},
    {"suf4", CellFunction::kSuf4},
    {"shape", CellFunction::kShape},
    {"shortshape", CellFunction::kShortShape},
    {"hasdigit", CellFunction::kHasDigit},
    {"hashyphen", CellFunction::kHasHyphen},
    {"hasupper", CellFunction::kHasUpper},
    {"allcaps", CellFunction::kAllCaps},
    {"lex", CellFunction::kLex},
    {"lex2", CellFunction::kLex2},
    {"cluster", CellFunction::kCluster},
}};

bool IsAscii(std::string_view s) {
  for (unsigned char c : s) {
    if (c >= 0x80) return false;
  }
  return true;
}

// Character classes shared by shape and the boolean functions.
enum class CharClass { kUpper, kLower, kDigit, kOtherLetter, kOther };

CharClass Classify(UChar32 c) {
  if (c < 0x80) {
    if (c >= 'A' && c <= 'Z') return CharClass::kUpper;
    if (c >= 'a' && c <= 'z') return CharClass::kLower;
    if (c >= '0' && c <= '9') return CharClass::kDigit;
    return CharClass::kOther;
  }
  if (c < 0) return CharClass::kOther;
  if (u_isupper(c) || u_istitle(c)) return CharClass::kUpper;
  if (u_islower(c)) return CharClass::kLower;
  if (u_isdigit(c)) return CharClass::kDigit;
  if (u_isalpha(c)) return CharClass::kOtherLetter;
  return CharClass::kOther;
}

// Calls fn(code_point, begin, end) for each UTF-8 sequence; invalid bytes give code point < 0.
template <typename Fn>
void ForEachCodePoint(std::string_view s, Fn&& fn) {
  const auto* data = reinterpret_cast<const uint8_t*>(s.data());
  const int32_t length = static_cast<int32_t>(s.size());
  int32_t i = 0;
  while (i < length) {
    const int32_t begin = i;
    UChar32 c;
    if (data[i] < 0x80) {
      c = data[i++];
    } else {
      U8_NEXT(data, i, length, c);
    }
    fn(c, begin, i);
  }
}

bool IsHyphen(UChar32 c) { return c == '-' || c == 0x2010 || c == 0x2011; }

}  // namespace

std::optional<CellFunction> CellFunctionFromName(std::string_view name) {
  for (const NamedFunction& f : kFunctions) {
    if (f.name == name) return f.function;
  }
  return std::nullopt;
}

std::string_view CellFunctionName(CellFunction f) {
  for (const NamedFunction& n : kFunctions) {
    if (n.function == f) return n.name;
  }
  return "?";
}

std::string_view CellFunctionNameList() {
  return "lower, pre1, pre2, pre3, pre4, suf1, suf2, suf3, suf4, shape, shortshape, hasdigit, "
         "hashyphen, hasupper, allcaps, lex, lex2, cluster";
}

void AppendLower(std::string_view value, std::string* out) {
  if (IsAscii(value)) {
    const size_t base = out->size();
    out->append(value);
    for (size_t i = base; i < out->size(); ++i) {
      char& c = (*out)[i];
      if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    }
    return;
  }
  // Full Unicode case folding (e.g. "Straße" -> "strasse"), as ICU defines it.
  icu::UnicodeString u = icu::UnicodeString::fromUTF8(
      icu::StringPiece(value.data(), static_cast<int32_t>(value.size())));
  u.foldCase();
  u.toUTF8String(*out);
}

void AppendPrefix(std::string_view value, int code_points, std::string* out) {
  size_t end = 0;
  int seen = 0;
  while (end < value.size()) {
    const auto b = static_cast<unsigned char>(value[end]);
    if ((b & 0xC0) != 0x80) {
      if (seen == code_points) break;
      ++seen;
    }
    ++end;
  }
  out->append(value.substr(0, end));
}

void AppendSuffix(std::string_view value, int code_points, std::string* out) {
  size_t begin = value.size();
  int seen = 0;
  while (begin > 0 && seen < code_points) {
    --begin;
    const auto b = static_cast<unsigned char>(value[begin]);
    if ((b & 0xC0) != 0x80) ++seen;
  }
  out->append(value.substr(begin));
}

void AppendShape(std::string_view value, bool collapse_runs, std::string* out) {
  // Run identity: the mapped letter for classes, the code point (or -1 - byte offset) otherwise.
  int64_t last = INT64_MIN;
  ForEachCodePoint(value, [&](UChar32 c, int32_t begin, int32_t end) {
    char mapped = 0;
    switch (Classify(c)) {
      case CharClass::kUpper:
        mapped = 'X';
        break;
      case CharClass::kLower:
      case CharClass::kOtherLetter:
        mapped = 'x';
        break;
      case CharClass::kDigit:
        mapped = 'd';
        break;
      case CharClass::kOther:
        break;
    }
    const int64_t id = mapped != 0 ? -1000 - mapped : (c >= 0 ? c : -2000 - value[begin]);
    if (collapse_runs && id == last) return;
    last = id;
    if (mapped != 0) {
      out->push_back(mapped);
    } else {
      out->append(value.substr(begin, end - begin));
    }
  });
}

void ApplyCellFunction(const CellCall& call, std::string_view value, std::string* out,
                       const CellResources* resources) {
  const CellFunction f = call.function;
  switch (f) {
    case CellFunction::kLex:
    case CellFunction::kLex2: {
      const Lexicon* lexicon = resources == nullptr      ? nullptr
                               : f == CellFunction::kLex ? resources->lexicon
                                                         : resources->lexicon2;
      out->append(lexicon == nullptr ? Lexicon::kAbsent : lexicon->Lookup(value));
      return;
    }
    case CellFunction::kCluster: {
      std::string_view path = resources == nullptr || resources->clusters == nullptr
                                  ? WordClusters::kAbsent
                                  : resources->clusters->Lookup(value);
      // A prefix of the bit string; the absent marker is never cut.
      if (call.arg >= 0 && path != WordClusters::kAbsent &&
          path.size() > static_cast<size_t>(call.arg)) {
        path = path.substr(0, call.arg);
      }
      out->append(path);
      return;
    }
    case CellFunction::kLower:
      AppendLower(value, out);
      return;
    case CellFunction::kPre1:
      AppendPrefix(value, 1, out);
      return;
    case CellFunction::kPre2:
      AppendPrefix(value, 2, out);
      return;
    case CellFunction::kPre3:
      AppendPrefix(value, 3, out);
      return;
    case CellFunction::kPre4:
      AppendPrefix(value, 4, out);
      return;
    case CellFunction::kSuf1:
      AppendSuffix(value, 1, out);
      return;
    case CellFunction::kSuf2:
      AppendSuffix(value, 2, out);
      return;
    case CellFunction::kSuf3:
      AppendSuffix(value, 3, out);
      return;
    case CellFunction::kSuf4:
      AppendSuffix(value, 4, out);
      return;
    case CellFunction::kShape:
      AppendShape(value, /*collapse_runs=*/false, out);
      return;
    case CellFunction::kShortShape:
      AppendShape(value, /*collapse_runs=*/true, out);
      return;
    case CellFunction::kHasDigit:
    case CellFunction::kHasHyphen:
    case CellFunction::kHasUpper:
    case CellFunction::kAllCaps:
      break;
  }
  bool digit = false, hyphen = false, upper = false, lower = false;
  ForEachCodePoint(value, [&](UChar32 c, int32_t, int32_t) {
    const CharClass k = Classify(c);
    digit |= k == CharClass::kDigit;
    upper |= k == CharClass::kUpper;
    lower |= k == CharClass::kLower;
    hyphen |= IsHyphen(c);
  });
  bool result = false;
  switch (f) {
    case CellFunction::kHasDigit:
      result = digit;
      break;
    case CellFunction::kHasHyphen:
      result = hyphen;
      break;
    case CellFunction::kHasUpper:
      result = upper;
      break;
    case CellFunction::kAllCaps:
      result = upper && !lower;
      break;
    default:
      break;
  }
  out->push_back(result ? '1' : '0');
}

}  // namespace chaintag::features
