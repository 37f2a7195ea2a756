// Fuzzes the CoNLL column reader (label column last, none, and second; short and long lines).
#include <cstddef>
#include <cstdint>

#include "chaintag/corpus.h"
#include "reader_fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  chaintag::ReaderOptions options;
  options.format = chaintag::CorpusFormat::kConll;
  options.max_line_bytes = 1024;
  for (int label_column : {-1, 0, 2}) {
    options.label_column = label_column;
    options.allow_empty = label_column == 0;
    chaintag::fuzz::ReadAll(data, size, options);
  }
  options.label_column = -2;
  options.max_line_bytes = 16;
  chaintag::fuzz::ReadAll(data, size, options);
  return 0;
}
