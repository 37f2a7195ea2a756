// Internal: UTF-8 validation, decoding and NFC normalisation, all through ICU (unicode/utf8.h,
// Normalizer2), for every module that reads text. Implemented in src/corpus/utf8.cc.
#ifndef CHAINTAG_UTF8_H_
#define CHAINTAG_UTF8_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/status.h"

namespace chaintag::utf8 {

// Byte offset of the first ill-formed sequence (Unicode Table 3-7: no overlongs, surrogates or
// values above U+10FFFF) or NUL byte in `text`, or -1. `*is_nul` tells which; `*all_ascii` is set
// when every byte is below 0x80.
int64_t FindInvalid(std::string_view text, bool* is_nul, bool* all_ascii);

// The sequence at the start of p[0..n) (n >= 1): its length 1-4 if well-formed; 0 if ill-formed,
// with *bad = the bytes of its maximal subpart (replaced by one U+FFFD, Unicode 3.9); -1 if it is
// a well-formed prefix cut off by the end of the buffer.
int SequenceLength(const unsigned char* p, size_t n, int* bad);

// The code point at text[i] of well-formed UTF-8, and its length in bytes.
char32_t Decode(std::string_view text, size_t i, int* len);

// `text` in Unicode Normalization Form C, written to *out (ASCII and normalised text are copied).
absl::Status ToNfc(std::string_view text, std::string* out);

}  // namespace chaintag::utf8

#endif  // CHAINTAG_UTF8_H_
