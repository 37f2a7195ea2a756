// Internal: the line-based SentenceReader skeleton shared by every format.
#ifndef CHAINTAG_SRC_CORPUS_READER_BASE_H_
#define CHAINTAG_SRC_CORPUS_READER_BASE_H_

#include <istream>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "chaintag/corpus.h"
#include "corpus/line_reader.h"

namespace chaintag::corpus_internal {

// Handles ownership of the stream, sticky errors and the empty-input check; a format only
// implements ReadSentence.
class LineSentenceReader : public SentenceReader {
 public:
  LineSentenceReader(std::istream& in, std::unique_ptr<std::istream> owned, std::string name,
                     const ReaderOptions& options);
  absl::StatusOr<std::optional<Sentence>> Next() final;
  std::vector<std::string> TakeWarnings() final;

 protected:
  // Fills *sentence (file is already set) and returns true, or returns false at end of input.
  virtual absl::StatusOr<bool> ReadSentence(Sentence* sentence) = 0;

  std::unique_ptr<std::istream> owned_;  // declared before lines_, which refers to it
  LineReader lines_;
  ReaderOptions options_;
  absl::Status init_error_;  // set by a constructor that rejects its options
  // ReaderOptions::max_sentence_tokens as a size.
  size_t max_tokens() const { return static_cast<size_t>(options_.max_sentence_tokens); }
  // The error or warning for a sentence with more than max_sentence_tokens tokens, at `line`
  // (the first token that does not fit). Returns OK after recording the warning when the
  // sentence is to be split.
  absl::Status TooManyTokens(int64_t line, bool can_split = true);
  std::vector<std::string> warnings_;

 private:
  int64_t sentences_ = 0;
  absl::Status error_;
  bool done_ = false;
};

bool IsBlank(std::string_view line);

// Splits on tabs when the line holds a tab, otherwise on runs of spaces (CoNLL-2000 style).
void SplitColumns(std::string_view line, std::vector<std::string_view>* fields);

// Splits on runs of spaces and tabs.
void SplitWhitespace(std::string_view line, std::vector<std::string_view>* fields);

std::unique_ptr<SentenceReader> MakePtbReader(std::istream& in, std::unique_ptr<std::istream> owned,
                                              std::string name, const ReaderOptions& options);

std::unique_ptr<SentenceReader> MakeAttributesReader(std::istream& in,
                                                     std::unique_ptr<std::istream> owned,
                                                     std::string name,
                                                     const ReaderOptions& options);

}  // namespace chaintag::corpus_internal

#endif  // CHAINTAG_SRC_CORPUS_READER_BASE_H_
