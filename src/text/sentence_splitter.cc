// Sentence boundaries: ICU's BreakIterator (UAX #29 sentence rules) or an equivalent token-level
// rule set for ASCII text, both filtered by the abbreviation list.
#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "text/tokenizer.h"
#include "unicode/brkiter.h"
#include "unicode/locid.h"
#include "unicode/uchar.h"
#include "unicode/utext.h"

namespace chaintag::text_internal {

SentenceSplitter::SentenceSplitter(const AbbreviationSet* abbreviations)
    : abbreviations_(abbreviations) {}

SentenceSplitter::~SentenceSplitter() = default;

// UAX #29 SB8: after a period, the first letter decides; a lower-case one continues the sentence.
bool SentenceSplitter::NextLetterIsLower(std::string_view text, const std::vector<RawToken>& tokens,
                                         size_t j) const {
  for (size_t t = j; t < tokens.size() && t < j + 8; ++t) {
    if (t > j && IsTerminal(tokens[t].kind) && tokens[t].kind != TokenKind::kAbbrev) return false;
    for (size_t i = tokens[t].begin; i < tokens[t].end;) {
      int len;
      char32_t c = DecodeUtf8(text, i, &len);
      if (c < 0x80) {
        if (c >= 'a' && c <= 'z') return true;
        if (c >= 'A' && c <= 'Z') return false;
      } else if (u_isalpha(c)) {
        return u_islower(c);
      }
      i += len;
    }
  }
  return false;
}

// May a sentence end between tokens k and k+1?
bool SentenceSplitter::Allowed(std::string_view text, const std::vector<RawToken>& tokens,
                               size_t k) const {
  const size_t j = k + 1;
  if (j >= tokens.size()) return true;
  const TokenKind next = tokens[j].kind;
  if ((IsTerminal(next) && next != TokenKind::kAbbrev) || IsCloser(next) ||
      next == TokenKind::kContinue) {
    return false;
  }
  if (NextLetterIsLower(text, tokens, j)) return false;
  size_t i = k;
  while (i > 0 && IsCloser(tokens[i].kind)) --i;
  if (tokens[i].kind == TokenKind::kAbbrev) {
    std::string_view word = text.substr(tokens[i].begin, tokens[i].end - tokens[i].begin - 1);
    if (!abbreviations_->MayEndSentence(word)) return false;
    size_t s = j;
    while (s < tokens.size() && IsOpener(tokens[s].kind)) ++s;
    if (s == tokens.size()) return true;
    return AbbreviationSet::IsSentenceStarter(
        text.substr(tokens[s].begin, tokens[s].end - tokens[s].begin));
  }
  return true;
}

void SentenceSplitter::Split(std::string_view text, const std::vector<RawToken>& tokens,
                             bool use_icu, std::vector<uint32_t>* ends) {
  const size_t n = tokens.size();
  if (n == 0) return;
  // The rule set runs in both modes; ICU adds boundaries after non-ASCII terminators ("。", "！").
  for (size_t i = 0; i + 1 < n; ++i) {
    if (!IsTerminal(tokens[i].kind)) continue;
    size_t j = i + 1;
    while (j < n && IsCloser(tokens[j].kind)) ++j;
    if (j < n && Allowed(text, tokens, j - 1)) ends->push_back(static_cast<uint32_t>(j));
    i = j - 1;
  }
  if (!use_icu) return;
  const size_t rule_ends = ends->size();
  UErrorCode status = U_ZERO_ERROR;
  if (sentence_breaker_ == nullptr) sentence_breaker_ = NewSentenceBreaker();
  if (sentence_breaker_ == nullptr) return;
  // Single newlines must not end sentences, but ICU treats them as paragraph separators.
  icu_text_.assign(text.data(), text.size());
  for (char& c : icu_text_) {
    if (c == '\n' || c == '\r' || c == '\f' || c == '\v') c = ' ';
  }
  UText ut = UTEXT_INITIALIZER;
  utext_openUTF8(&ut, icu_text_.data(), static_cast<int64_t>(icu_text_.size()), &status);
  sentence_breaker_->setText(&ut, status);
  if (U_FAILURE(status)) {
    utext_close(&ut);
    return;
  }
  size_t k = 0;  // tokens [0, k) end at or before the break
  for (int32_t p = sentence_breaker_->next(); p != icu::BreakIterator::DONE;
       p = sentence_breaker_->next()) {
    while (k < n && tokens[k].end <= static_cast<uint32_t>(p)) ++k;
    if (k == 0 || k == n || tokens[k].begin < static_cast<uint32_t>(p)) continue;
    if (Allowed(text, tokens, k - 1)) ends->push_back(static_cast<uint32_t>(k));
  }
  utext_close(&ut);
  if (ends->size() > rule_ends) {
    std::inplace_merge(ends->begin(), ends->begin() + rule_ends, ends->end());
    ends->erase(std::unique(ends->begin(), ends->end()), ends->end());
  }
}

}  // namespace chaintag::text_internal
