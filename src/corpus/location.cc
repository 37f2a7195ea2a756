// Locations in inputs for messages: "FILE:LINE".
#include <cstdint>
#include <string>
#include <string_view>

#include "absl/strings/str_cat.h"
#include "chaintag/corpus.h"
#include "string_view_compat.h"

namespace chaintag {

std::string Location(std::string_view file, int64_t line) {
  std::string where = file.empty() ? std::string("<input>") : std::string(file);
  if (line > 0) absl::StrAppend(&where, ":", line);
  return where;
}

std::string Location(const Sentence& sentence, int64_t token) {
  const int64_t line = token >= 0 && token < static_cast<int64_t>(sentence.token_lines.size())
                           ? sentence.token_lines[token]
                           : 0;
  return Location(sentence.file, line);
}

absl::Status ErrorAt(std::string_view file, int64_t line, std::string_view message) {
  return absl::InvalidArgumentError(absl::StrCat(Location(file, line), ": ", ToAbsl(message)));
}

absl::Status ErrorAt(const Sentence& sentence, int64_t token, std::string_view message) {
  return absl::InvalidArgumentError(absl::StrCat(Location(sentence, token), ": ", ToAbsl(message)));
}

}  // namespace chaintag
