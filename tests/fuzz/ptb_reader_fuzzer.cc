// Fuzzes the Penn Treebank tree reader, with POS labels and with derived base-NP chunk labels.
#include <cstddef>
#include <cstdint>

#include "chaintag/corpus.h"
#include "reader_fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  chaintag::ReaderOptions options;
  options.format = chaintag::CorpusFormat::kPtb;
  options.max_line_bytes = 1024;
  options.np_chunks = false;
  chaintag::fuzz::ReadAll(data, size, options);
  options.np_chunks = true;
  options.allow_empty = true;
  options.max_line_bytes = 24;
  chaintag::fuzz::ReadAll(data, size, options);
  return 0;
}
