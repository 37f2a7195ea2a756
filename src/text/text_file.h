// Internal: unlabeled text files read as sentences of tokens (Brown clusters, word embeddings).
#ifndef CHAINTAG_SRC_TEXT_TEXT_FILE_H_
#define CHAINTAG_SRC_TEXT_TEXT_FILE_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/types/span.h"

namespace chaintag::text_internal {

// Reads `path` (.gz directly, "-" for standard input) and calls `fn` with the tokens of each
// sentence: raw text through the sentence splitter and PTB tokeniser (each line a paragraph of its
// own, so sentences never span lines), or with `pretokenized` each line split at ASCII whitespace
// (empty lines skipped). Lines longer than `max_line_bytes` are an error. An error from `fn` is
// returned with the file name and line number in front.
absl::Status ForEachTextSentence(
    const std::string& path, bool pretokenized, int64_t max_line_bytes,
    absl::FunctionRef<absl::Status(absl::Span<const std::string_view>)> fn);

}  // namespace chaintag::text_internal

#endif  // CHAINTAG_SRC_TEXT_TEXT_FILE_H_
