// Unlabeled text files as sentences of tokens: chaintag::text_internal::ForEachTextSentence.
#include "text/text_file.h"

#include <istream>
#include <memory>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "chaintag/corpus.h"
#include "chaintag/text.h"
#include "corpus/line_reader.h"

namespace chaintag::text_internal {

absl::Status ForEachTextSentence(
    const std::string& path, bool pretokenized, int64_t max_line_bytes,
    absl::FunctionRef<absl::Status(absl::Span<const std::string_view>)> fn) {
  absl::StatusOr<std::unique_ptr<std::istream>> in = OpenInputStream(path);
  if (!in.ok()) return in.status();
  const std::string name = path == "-" ? "<stdin>" : path;
  corpus_internal::LineReader reader(**in, name, max_line_bytes);
  TextOptions text_options;
  text_options.on_invalid = InvalidUtf8Policy::kError;
  TextSegmenter segmenter(text_options);
  segmenter.Reset(name);
  std::vector<Sentence> sentences;
  std::vector<std::string_view> tokens;
  auto emit_all = [&](auto&& error) -> absl::Status {
    for (const Sentence& sentence : sentences) {
      tokens.assign(sentence.columns[0].begin(), sentence.columns[0].end());
      if (absl::Status s = fn(absl::MakeConstSpan(tokens)); !s.ok()) return error(s);
    }
    return absl::OkStatus();
  };
  auto at_line = [&](const absl::Status& s) {
    return reader.Error(std::string_view(s.message().data(), s.message().size()));
  };
  std::string_view line;
  while (true) {
    absl::StatusOr<bool> more = reader.Next(&line);
    if (!more.ok()) return more.status();
    if (!*more) break;
    if (pretokenized) {
      tokens.clear();
      size_t pos = 0;
      while (pos < line.size()) {
        while (pos < line.size() && absl::ascii_isspace(static_cast<unsigned char>(line[pos])))
          ++pos;
        size_t end = pos;
        while (end < line.size() && !absl::ascii_isspace(static_cast<unsigned char>(line[end])))
          ++end;
        if (end > pos) tokens.push_back(line.substr(pos, end - pos));
        pos = end;
      }
      if (tokens.empty()) continue;
      if (absl::Status s = fn(absl::MakeConstSpan(tokens)); !s.ok()) return at_line(s);
      continue;
    }
    sentences.clear();
    absl::Status fed = segmenter.Feed(line, &sentences);
    if (fed.ok()) fed = segmenter.Feed("\n\n", &sentences);
    if (!fed.ok()) return fed;
    if (absl::Status s = emit_all(at_line); !s.ok()) return s;
  }
  if (!pretokenized) {
    sentences.clear();
    if (absl::Status s = segmenter.Finish(&sentences); !s.ok()) return s;
    absl::Status s = emit_all([&](const absl::Status& e) {
      return ErrorAt(name, reader.line_number(),
                     std::string_view(e.message().data(), e.message().size()));
    });
    if (!s.ok()) return s;
  }
  if ((*in)->bad()) return absl::DataLossError(absl::StrCat(name, ": read error"));
  return absl::OkStatus();
}

}  // namespace chaintag::text_internal
