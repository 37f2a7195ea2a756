#include "corpus/line_reader.h"

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
  return ErrorAt(name_, line_number_, message);
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
        return Fail(
            Error("expected LF or CRLF line endings, found a bare CR (old Mac line endings)"));
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
        absl::StrCat(Location(name_, line_number_ + 1),
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
  if (absl::Status nfc = utf8::ToNfc(line_, &normalized_); !nfc.ok()) {
    return Fail(nfc.code() == absl::StatusCode::kInternal
                    ? nfc
                    : Error(std::string_view(nfc.message().data(), nfc.message().size())));
  }
  *line = normalized_;
  return true;
}

}  // namespace chaintag::corpus_internal
