// Shared by the request-grammar fuzz targets: a tiny chunking model and a sentence to decode.
#ifndef CHAINTAG_TESTS_FUZZ_FUZZ_MODEL_H_
#define CHAINTAG_TESTS_FUZZ_FUZZ_MODEL_H_

#include <cstdio>
#include <cstdlib>

#include "chaintag/corpus.h"
#include "chaintag/model.h"

namespace chaintag::fuzz {

// The model_fuzzer seed chunk-tiny.model (labels B-NP I-NP B-VP I-VP B-PP O), loaded once.
inline const Model& TinyChunkModel() {
  static const Model* model = [] {
    auto m = Model::Load(CHAINTAG_SOURCE_DIR "/tests/fuzz/seeds/model/chunk-tiny.model");
    if (!m.ok()) {
      std::fprintf(stderr, "fuzz: %s\n", m.status().ToString().c_str());
      std::abort();
    }
    return new Model(*std::move(m));
  }();
  return *model;
}

// A four-token sentence with word and POS columns, as the model reads them.
inline Sentence FourTokenSentence() {
  Sentence s;
  s.columns = {{"The", "firm", "raised", "dividends"}, {"DT", "NN", "VBD", "NNS"}};
  s.file = "<fuzz>";
  s.token_lines = {1, 2, 3, 4};
  return s;
}

}  // namespace chaintag::fuzz

#endif  // CHAINTAG_TESTS_FUZZ_FUZZ_MODEL_H_
