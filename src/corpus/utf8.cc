#include "utf8.h"

#include <unicode/bytestream.h>
#include <unicode/normalizer2.h>
#include <unicode/stringpiece.h>
#include <unicode/utf8.h>

#include "absl/strings/str_cat.h"

namespace chaintag::utf8 {

int64_t FindInvalid(std::string_view text, bool* is_nul, bool* all_ascii) {
  const auto* s = reinterpret_cast<const uint8_t*>(text.data());
  const int64_t n = static_cast<int64_t>(text.size());
  *is_nul = false;
  *all_ascii = true;
  int64_t i = 0;
  while (i < n) {
    if (s[i] < 0x80) {
      if (s[i] == 0) {
        *is_nul = true;
        return i;
      }
      ++i;
      continue;
    }
    *all_ascii = false;
    const int64_t start = i;
    // U8_NEXT works on int32_t offsets: step through at most 4 bytes from `start`.
    int32_t k = 0;
    const int32_t left = static_cast<int32_t>(std::min<int64_t>(n - start, 4));
    UChar32 c;
    U8_NEXT(s + start, k, left, c);
    if (c < 0) return start;
    i = start + k;
  }
  return -1;
}

int SequenceLength(const unsigned char* p, size_t n, int* bad) {
  const int32_t left = static_cast<int32_t>(std::min<size_t>(n, 4));
  int32_t k = 0;
  UChar32 c;
  U8_NEXT(p, k, left, c);
  if (c >= 0) return k;
  const int need = U8_COUNT_TRAIL_BYTES(p[0]) + 1;  // 1 for bytes that cannot lead
  if (k == left && static_cast<size_t>(left) == n && n < static_cast<size_t>(need)) return -1;
  *bad = k;
  return 0;
}

char32_t Decode(std::string_view text, size_t i, int* len) {
  const auto* s = reinterpret_cast<const uint8_t*>(text.data()) + i;
  const int32_t left = static_cast<int32_t>(std::min<size_t>(text.size() - i, 4));
  int32_t k = 0;
  UChar32 c;
  U8_NEXT_OR_FFFD(s, k, left, c);
  *len = k;
  return static_cast<char32_t>(c);
}

absl::Status ToNfc(std::string_view text, std::string* out) {
  bool ascii = true;
  for (char ch : text) ascii &= static_cast<unsigned char>(ch) < 0x80;
  if (ascii) {
    out->assign(text);
    return absl::OkStatus();
  }
  UErrorCode status = U_ZERO_ERROR;
  const icu::Normalizer2* nfc = icu::Normalizer2::getNFCInstance(status);
  if (U_FAILURE(status)) {
    return absl::InternalError(
        absl::StrCat("ICU NFC normaliser unavailable: ", u_errorName(status)));
  }
  const icu::StringPiece piece(text.data(), static_cast<int32_t>(text.size()));
  if (nfc->isNormalizedUTF8(piece, status) && U_SUCCESS(status)) {
    out->assign(text);
    return absl::OkStatus();
  }
  status = U_ZERO_ERROR;
  out->clear();
  icu::StringByteSink<std::string> sink(out);
  nfc->normalizeUTF8(0, piece, sink, nullptr, status);
  if (U_FAILURE(status)) {
    return absl::InvalidArgumentError(
        absl::StrCat("expected normalisable text, found ICU error ", u_errorName(status)));
  }
  return absl::OkStatus();
}

}  // namespace chaintag::utf8
