// Shared driver of the corpus-reader fuzz targets: read every sentence until the end or an error.
#ifndef CHAINTAG_TESTS_FUZZ_READER_FUZZ_UTIL_H_
#define CHAINTAG_TESTS_FUZZ_READER_FUZZ_UTIL_H_

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <sstream>
#include <string>

#include "chaintag/corpus.h"

namespace chaintag::fuzz {

// Reads `data` with `options` and checks the invariants every returned sentence must hold.
inline void ReadAll(const uint8_t* data, size_t size, const ReaderOptions& options) {
  std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
  auto reader = MakeSentenceReader(in, "<fuzz>", options);
  for (;;) {
    auto next = reader->Next();
    if (!next.ok() || !next->has_value()) return;
    const Sentence& s = **next;
    if (s.size() == 0) std::abort();  // readers never return empty sentences
    for (const auto& column : s.columns) {
      if (static_cast<int>(column.size()) != s.size()) std::abort();
    }
    if (s.has_labels() && static_cast<int>(s.labels.size()) != s.size()) std::abort();
    // Serialise in the same format: must not crash whatever the reader accepted.
    std::ostringstream out;
    WriterOptions writer;
    writer.format = options.format;
    writer.conllu_label = options.conllu_label;
    writer.tagged_separator = options.tagged_separator;
    (void)WriteSentence(out, s, {}, writer);
  }
}

}  // namespace chaintag::fuzz

#endif  // CHAINTAG_TESTS_FUZZ_READER_FUZZ_UTIL_H_
