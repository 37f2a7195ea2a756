// Fuzzes the raw-text tokeniser and sentence splitter (TextSegmenter): chunked Feed + Finish must
// give the same sentences as one Feed, and every token must have an offset and a line.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "chaintag/corpus.h"
#include "chaintag/text.h"

namespace {

// Segments `text`, fed in pieces of `chunk` bytes; false on error.
bool Segment(std::string_view text, const chaintag::TextOptions& options, size_t chunk,
             std::vector<chaintag::Sentence>* out) {
  chaintag::TextSegmenter segmenter(options);
  segmenter.Reset("<fuzz>");
  for (size_t i = 0; i < text.size(); i += chunk) {
    if (!segmenter.Feed(text.substr(i, chunk), out).ok()) return false;
  }
  return segmenter.Finish(out).ok();
}

void CheckSentences(const std::vector<chaintag::Sentence>& sentences,
                    const chaintag::TextOptions& options) {
  for (const chaintag::Sentence& s : sentences) {
    if (s.size() == 0 || s.size() > options.max_sentence_tokens) std::abort();
    if (static_cast<int>(s.offsets.size()) != s.size()) std::abort();
    if (static_cast<int>(s.token_lines.size()) != s.size()) std::abort();
    for (const auto& [begin, end] : s.offsets) {
      if (begin < 0 || end < begin) std::abort();
    }
  }
}

bool SameTokens(const std::vector<chaintag::Sentence>& a,
                const std::vector<chaintag::Sentence>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].columns != b[i].columns || a[i].offsets != b[i].offsets ||
        a[i].token_lines != b[i].token_lines) {
      return false;
    }
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  // Defaults: invalid UTF-8 is an error, fast ASCII splitting rules.
  chaintag::TextOptions strict;
  std::vector<chaintag::Sentence> whole;
  if (Segment(text, strict, text.size() + 1, &whole)) CheckSentences(whole, strict);

  // Replacement of invalid UTF-8, ICU splitting, tiny sentences; chunking must not matter.
  chaintag::TextOptions lenient;
  lenient.on_invalid = chaintag::InvalidUtf8Policy::kReplace;
  lenient.always_use_icu = size % 2 == 0;
  lenient.ptb_brackets = false;
  lenient.max_sentence_tokens = 5;
  lenient.extra_abbreviations = {"Gen.", "approx"};
  std::vector<chaintag::Sentence> one, chunked;
  const bool one_ok = Segment(text, lenient, text.size() + 1, &one);
  const bool chunked_ok = Segment(text, lenient, 3, &chunked);
  if (one_ok != chunked_ok) std::abort();
  if (one_ok) {
    CheckSentences(one, lenient);
    if (!SameTokens(one, chunked)) std::abort();
  }
  return 0;
}
