// Raw UTF-8 text -> sentences of Penn-Treebank-style tokens, streaming (see docs/tokenization.md).
#ifndef CHAINTAG_TEXT_H_
#define CHAINTAG_TEXT_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "chaintag/corpus.h"

namespace chaintag {

// What to do with bytes that are not valid UTF-8.
enum class InvalidUtf8Policy {
  kError,    // fail with "NAME:LINE: invalid UTF-8 at byte offset N: ..."
  kReplace,  // substitute U+FFFD for each maximal invalid subsequence
};

// Parses "error" or "replace".
absl::StatusOr<InvalidUtf8Policy> ParseInvalidUtf8Policy(std::string_view name);

struct TextOptions {
  // Use the built-in English abbreviation list (BuiltinAbbreviations()).
  bool builtin_abbreviations = true;
  // More abbreviations, with or without the final period ("Gen." or "Gen"); these never end a
  // sentence and keep their period as part of the token.
  std::vector<std::string> extra_abbreviations;
  // Brackets become -LRB- -RRB- -LSB- -RSB- -LCB- -RCB- (as in the Penn Treebank).
  bool ptb_brackets = true;
  // Longer sentences are cut into pieces of this many tokens, with a warning.
  int max_sentence_tokens = 1000;
  InvalidUtf8Policy on_invalid = InvalidUtf8Policy::kError;
  // A longer line (bytes before its LF) is an error, as in the corpus readers (--max-line-bytes).
  int64_t max_line_bytes = int64_t{1} << 20;
  // Sentence boundaries of all-ASCII text come from a hand-written rule set equivalent to ICU's
  // (much faster); true sends every paragraph through ICU's BreakIterator (tests compare both).
  bool always_use_icu = false;
};

// The built-in abbreviations, without their final period ("Mr", "U.S", "e.g", ...).
const std::vector<std::string>& BuiltinAbbreviations();

// Splits a stream of UTF-8 bytes into sentences of tokens. Output sentences have columns[0] = NFC
// token forms, offsets = [begin, end) Unicode code point offsets into the original text (counted
// from the last Reset; an invalid sequence replaced by U+FFFD counts as one code point),
// token_lines = 1-based line of each token's first character, file = the Reset name.
// Memory is bounded by the longest sentence (max_sentence_tokens), not by the input size.
// Not thread-safe; use one per thread.
class TextSegmenter {
 public:
  explicit TextSegmenter(TextOptions options = {});
  ~TextSegmenter();
  TextSegmenter(const TextSegmenter&) = delete;
  TextSegmenter& operator=(const TextSegmenter&) = delete;

  // Starts a new document: offsets restart at 0, lines at 1, warnings are kept.
  void Reset(std::string name);
  // Consumes bytes (any split, even inside a character) and appends every sentence completed so
  // far to `out`. After an error every later call returns the same error until Reset.
  absl::Status Feed(std::string_view utf8_bytes, std::vector<Sentence>* out);
  // Ends the document: appends the remaining sentences; the segmenter is then ready for the next
  // document with the same name (call Reset to rename).
  absl::Status Finish(std::vector<Sentence>* out);

  // Messages about cut sentences/tokens ("NAME:LINE: ..."), oldest first; Take clears them.
  const std::vector<std::string>& warnings() const;
  std::vector<std::string> TakeWarnings();
  // Bytes consumed since the last Reset (for progress reports).
  int64_t bytes_consumed() const;

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

// Convenience: segments a whole text in one call.
absl::StatusOr<std::vector<Sentence>> SegmentText(std::string_view utf8_text,
                                                  const TextOptions& options = {},
                                                  std::string name = "<text>");

}  // namespace chaintag

#endif  // CHAINTAG_TEXT_H_
