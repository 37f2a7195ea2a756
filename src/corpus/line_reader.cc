#include "corpus/line_reader.h"

#include <cstdint>
#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "chaintag/corpus.h"
#include "unicode/bytestream.h"
#include "unicode/normalizer2.h"
#include "unicode/utypes.h"

namespace chaintag::corpus_internal {
namespace {

constexpr size_t kBlockBytes = 64 * 1024;

}  // namespace

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
    : in_(&in), name_(std::move(name)), max_line_bytes_(max_line_bytes) {
  block_.resize(kBlockBytes);
}

LineReader::LineReader(std::string_view bytes, std::string name, int64_t max_line_bytes)
    : in_(nullptr), memory_(bytes), name_(std::move(name)), max_line_bytes_(max_line_bytes) {
  block_end_ = bytes.size();
  bytes_read_ = static_cast<int64_t>(bytes.size());
  plain_end_ = PlainEnd(0);
}

size_t LineReader::PlainEnd(size_t from) const {
  // Eight bytes at a time: a byte >= 0x80, a NUL or a CR ends the run (Hacker's Delight 6-1).
  constexpr uint64_t kOnes = 0x0101010101010101, kHighs = 0x8080808080808080;
  const auto special = [](uint64_t w) {
    const uint64_t cr = w ^ (kOnes * '\r');
    return (w | ((w - kOnes) & ~w) | ((cr - kOnes) & ~cr)) & kHighs;
  };
  size_t i = from;
  for (; i + 8 <= memory_.size(); i += 8) {
    uint64_t w;
    std::memcpy(&w, memory_.data() + i, 8);
    if (special(w) != 0) break;
  }
  for (; i < memory_.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(memory_[i]);
    if (c >= 0x80 || c == 0 || c == '\r') break;
  }
  return i;
}

bool LineReader::Fill() {
  if (eof_ || in_ == nullptr) return false;
  in_->read(block_.data(), static_cast<std::streamsize>(block_.size()));
  block_pos_ = 0;
  block_end_ = static_cast<size_t>(in_->gcount());
  bytes_read_ += static_cast<int64_t>(block_end_);
  if (!*in_) eof_ = true;
  return block_end_ > 0;
}

absl::Status LineReader::Fail(absl::Status status) {
  error_ = status;
  return status;
}

absl::Status LineReader::Error(std::string_view message) const {
  return ErrorAt(name_, line_number_, message);
}

absl::Status LineReader::TooLong(const char* start, size_t take) {
  ++line_number_;
  // A file with CR-only line ends is one long line: say why.
  const size_t cr = std::string_view(start, take).find('\r');
  if (cr != std::string_view::npos && cr + 1 < take) {
    return Fail(Error("expected LF or CRLF line endings, found a bare CR (old Mac line endings)"));
  }
  return Fail(Error(
      absl::StrCat("expected a line of at most ", max_line_bytes_, " bytes, found a longer line")));
}

absl::StatusOr<bool> LineReader::Next(std::string_view* line) {
  if (!error_.ok()) return error_;
  if (in_ == nullptr) {
    if (block_pos_ == block_end_) return false;
    const char* start = memory_.data() + block_pos_;
    const size_t avail = block_end_ - block_pos_;
    const void* nl = std::memchr(start, '\n', avail);
    const size_t take = nl ? static_cast<size_t>(static_cast<const char*>(nl) - start) : avail;
    if (static_cast<int64_t>(take) > max_line_bytes_ + 1) return TooLong(start, take);
    const size_t end = block_pos_ + take;
    block_pos_ = end + (nl ? 1 : 0);
    if (end <= plain_end_ && static_cast<int64_t>(take) <= max_line_bytes_) {
      // ASCII without NUL or CR: Finish would neither change nor refuse it.
      ++line_number_;
      *line = std::string_view(start, take);
      return true;
    }
    absl::StatusOr<bool> result = Finish(std::string_view(start, take), line);
    if (end > plain_end_) plain_end_ = PlainEnd(block_pos_);
    return result;
  }
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
      return TooLong(start, take);
    }
    line_.append(start, take);
    block_pos_ += take;
    if (nl) {
      ++block_pos_;
      complete = true;
    }
  }
  if (in_->bad()) {
    return Fail(absl::DataLossError(
        absl::StrCat(Location(name_, line_number_ + 1),
                     ": expected readable input, found a read error (corrupt compressed data?)")));
  }
  if (!got_any) return false;
  return Finish(line_, line);
}

absl::StatusOr<bool> LineReader::Finish(std::string_view raw, std::string_view* line) {
  ++line_number_;
  // A byte order mark says "UTF-8", it is not text (Notepad writes one).
  if (line_number_ == 1 && raw.starts_with(kByteOrderMark))
    raw.remove_prefix(kByteOrderMark.size());
  if (!raw.empty() && raw.back() == '\r') raw.remove_suffix(1);
  if (const size_t cr = raw.find('\r'); cr != std::string_view::npos) {
    return Fail(Error(absl::StrCat(
        "expected LF or CRLF line endings, found a bare CR (old Mac line endings) at byte offset ",
        cr, " in line ", QuoteLine(raw))));
  }
  if (static_cast<int64_t>(raw.size()) > max_line_bytes_) {
    return Fail(Error(absl::StrCat("expected a line of at most ", max_line_bytes_,
                                   " bytes, found a longer line")));
  }
  bool is_nul = false;
  bool all_ascii = true;
  const int64_t bad = FindInvalidUtf8(raw, &is_nul, &all_ascii);
  if (bad >= 0) {
    if (is_nul) {
      return Fail(Error(absl::StrCat("expected text, found a NUL byte at byte offset ", bad,
                                     " (binary input?) in line ", QuoteLine(raw))));
    }
    return Fail(Error(absl::StrFormat(
        "expected UTF-8 text, found invalid byte 0x%02X at byte offset %d in line %s",
        static_cast<unsigned char>(raw[bad]), bad, QuoteLine(raw))));
  }
  if (all_ascii) {
    *line = raw;
    return true;
  }
  if (absl::Status nfc = utf8::ToNfc(raw, &normalized_); !nfc.ok()) {
    return Fail(nfc.code() == absl::StatusCode::kInternal
                    ? nfc
                    : Error(std::string_view(nfc.message().data(), nfc.message().size())));
  }
  *line = normalized_;
  return true;
}

}  // namespace chaintag::corpus_internal
