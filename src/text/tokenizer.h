// Internals of the text module: PTB tokenisation of a paragraph and sentence boundary decisions.
#ifndef CHAINTAG_SRC_TEXT_TOKENIZER_H_
#define CHAINTAG_SRC_TEXT_TOKENIZER_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "chaintag/text.h"
#include "unicode/brkiter.h"

namespace chaintag::text_internal {

enum class TokenKind : uint8_t {
  kWord,      // letters/digits with internal . - , : / & ' (form: NFC of the text)
  kAbbrev,    // abbreviation including its final period ("Mr.", "U.S.")
  kPeriod,    // "."
  kStop,      // runs of ! and ?
  kEllipsis,  // "..", "...", "…" (form "...")
  kContinue,  // , ; :
  kOpenDq,    // " or “ opening -> ``
  kCloseDq,   // " or ” closing -> ''
  kOpenSq,    // ' or ‘ opening -> `
  kCloseSq,   // ' or ’ closing -> '
  kClitic,    // n't 's 're 've 'd 'm 'll (curly apostrophe -> ')
  kLrb,
  kRrb,
  kLsb,
  kRsb,
  kLcb,
  kRcb,
  kDash,  // "--" and longer runs of hyphens
  kUrl,   // http://, https://, www.
  kEmail,
  kEmoji,    // one emoji sequence (ZWJ, modifiers, flags)
  kComplex,  // a word of a script without spaces (Han, Kana, Thai...), from ICU word breaks
  kSymbol,   // any other single character
};

// [begin, end) are byte offsets into the paragraph buffer.
struct RawToken {
  uint32_t begin;
  uint32_t end;
  TokenKind kind;
};

inline bool IsTerminal(TokenKind k) {
  return k == TokenKind::kPeriod || k == TokenKind::kAbbrev || k == TokenKind::kStop ||
         k == TokenKind::kEllipsis;
}
inline bool IsCloser(TokenKind k) {
  return k == TokenKind::kCloseDq || k == TokenKind::kCloseSq || k == TokenKind::kRrb ||
         k == TokenKind::kRsb || k == TokenKind::kRcb;
}
inline bool IsOpener(TokenKind k) {
  return k == TokenKind::kOpenDq || k == TokenKind::kOpenSq || k == TokenKind::kLrb ||
         k == TokenKind::kLsb || k == TokenKind::kLcb;
}

// Abbreviations (stored without the final period) in two classes: "prepositive" ones (titles,
// "e.g", months) never end a sentence; "final" ones ("etc", "Inc", "U.S") end one only when a
// common sentence starter follows.
class AbbreviationSet {
 public:
  AbbreviationSet(bool builtin, const std::vector<std::string>& extra);
  // True when `word` (without period) is listed, or is a single letter, or looks like "U.S"/"Ph.D".
  bool IsAbbreviation(std::string_view word) const;
  // False when a sentence can never end after `word`. (precondition: IsAbbreviation)
  bool MayEndSentence(std::string_view word) const;
  static bool IsSentenceStarter(std::string_view word);

 private:
  bool Lookup(const absl::flat_hash_set<std::string>& set, std::string_view word) const;
  absl::flat_hash_set<std::string> prepositive_;
  absl::flat_hash_set<std::string> final_;
};

// Splits paragraph text into PTB tokens. Keeps ICU word break iterator between calls.
class Tokenizer {
 public:
  explicit Tokenizer(const TextOptions& options);
  ~Tokenizer();
  // Appends the tokens of `text` (valid UTF-8) to `out`.
  void Tokenize(std::string_view text, std::vector<RawToken>* out);
  // The token's form as the models expect it (PTB replacements, NFC).
  std::string Form(std::string_view text, const RawToken& token) const;
  const AbbreviationSet& abbreviations() const { return abbreviations_; }

 private:
  void TokenizeChunk(std::string_view text, size_t b, size_t e, std::vector<RawToken>* out);
  size_t ScanWord(std::string_view text, size_t p, size_t e) const;
  // Pushes the word text[p,q) (clitics split off, a final period handled); returns the next
  // position.
  size_t EmitWord(std::string_view text, size_t p, size_t q, size_t e, std::vector<RawToken>* out);
  void SegmentComplex(std::string_view text, size_t p, size_t q, std::vector<RawToken>* out);

  TextOptions options_;
  AbbreviationSet abbreviations_;
  std::unique_ptr<icu::BreakIterator> word_breaker_;
  bool last_dq_open_ = false;
};

// Decides sentence ends over tokens of one paragraph region: appends to `ends` every index e
// such that a sentence ends after token e-1 (the end of the region is not added).
// Candidates come from a token-level rule set equivalent to UAX #29 for ASCII; `use_icu` adds
// those of ICU's sentence BreakIterator (non-ASCII terminators). Both are filtered alike.
class SentenceSplitter {
 public:
  explicit SentenceSplitter(const AbbreviationSet* abbreviations);
  ~SentenceSplitter();
  void Split(std::string_view text, const std::vector<RawToken>& tokens, bool use_icu,
             std::vector<uint32_t>* ends);

 private:
  bool Allowed(std::string_view text, const std::vector<RawToken>& tokens, size_t k) const;
  bool NextLetterIsLower(std::string_view text, const std::vector<RawToken>& tokens,
                         size_t j) const;
  const AbbreviationSet* abbreviations_;
  std::unique_ptr<icu::BreakIterator> sentence_breaker_;
  std::string icu_text_;
  std::vector<int32_t> icu_breaks_;
};

// Fresh break iterators cloned from process-wide prototypes (creating one costs milliseconds).
std::unique_ptr<icu::BreakIterator> NewWordBreaker();
std::unique_ptr<icu::BreakIterator> NewSentenceBreaker();

// Decodes the valid UTF-8 code point at text[i]; sets *len.
char32_t DecodeUtf8(std::string_view text, size_t i, int* len);

}  // namespace chaintag::text_internal

#endif  // CHAINTAG_SRC_TEXT_TOKENIZER_H_
