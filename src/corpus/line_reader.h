// Internal: bounded, validating line reader shared by all corpus readers.
#ifndef CHAINTAG_SRC_CORPUS_LINE_READER_H_
#define CHAINTAG_SRC_CORPUS_LINE_READER_H_

#include <cstdint>
#include <istream>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "string_view_compat.h"
#include "utf8.h"

namespace chaintag::corpus_internal {

using ::chaintag::ToAbsl;

// The UTF-8 byte order mark (U+FEFF), skipped at the start of every input.
inline constexpr std::string_view kByteOrderMark = "\xEF\xBB\xBF";

// Returns the byte offset of the first invalid UTF-8 byte (or NUL byte) in `text`, or -1.
// `*is_nul` tells which of the two was found. `*all_ascii` is set when every byte is < 0x80.
inline int64_t FindInvalidUtf8(std::string_view text, bool* is_nul, bool* all_ascii) {
  return utf8::FindInvalid(text, is_nul, all_ascii);
}

// Formats a line for an error message: at most 80 bytes, non-printable bytes as \xNN.
std::string QuoteLine(std::string_view line);

// Reads lines in fixed-size blocks so that an overlong line is rejected before it is buffered
// whole; skips a leading byte order mark; strips "\n" / "\r\n" and refuses any other CR (old Mac
// line endings would make a whole file one line); validates UTF-8 and NFC-normalises each line
// (ASCII and already-normalised lines skip the normaliser).
class LineReader {
 public:
  LineReader(std::istream& in, std::string name, int64_t max_line_bytes);
  // Reads lines of bytes in memory (text stored in a model), with the same checks and errors. A
  // line is a view of `bytes` where it needs no change, so nothing is copied; the bytes must
  // outlive the reader.
  LineReader(std::string_view bytes, std::string name, int64_t max_line_bytes);

  // Sets *line to the next line (valid until the next call) and returns true, or returns false
  // at end of input. Errors are sticky: once one is returned, every later call returns it.
  absl::StatusOr<bool> Next(std::string_view* line);

  // 1-based number of the line last returned.
  int64_t line_number() const { return line_number_; }
  const std::string& name() const { return name_; }
  // Total bytes consumed from the stream so far.
  int64_t bytes_read() const { return bytes_read_; }

  // "NAME:LINE: message" for the line last returned.
  absl::Status Error(std::string_view message) const;

 private:
  bool Fill();
  // The checks and changes of a line with its LF removed: byte order mark, CR, length, UTF-8,
  // NFC. Sets *line to `raw` or a part of it, or to normalized_.
  absl::StatusOr<bool> Finish(std::string_view raw, std::string_view* line);
  // The error for a line longer than the limit (`take` bytes of it at `start` seen so far).
  absl::Status TooLong(const char* start, size_t take);
  absl::Status Fail(absl::Status status);
  // Reading memory: the end of the run of ASCII without NUL or CR that starts at `from`. Lines
  // inside such a run need no check but their length (most lines of a model's text sections).
  size_t PlainEnd(size_t from) const;

  std::istream* in_;  // null when reading memory_
  std::string_view memory_;
  std::string name_;
  int64_t max_line_bytes_;
  int64_t line_number_ = 0;
  int64_t bytes_read_ = 0;
  std::string block_;
  size_t block_pos_ = 0;
  size_t block_end_ = 0;
  size_t plain_end_ = 0;
  bool eof_ = false;
  std::string line_;
  std::string normalized_;
  absl::Status error_;
};

}  // namespace chaintag::corpus_internal

#endif  // CHAINTAG_SRC_CORPUS_LINE_READER_H_
