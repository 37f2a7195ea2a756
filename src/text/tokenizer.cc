// Penn Treebank style tokenisation (conventions of the PTB tokenizer.sed and Stanford
// PTBTokenizer).
#include "text/tokenizer.h"

#include <string>
#include <string_view>
#include <vector>

#include "absl/base/const_init.h"
#include "absl/synchronization/mutex.h"
#include "unicode/brkiter.h"
#include "unicode/bytestream.h"
#include "unicode/locid.h"
#include "unicode/normalizer2.h"
#include "unicode/uchar.h"
#include "unicode/uscript.h"
#include "unicode/utext.h"
#include "utf8.h"

namespace chaintag::text_internal {
namespace {

// Control characters (C0 including NUL, DEL) separate tokens like spaces and are dropped: a token
// holding one would be refused by chaintag's own readers (issue 18).
bool IsAsciiSpace(unsigned char c) { return c <= ' ' || c == 0x7F; }
bool IsAsciiAlpha(char32_t c) { return (c | 0x20) >= 'a' && (c | 0x20) <= 'z'; }
bool IsDigit(char32_t c) { return c >= '0' && c <= '9'; }
bool IsApostrophe(char32_t c) { return c == '\'' || c == 0x2019; }

// Scripts written without spaces between words: segmented by ICU's dictionary word breaker.
bool IsComplex(char32_t c) {
  if (c < 0x0E00) return false;
  UErrorCode status = U_ZERO_ERROR;
  UScriptCode script = uscript_getScript(static_cast<UChar32>(c), &status);
  switch (script) {
    case USCRIPT_HAN:
    case USCRIPT_HIRAGANA:
    case USCRIPT_KATAKANA:
    case USCRIPT_THAI:
    case USCRIPT_LAO:
    case USCRIPT_KHMER:
    case USCRIPT_MYANMAR:
    case USCRIPT_TIBETAN:
      return true;
    case USCRIPT_COMMON:
    case USCRIPT_INHERITED:
      // Prolonged sound mark, iteration marks: used inside Japanese words.
      return c >= 0x3000 &&
             (uscript_hasScript(c, USCRIPT_KATAKANA) || uscript_hasScript(c, USCRIPT_HIRAGANA)) &&
             u_isalpha(c);
    default:
      return false;
  }
}

bool IsRegionalIndicator(char32_t c) { return c >= 0x1F1E6 && c <= 0x1F1FF; }
bool IsEmojiStart(char32_t c) {
  return c >= 0xA9 &&
         (IsRegionalIndicator(c) || u_hasBinaryProperty(c, UCHAR_EXTENDED_PICTOGRAPHIC));
}

bool IsWordChar(char32_t c) {
  if (c < 0x80) return IsAsciiAlpha(c) || IsDigit(c) || c == '_';
  if (c == 0x200C || c == 0x200D || c == 0xAD) return true;  // joiners, soft hyphen
  if (IsEmojiStart(c) || IsComplex(c)) return false;
  if (u_isalnum(c)) return true;
  int8_t type = u_charType(c);
  return type == U_NON_SPACING_MARK || type == U_COMBINING_SPACING_MARK || type == U_ENCLOSING_MARK;
}

bool IsSpaceAt(std::string_view text, size_t i, int* len) {
  unsigned char c = text[i];
  if (c < 0x80) {
    *len = 1;
    return IsAsciiSpace(c);
  }
  char32_t cp = DecodeUtf8(text, i, len);
  // C1 controls as above; U+FEFF (a byte order mark inside the text) is not a word either.
  return u_isUWhiteSpace(cp) || (cp >= 0x80 && cp < 0xA0) || cp == 0xFEFF;
}

bool StartsWithNoCase(std::string_view text, size_t p, size_t e, std::string_view prefix) {
  if (e - p < prefix.size()) return false;
  for (size_t i = 0; i < prefix.size(); ++i) {
    char c = text[p + i];
    if (c >= 'A' && c <= 'Z') c += 'a' - 'A';
    if (c != prefix[i]) return false;
  }
  return true;
}

bool IsUrlTrailer(char c) {
  return c == '.' || c == ',' || c == ';' || c == ':' || c == '!' || c == '?' || c == ')' ||
         c == ']' || c == '}' || c == '"' || c == '\'' || c == '>';
}

// End of a URL starting at p (whole chunk minus trailing punctuation); 0 if none.
size_t UrlEnd(std::string_view text, size_t p, size_t e) {
  if (!StartsWithNoCase(text, p, e, "http://") && !StartsWithNoCase(text, p, e, "https://") &&
      !StartsWithNoCase(text, p, e, "www.")) {
    return 0;
  }
  size_t q = e;
  while (q > p) {
    unsigned char c = text[q - 1];
    if (c < 0x80 && IsUrlTrailer(c)) {
      --q;
    } else if (c >= 0x80 && q - p >= 3 && text.substr(q - 3, 2) == "\xE2\x80" &&
               (static_cast<unsigned char>(text[q - 1]) == 0x9D ||
                static_cast<unsigned char>(text[q - 1]) == 0x99)) {
      q -= 3;  // closing curly quote
    } else {
      break;
    }
  }
  return q > p + 4 ? q : 0;
}

bool IsEmailLocal(char c) {
  return IsAsciiAlpha(c) || IsDigit(c) || c == '.' || c == '_' || c == '%' || c == '+' || c == '-';
}

// End of an e-mail address local@domain.tld starting at p; 0 if none.
size_t EmailEnd(std::string_view text, size_t p, size_t e) {
  size_t q = p;
  while (q < e && IsEmailLocal(text[q])) ++q;
  if (q == p || q >= e || text[q] != '@') return 0;
  size_t domain = ++q;
  while (q < e && (IsAsciiAlpha(text[q]) || IsDigit(text[q]) || text[q] == '.' || text[q] == '-')) {
    ++q;
  }
  while (q > domain && (text[q - 1] == '.' || text[q - 1] == '-')) --q;
  size_t dot = text.substr(domain, q - domain).rfind('.');
  if (dot == std::string_view::npos || dot == 0) return 0;
  size_t tld = domain + dot + 1;
  if (q - tld < 2) return 0;
  for (size_t i = tld; i < q; ++i) {
    if (!IsAsciiAlpha(text[i])) return 0;
  }
  return q;
}

size_t EmojiEnd(std::string_view text, size_t p, size_t e) {
  int len;
  char32_t c = DecodeUtf8(text, p, &len);
  size_t q = p + len;
  if (IsRegionalIndicator(c)) {
    if (q < e && IsRegionalIndicator(DecodeUtf8(text, q, &len))) q += len;
    return q;
  }
  while (q < e) {
    char32_t n = DecodeUtf8(text, q, &len);
    if (n == 0xFE0F || n == 0xFE0E || n == 0x20E3 || (n >= 0x1F3FB && n <= 0x1F3FF) ||
        (n >= 0xE0020 && n <= 0xE007F)) {
      q += len;
      continue;
    }
    if (n == 0x200D && q + len < e) {
      int len2;
      char32_t m = DecodeUtf8(text, q + len, &len2);
      if (u_hasBinaryProperty(m, UCHAR_EXTENDED_PICTOGRAPHIC)) {
        q += len + len2;
        continue;
      }
    }
    break;
  }
  return q;
}

// A chunk that is (or ends after) an emoticon such as ":)" or ":-(" keeps it whole.
size_t EmoticonEnd(std::string_view text, size_t b, size_t e) {
  static constexpr std::string_view kEmoticons[] = {":-)", ":-(", ";-)", ":-D", ":-P", ":-p",
                                                    ":'(", ":)",  ":(",  ";)",  ":D",  ":P",
                                                    ":p",  "=)",  "=(",  "<3",  ":|"};
  std::string_view chunk = text.substr(b, e - b);
  for (std::string_view emoticon : kEmoticons) {
    if (chunk.substr(0, emoticon.size()) != emoticon) continue;
    if (chunk.size() == emoticon.size() ||
        !IsWordChar(static_cast<unsigned char>(chunk[emoticon.size()]) & 0x7F)) {
      return b + emoticon.size();
    }
  }
  return 0;
}

bool EqualsNoCase(std::string_view a, std::string_view lower) {
  if (a.size() != lower.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    char c = a[i];
    if (c >= 'A' && c <= 'Z') c += 'a' - 'A';
    if (c != lower[i]) return false;
  }
  return true;
}

bool IsCliticSuffix(std::string_view s) {
  return EqualsNoCase(s, "s") || EqualsNoCase(s, "re") || EqualsNoCase(s, "ve") ||
         EqualsNoCase(s, "d") || EqualsNoCase(s, "m") || EqualsNoCase(s, "ll");
}

// Byte position inside `w` where a clitic starts ("ca|n't", "John|'s"), or 0.
size_t CliticSplit(std::string_view w) {
  // n't with straight (4 bytes) or curly (6 bytes) apostrophe.
  for (size_t apos_len : {size_t{1}, size_t{3}}) {
    size_t n = 2 + apos_len;
    if (w.size() > n) {
      std::string_view tail = w.substr(w.size() - n);
      bool apos = apos_len == 1 ? tail[1] == '\'' : tail.substr(1, 3) == "\xE2\x80\x99";
      if (apos && (tail[0] | 0x20) == 'n' && (tail.back() | 0x20) == 't') return w.size() - n;
    }
  }
  size_t a = w.find_last_of('\'');
  size_t curly = w.rfind("\xE2\x80\x99");
  size_t apos_len = 1;
  if (curly != std::string_view::npos && (a == std::string_view::npos || curly > a)) {
    a = curly;
    apos_len = 3;
  }
  if (a != std::string_view::npos && a > 0 && IsCliticSuffix(w.substr(a + apos_len))) return a;
  if (EqualsNoCase(w, "cannot")) return 3;
  return 0;
}

// Tokens come from text the segmenter validated as UTF-8, so NFC fails only without ICU data,
// which the corpus readers report first; the token is then kept as it is.
std::string Nfc(std::string_view s) {
  std::string out;
  if (!utf8::ToNfc(s, &out).ok()) return std::string(s);
  return out;
}

}  // namespace

namespace {

// Clones `prototype` (nullptr if it failed to load) under a lock.
std::unique_ptr<icu::BreakIterator> CloneLocked(const icu::BreakIterator* prototype) {
  static absl::Mutex mutex(absl::kConstInit);
  if (prototype == nullptr) return nullptr;
  absl::MutexLock lock(&mutex);
  return std::unique_ptr<icu::BreakIterator>(prototype->clone());
}

}  // namespace

std::unique_ptr<icu::BreakIterator> NewWordBreaker() {
  static const icu::BreakIterator* prototype = [] {
    UErrorCode status = U_ZERO_ERROR;
    icu::BreakIterator* b = icu::BreakIterator::createWordInstance(icu::Locale::getRoot(), status);
    if (U_FAILURE(status)) {
      delete b;
      return static_cast<icu::BreakIterator*>(nullptr);
    }
    return b;
  }();
  return CloneLocked(prototype);
}

std::unique_ptr<icu::BreakIterator> NewSentenceBreaker() {
  static const icu::BreakIterator* prototype = [] {
    UErrorCode status = U_ZERO_ERROR;
    icu::BreakIterator* b =
        icu::BreakIterator::createSentenceInstance(icu::Locale::getEnglish(), status);
    if (U_FAILURE(status)) {
      delete b;
      return static_cast<icu::BreakIterator*>(nullptr);
    }
    return b;
  }();
  return CloneLocked(prototype);
}

char32_t DecodeUtf8(std::string_view text, size_t i, int* len) {
  return utf8::Decode(text, i, len);
}

Tokenizer::Tokenizer(const TextOptions& options)
    : options_(options),
      abbreviations_(options.builtin_abbreviations, options.extra_abbreviations) {}

Tokenizer::~Tokenizer() = default;

void Tokenizer::Tokenize(std::string_view text, std::vector<RawToken>* out) {
  const size_t n = text.size();
  size_t i = 0;
  int len;
  while (i < n) {
    if (IsSpaceAt(text, i, &len)) {
      i += len;
      continue;
    }
    const size_t b = i;
    bool alpha = true;  // fast path: a chunk of ASCII letters is one word
    while (i < n) {
      unsigned char c = text[i];
      if (c < 0x80) {
        if (IsAsciiSpace(c)) break;
        alpha &= IsAsciiAlpha(c);
        ++i;
      } else {
        alpha = false;
        if (IsSpaceAt(text, i, &len)) break;
        i += len;
      }
    }
    if (alpha && !(i - b == 6 && EqualsNoCase(text.substr(b, 6), "cannot"))) {
      out->push_back({static_cast<uint32_t>(b), static_cast<uint32_t>(i), TokenKind::kWord});
    } else {
      TokenizeChunk(text, b, i, out);
    }
  }
}

size_t Tokenizer::ScanWord(std::string_view text, size_t p, size_t e) const {
  size_t q = p;
  char32_t prev = 0;
  int len, len2;
  while (q < e) {
    char32_t c = DecodeUtf8(text, q, &len);
    if (IsWordChar(c)) {
      prev = c;
      q += len;
      continue;
    }
    if (prev == 0 || q + len >= e) break;
    char32_t next = DecodeUtf8(text, q + len, &len2);
    if (!IsWordChar(next)) break;
    bool join = c == '-' || c == '.' || c == '/' || IsApostrophe(c) ||
                ((c == ',' || c == ':') && IsDigit(prev) && IsDigit(next)) ||
                (c == '&' && IsAsciiAlpha(prev) && IsAsciiAlpha(next));
    if (!join) break;
    q += len;
  }
  return q;
}

size_t Tokenizer::EmitWord(std::string_view text, size_t p, size_t q, size_t e,
                           std::vector<RawToken>* out) {
  auto push = [out](size_t b, size_t x, TokenKind k) {
    out->push_back({static_cast<uint32_t>(b), static_cast<uint32_t>(x), k});
  };
  std::string_view w = text.substr(p, q - p);
  bool period = q < e && text[q] == '.' && !(q + 1 < e && text[q + 1] == '.');
  size_t split = CliticSplit(w);
  if (split > 0) {
    push(p, p + split, TokenKind::kWord);
    push(p + split, q, EqualsNoCase(w, "cannot") ? TokenKind::kWord : TokenKind::kClitic);
  } else if (period && abbreviations_.IsAbbreviation(w)) {
    push(p, q + 1, TokenKind::kAbbrev);
    return q + 1;
  } else if (EqualsNoCase(w, "n't") || EqualsNoCase(w, "n\xE2\x80\x99t")) {
    push(p, q, TokenKind::kClitic);
  } else {
    push(p, q, TokenKind::kWord);
  }
  if (period) {
    push(q, q + 1, TokenKind::kPeriod);
    return q + 1;
  }
  return q;
}

void Tokenizer::SegmentComplex(std::string_view text, size_t p, size_t q,
                               std::vector<RawToken>* out) {
  UErrorCode status = U_ZERO_ERROR;
  if (word_breaker_ == nullptr) {
    word_breaker_ = NewWordBreaker();
  }
  UText ut = UTEXT_INITIALIZER;
  status = U_ZERO_ERROR;
  utext_openUTF8(&ut, text.data() + p, static_cast<int64_t>(q - p), &status);
  if (word_breaker_ == nullptr || U_FAILURE(status)) {
    out->push_back({static_cast<uint32_t>(p), static_cast<uint32_t>(q), TokenKind::kComplex});
    utext_close(&ut);
    return;
  }
  word_breaker_->setText(&ut, status);
  int32_t start = word_breaker_->first();
  for (int32_t end = word_breaker_->next(); end != icu::BreakIterator::DONE;
       start = end, end = word_breaker_->next()) {
    out->push_back(
        {static_cast<uint32_t>(p + start), static_cast<uint32_t>(p + end), TokenKind::kComplex});
  }
  utext_close(&ut);
}

void Tokenizer::TokenizeChunk(std::string_view text, size_t b, size_t e,
                              std::vector<RawToken>* out) {
  auto push = [out](size_t x, size_t y, TokenKind k) {
    out->push_back({static_cast<uint32_t>(x), static_cast<uint32_t>(y), k});
  };
  size_t p = b;
  int len, len2;
  const bool has_at = text.substr(b, e - b).find('@') != std::string_view::npos;
  if (size_t q = EmoticonEnd(text, b, e); q > 0) {
    out->push_back({static_cast<uint32_t>(b), static_cast<uint32_t>(q), TokenKind::kSymbol});
    p = q;
  }
  while (p < e) {
    char32_t c = DecodeUtf8(text, p, &len);
    const bool after_opener = !out->empty() && out->back().end == p && IsOpener(out->back().kind);
    const bool at_start = p == b || after_opener;
    char32_t next = p + len < e ? DecodeUtf8(text, p + len, &len2) : 0;

    if (at_start || !IsWordChar(c)) {
      if (size_t q = UrlEnd(text, p, e); q > 0) {
        push(p, q, TokenKind::kUrl);
        p = q;
        continue;
      }
    }
    if (has_at && c < 0x80 && (IsAsciiAlpha(c) || IsDigit(c))) {
      if (size_t q = EmailEnd(text, p, e); q > 0) {
        push(p, q, TokenKind::kEmail);
        p = q;
        continue;
      }
    }
    if (IsWordChar(c) || (at_start && IsDigit(next) && (c == '-' || IsApostrophe(c)))) {
      size_t q = ScanWord(text, IsWordChar(c) ? p : p + len, e);
      p = EmitWord(text, p, q, e, out);
      continue;
    }
    switch (c) {
      case '"': {
        bool open = (p == b && e - p == 1) ? !last_dq_open_ : at_start;
        last_dq_open_ = open;
        push(p, p + 1, open ? TokenKind::kOpenDq : TokenKind::kCloseDq);
        ++p;
        continue;
      }
      case 0x201C:
      case 0x201E:
        push(p, p + len, TokenKind::kOpenDq);
        p += len;
        continue;
      case 0x201D:
        push(p, p + len, TokenKind::kCloseDq);
        p += len;
        continue;
      case '\'':
      case 0x2018:
      case 0x2019: {
        if (at_start && p + len < e) {
          // A clitic written apart ("John 's"), else an opening quote.
          size_t q = p + len;
          while (q < e && IsAsciiAlpha(static_cast<unsigned char>(text[q]))) ++q;
          if (q > p + len && q == e && IsCliticSuffix(text.substr(p + len, q - p - len))) {
            push(p, q, TokenKind::kClitic);
            p = q;
            continue;
          }
          push(p, p + len, c == 0x2019 && p + len == e ? TokenKind::kCloseSq : TokenKind::kOpenSq);
        } else {
          push(p, p + len, c == 0x2018 ? TokenKind::kOpenSq : TokenKind::kCloseSq);
        }
        p += len;
        continue;
      }
      case '(':
        push(p, p + 1, TokenKind::kLrb);
        ++p;
        continue;
      case ')':
        push(p, p + 1, TokenKind::kRrb);
        ++p;
        continue;
      case '[':
        push(p, p + 1, TokenKind::kLsb);
        ++p;
        continue;
      case ']':
        push(p, p + 1, TokenKind::kRsb);
        ++p;
        continue;
      case '{':
        push(p, p + 1, TokenKind::kLcb);
        ++p;
        continue;
      case '}':
        push(p, p + 1, TokenKind::kRcb);
        ++p;
        continue;
      case '.': {
        size_t q = p;
        while (q < e && text[q] == '.') ++q;
        push(p, q, q - p == 1 ? TokenKind::kPeriod : TokenKind::kEllipsis);
        p = q;
        continue;
      }
      case 0x2026:
        push(p, p + len, TokenKind::kEllipsis);
        p += len;
        continue;
      case '-': {
        size_t q = p;
        while (q < e && text[q] == '-') ++q;
        push(p, q, q - p == 1 ? TokenKind::kSymbol : TokenKind::kDash);
        p = q;
        continue;
      }
      case '!':
      case '?': {
        size_t q = p;
        while (q < e && (text[q] == '!' || text[q] == '?')) ++q;
        push(p, q, TokenKind::kStop);
        p = q;
        continue;
      }
      case ',':
      case ';':
      case ':':
        push(p, p + 1, TokenKind::kContinue);
        ++p;
        continue;
      default:
        break;
    }
    if (IsEmojiStart(c)) {
      size_t q = EmojiEnd(text, p, e);
      push(p, q, TokenKind::kEmoji);
      p = q;
      continue;
    }
    if (IsComplex(c)) {
      size_t q = p + len;
      while (q < e) {
        char32_t n = DecodeUtf8(text, q, &len2);
        if (!IsComplex(n) && u_charType(n) != U_NON_SPACING_MARK &&
            u_charType(n) != U_COMBINING_SPACING_MARK) {
          break;
        }
        q += len2;
      }
      SegmentComplex(text, p, q, out);
      p = q;
      continue;
    }
    if (c == '*' || c == '=' || c == '~' || c == '+' || c == '#' || c == '^') {
      size_t q = p;  // "*****", "====": one token
      while (q < e && text[q] == static_cast<char>(c)) ++q;
      push(p, q, TokenKind::kSymbol);
      p = q;
      continue;
    }
    push(p, p + len, TokenKind::kSymbol);
    p += len;
  }
}

std::string Tokenizer::Form(std::string_view text, const RawToken& token) const {
  std::string_view raw = text.substr(token.begin, token.end - token.begin);
  const bool ptb = options_.ptb_brackets;
  switch (token.kind) {
    case TokenKind::kOpenDq:
      return "``";
    case TokenKind::kCloseDq:
      return "''";
    case TokenKind::kOpenSq:
      return "`";
    case TokenKind::kCloseSq:
      return "'";
    case TokenKind::kLrb:
      return ptb ? "-LRB-" : "(";
    case TokenKind::kRrb:
      return ptb ? "-RRB-" : ")";
    case TokenKind::kLsb:
      return ptb ? "-LSB-" : "[";
    case TokenKind::kRsb:
      return ptb ? "-RSB-" : "]";
    case TokenKind::kLcb:
      return ptb ? "-LCB-" : "{";
    case TokenKind::kRcb:
      return ptb ? "-RCB-" : "}";
    case TokenKind::kEllipsis:
      return raw[0] == '.' ? std::string(raw) : "...";
    case TokenKind::kClitic: {
      std::string form;
      for (size_t i = 0; i < raw.size(); ++i) {
        if (raw.substr(i, 3) == "\xE2\x80\x99") {
          form += '\'';
          i += 2;
        } else {
          form += raw[i];
        }
      }
      return form;
    }
    default:
      return Nfc(raw);
  }
}

}  // namespace chaintag::text_internal
