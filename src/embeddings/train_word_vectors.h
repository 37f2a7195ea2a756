// Internal: skipgram word vectors with subword n-grams (Bojanowski et al. 2017) trained by
// fastText's library on text read through chaintag's own reader and tokeniser.
#ifndef CHAINTAG_SRC_EMBEDDINGS_TRAIN_WORD_VECTORS_H_
#define CHAINTAG_SRC_EMBEDDINGS_TRAIN_WORD_VECTORS_H_

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "neural/word_vectors.h"

namespace fasttext {
class FastText;
}

namespace chaintag::embeddings {

struct EmbeddingOptions {
  int dim = 100;
  int epochs = 5;
  int min_count = 5;  // rarer words get vectors from their n-grams only
  int minn = 3;       // character n-gram lengths (0 and 0: no n-grams)
  int maxn = 6;
  int window = 5;
  int negatives = 5;
  int64_t bucket = 200000;  // n-gram hash rows
  double learning_rate = 0.05;
  double sampling = 1e-4;  // subsampling threshold of frequent words
  int seed = 1;
  // fastText's training threads share the weights without locks (Hogwild): only 1 thread gives
  // the same vectors on every run.
  int threads = 1;
  std::string temp_dir;  // for the tokenised copy of the text; empty: the system's
};

// Checks the ranges of every option.
absl::Status ValidateEmbeddingOptions(const EmbeddingOptions& options);

// Reads `files` (.gz directly; raw text through the sentence splitter and tokeniser, or with
// `pretokenized` split at whitespace), writes them one sentence a line to a temporary file
// (fastText trains from a file path; the file is removed afterwards) and trains skipgram vectors on
// it. `log` gets progress lines.
absl::StatusOr<neural::WordVectors> TrainWordVectors(
    const std::vector<std::string>& files, bool pretokenized, const EmbeddingOptions& options,
    const std::function<void(std::string_view)>& log = {});

// The vectors of a trained fastText model (words' full vectors as fastText computes them, and
// the n-gram rows of its input matrix). Exposed for tests comparing against fastText itself.
absl::StatusOr<neural::WordVectors> FromFastText(const fasttext::FastText& model);

}  // namespace chaintag::embeddings

#endif  // CHAINTAG_SRC_EMBEDDINGS_TRAIN_WORD_VECTORS_H_
