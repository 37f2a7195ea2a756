// Word vectors with subword information (Bojanowski et al. 2017, "Enriching Word Vectors with
// Subword Information"): a vector per vocabulary word plus hashed character n-gram vectors, so a
// word never seen gets the mean of its n-grams' vectors. The file format is chaintag's own
// (docs/embeddings.md); `chaintag embeddings` writes it and the neural trainer reads it.
#ifndef CHAINTAG_SRC_NEURAL_WORD_VECTORS_H_
#define CHAINTAG_SRC_NEURAL_WORD_VECTORS_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"

namespace chaintag::neural {

// fastText's subword hashing: the code-point n-grams of "<" + word + ">" of lengths minn..maxn
// (leaving out the lone "<" and ">"), each FNV-1a hashed (bytes sign-extended, as fastText does)
// modulo `bucket`. Appends the bucket indices to `out` in fastText's order.
void NgramBuckets(std::string_view word, int minn, int maxn, int64_t bucket,
                  std::vector<int64_t>* out);

class WordVectors {
 public:
  static constexpr int kMaxDim = 1024;
  static constexpr int kMaxNgramLength = 16;
  static constexpr int64_t kMaxWords = int64_t{1} << 24;
  static constexpr int64_t kMaxBuckets = int64_t{1} << 24;
  static constexpr int64_t kMaxWordBytes = 1024;

  struct Shape {
    int dim = 0;
    int minn = 0;  // 0 = no n-grams (then maxn and bucket are 0 too)
    int maxn = 0;
    int64_t bucket = 0;
  };

  WordVectors() = default;

  // Checks and assembles: `word_rows` is words.size() x dim (each word's full vector),
  // `ngram_rows` bucket x dim; every value finite, words unique UTF-8 without whitespace.
  static absl::StatusOr<WordVectors> Create(Shape shape, std::vector<std::string> words,
                                            std::vector<int64_t> counts,
                                            std::vector<float> word_rows,
                                            std::vector<float> ngram_rows);
  static absl::StatusOr<WordVectors> Read(const std::string& path);
  // `name` prefixes error messages.
  static absl::StatusOr<WordVectors> Parse(std::string_view bytes, const std::string& name);
  std::string Serialize() const;

  const Shape& shape() const { return shape_; }
  int dim() const { return shape_.dim; }
  int64_t num_words() const { return static_cast<int64_t>(words_.size()); }
  const std::string& word(int64_t i) const { return words_[i]; }
  int64_t count(int64_t i) const { return counts_[i]; }
  // -1 when the word is not in the vocabulary.
  int64_t Find(std::string_view word) const;
  absl::Span<const float> word_row(int64_t i) const {
    return absl::MakeConstSpan(word_rows_).subspan(i * shape_.dim, shape_.dim);
  }
  // The vocabulary word's vector, or else the mean of its n-gram vectors. Returns false (and
  // zeros) when the word has neither. `out` has dim() entries.
  bool Lookup(std::string_view word, absl::Span<float> out) const;

 private:
  Shape shape_;
  std::vector<std::string> words_;
  std::vector<int64_t> counts_;
  std::vector<float> word_rows_;
  std::vector<float> ngram_rows_;
  absl::flat_hash_map<std::string, int64_t> index_;
};

}  // namespace chaintag::neural

#endif  // CHAINTAG_SRC_NEURAL_WORD_VECTORS_H_
