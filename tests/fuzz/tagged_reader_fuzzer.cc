// Fuzzes the word_TAG reader with '_' and '/' separators.
#include <cstddef>
#include <cstdint>

#include "chaintag/corpus.h"
#include "reader_fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  chaintag::ReaderOptions options;
  options.format = chaintag::CorpusFormat::kTagged;
  options.max_line_bytes = 1024;
  options.tagged_separator = '_';
  chaintag::fuzz::ReadAll(data, size, options);
  options.tagged_separator = '/';
  options.allow_empty = true;
  options.max_line_bytes = 24;
  chaintag::fuzz::ReadAll(data, size, options);
  return 0;
}
