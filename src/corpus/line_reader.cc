#include "corpus/line_reader.h"

#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "unicode/bytestream.h"
#include "unicode/normalizer2.h"
#include "unicode/utypes.h"

namespace chaintag::corpus_internal {
namespace {

constexpr size_t kBlockBytes = 64 * 1024;

}  // namespace

int64_t FindInvalidUtf8(std::string_view text, bool* is_nul, bool* all_ascii) {
  const auto* s = reinterpret_cast<const unsigned char*>(text.data());
  const size_t n = text.size();
  *is_nul = false;
  *all_ascii = true;
  size_t i = 0;
  while (i < n) {
    const unsigned char c = s[i];
    if (c < 0x80) {
      if (c == 0) {
        *is_nul = true;
        return static_cast<int64_t>(i);
      }
      ++i;
      continue;
    }
    *all_ascii = false;
    // Well-formed sequences per Unicode Table 3-7: no overlongs, no surrogates, <= U+10FFFF.
    size_t len = 0;
    unsigned char lo = 0x80, hi = 0xBF;
    if (c >= 0xC2 && c <= 0xDF) {
      len = 2;
    } else if (c >= 0xE0 && c <= 0xEF) {
      len = 3;
      if (c == 0xE0) lo = 0xA0;
      if (c == 0xED) hi = 0x9F;
    } else if (c >= 0xF0 && c <= 0xF4) {
      len = 4;
      if (c == 0xF0) lo = 0x90;
      if (c == 0xF4) hi = 0x8F;
    } else {
      return static_cast<int64_t>(i);
    }
    if (i + 1 >= n || s[i + 1] < lo || s[i + 1] > hi) {
      return static_cast<int64_t>(i);
    }
    for (size_t k = 2; k < len; ++k) {
      if (i + k >= n || (s[i + k] & 0xC0) != 0x80) return static_cast<int64_t>(i);
    }
    i += len;
  }
  return -1;
}

std::string QuoteLine(std::string_view line) {
  constexpr size_t kMax = 80;
  std::string out = "\"";
  const size_t n = std::min(line.size(), kMax);
  for (size_t i = 0; i < n; ++i) {
    const unsigned char c = static_cast<unsigned char>(line[i]);
    if (c == '"' || c == '\\') {
      out.push_back('\\');
      out.push_back(static_cast<char>(c));
    } else if (c < 0x20 || c >= 0x7F) {
      absl::StrAppendFormat(&out, "\\x%02X", c);
    } else {
      out.push_back(static_cast<char>(c));
    }
  }
  out.push_back('"');
  if (line.size() > kMax) out += "...";
  return out;
}

LineReader::LineReader(std::istream& in, std::string name, int64_t max_line_bytes)
    : in_(in), name_(std::move(name)), max_line_bytes_(max_line_bytes) {
  block_.resize(kBlockBytes);
}

bool LineReader::Fill() {
  if (eof_) return false;
  in_.read(block_.data(), static_cast<std::streamsize>(block_.size()));
  block_pos_ = 0;
  block_end_ = static_cast<size_t>(in_.gcount());
  bytes_read_ += static_cast<int64_t>(block_end_);
  if (!in_) eof_ = true;
  return block_end_ > 0;
}

absl::Status LineReader::Fail(absl::Status status) {
  error_ = status;
  return status;
}

absl::Status LineReader::Error(std::string_view message) const {
  return absl::InvalidArgumentError(absl::StrCat(name_, ":", line_number_, ": ", ToAbsl(message)));
}

absl::StatusOr<bool> LineReader::Next(std::string_view* line) {
  if (!error_.ok()) return error_;
  line_.clear();
  bool got_any = false;
  bool complete = false;
  while (!complete) {
    if (block_pos_ == block_end_ && !Fill()) break;
    got_any = true;
    const char* start = block_.data() + block_pos_;
    const size_t avail = block_end_ - block_pos_;
    const void* nl = std::memchr(start, '\n', avail);
    const size_t take = nl ? static_cast<size_t>(static_cast<const char*>(nl) - start) : avail;
    // Check before appending so an endless line never grows the buffer past the limit
    // (+1 leaves room for a '\r' that is stripped below).
    if (static_cast<int64_t>(line_.size() + take) > max_line_bytes_ + 1) {
      ++line_number_;
      // A file with CR-only line ends is one long line: say why.
      const size_t cr = std::string_view(start, take).find('\r');
      if (cr != std::string_view::npos && cr + 1 < take) {
        return Fail(Error("expected LF or CRLF line endings, found a bare CR (old Mac line endings)"));
      }
      return Fail(Error(absl::StrCat("expected a line of at most ", max_line_bytes_,
                                     " bytes, found a longer line")));
    }
    line_.append(start, take);
    block_pos_ += take;
    if (nl) {
      ++block_pos_;
      complete = true;
    }
  }
  if (in_.bad()) {
    return Fail(absl::DataLossError(
        absl::StrCat(name_, ":", line_number_ + 1,
                     ": expected readable input, found a read error (corrupt compressed data?)")));
  }
  if (!got_any) return false;
  ++line_number_;
  // A byte order mark says "UTF-8", it is not text (Notepad writes one).
  if (line_number_ == 1 && line_.starts_with(kByteOrderMark)) line_.erase(0, kByteOrderMark.size());
  if (!line_.empty() && line_.back() == '\r') line_.pop_back();
  if (const size_t cr = line_.find('\r'); cr != std::string::npos) {
    return Fail(Error(absl::StrCat(
        "expected LF or CRLF line endings, found a bare CR (old Mac line endings) at byte offset ",
        cr, " in line ", QuoteLine(line_))));
  }
  if (static_cast<int64_t>(line_.size()) > max_line_bytes_) {
    return Fail(Error(absl::StrCat("expected a line of at most ", max_line_bytes_,
                                   " bytes, found a longer line")));
  }
  bool is_nul = false;
  bool all_ascii = true;
  const int64_t bad = FindInvalidUtf8(line_, &is_nul, &all_ascii);
  if (bad >= 0) {
    if (is_nul) {
      return Fail(Error(absl::StrCat("expected text, found a NUL byte at byte offset ", bad,
                                     " (binary input?) in line ", QuoteLine(line_))));
    }
    return Fail(Error(absl::StrFormat(
        "expected UTF-8 text, found invalid byte 0x%02X at byte offset %d in line %s",
        static_cast<unsigned char>(line_[bad]), bad, QuoteLine(line_))));
  }
  if (all_ascii) {
    *line = line_;
    return true;
  }
  UErrorCode status = U_ZERO_ERROR;
  const icu::Normalizer2* nfc = icu::Normalizer2::getNFCInstance(status);
  if (U_FAILURE(status)) {
    return Fail(absl::InternalError(absl::StrCat("ICU NFC normaliser unavailable: ",
                                                 u_errorName(status))));
  }
  const icu::StringPiece piece(line_.data(), static_cast<int32_t>(line_.size()));
  if (nfc->isNormalizedUTF8(piece, status) && U_SUCCESS(status)) {
    *line = line_;
    return true;
  }
  status = U_ZERO_ERROR;
  normalized_.clear();
  icu::StringByteSink<std::string> sink(&normalized_);
  nfc->normalizeUTF8(0, piece, sink, nullptr, status);
  if (U_FAILURE(status)) {
    return Fail(Error(absl::StrCat("expected normalisable text, found ICU error ",
                                   u_errorName(status))));
  }
  *line = normalized_;
  return true;
}

}  // namespace chaintag::corpus_internal
