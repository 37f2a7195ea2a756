// Fuzzes the CoNLL-U reader (XPOS and UPOS labels, multiword tokens, empty nodes, comments).
#include <cstddef>
#include <cstdint>

#include "chaintag/corpus.h"
#include "reader_fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  chaintag::ReaderOptions options;
  options.format = chaintag::CorpusFormat::kConllu;
  options.max_line_bytes = 1024;
  options.conllu_label = "xpos";
  chaintag::fuzz::ReadAll(data, size, options);
  options.conllu_label = "upos";
  options.allow_empty = true;
  options.max_line_bytes = 40;
  chaintag::fuzz::ReadAll(data, size, options);
  return 0;
}
