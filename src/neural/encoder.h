// Internal: the neural encoder of chain models. Per token: a word embedding (initialised from
// `chaintag embeddings` vectors, frozen or fine-tuned, with word dropout) and a character CNN or
// character BiLSTM;
// dropout; one or two BiLSTM layers over the sentence (Huang et al. 2015, Lample et al. 2016, Ma
// and Hovy 2016); dropout; a linear layer to one score per label and token (the emissions, which
// fill a lattice's unaries). Forward/Backward work on one sentence; BatchGradient sums sentences
// on threads in a fixed order, so the gradient does not depend on the thread count.
#ifndef CHAINTAG_SRC_NEURAL_ENCODER_H_
#define CHAINTAG_SRC_NEURAL_ENCODER_H_

#include <cstdint>
#include <functional>
#include <map>
#include <random>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "neural/layers.h"
#include "neural/word_vectors.h"

namespace chaintag::neural {

// How a word's characters become a vector: a CNN with max-pooling (Ma and Hovy 2016) or a
// BiLSTM's final states (Lample et al. 2016).
enum class CharEncoder : int { kCnn = 0, kBiLstm = 1 };

struct EncoderConfig {
  int num_labels = 0;
  int word_dim = 100;     // the embeddings' dimension when they are given
  int char_dim = 30;      // 0: no character CNN
  int char_filters = 50;  // 0: no character CNN
  int char_width = 3;     // the CNN's filter width
  // kBiLstm: char_filters is the output size, char_filters / 2 units per direction (even).
  CharEncoder char_encoder = CharEncoder::kCnn;
  int hidden = 100;  // per direction
  int layers = 1;    // BiLSTM layers, 1 or 2
  double dropout = 0.33;
  double word_dropout = 0.05;  // a training token's word becomes the unknown word
  bool fine_tune = true;       // false: the word embeddings stay as initialised
  int max_word_chars = 20;     // longer words keep their first and last max/2 characters
};

absl::Status ValidateEncoderConfig(const EncoderConfig& config);

// Word and character vocabularies. Word 0 is the unknown word; characters 0..3 are reserved
// (CharCnn::kPad...), unknown code points map to CharCnn::kUnknown.
class Vocabulary {
 public:
  Vocabulary();
  // Adds a word or character if new; returns its id.
  int32_t AddWord(std::string_view word);
  void AddChars(std::string_view word);
  int32_t WordId(std::string_view word) const;  // 0 if unknown
  // The word's character ids (code points of its UTF-8; invalid bytes as unknown characters),
  // cut to the first and last max_chars/2 when longer than max_chars.
  void CharIds(std::string_view word, int max_chars, std::vector<int32_t>* out) const;
  int num_words() const { return static_cast<int>(words_.size()); }
  int num_chars() const { return static_cast<int>(chars_.size()) + 4; }
  const std::vector<std::string>& words() const { return words_; }
  const std::vector<uint32_t>& chars() const { return chars_; }
  static absl::StatusOr<Vocabulary> FromLists(std::vector<std::string> words,
                                              std::vector<uint32_t> chars);

 private:
  std::vector<std::string> words_;  // [0] = "" (unknown)
  absl::flat_hash_map<std::string, int32_t> word_ids_;
  std::vector<uint32_t> chars_;  // code point of char id 4 + i
  absl::flat_hash_map<uint32_t, int32_t> char_ids_;
};

// A sentence as ids.
struct EncodedSentence {
  std::vector<int32_t> words;
  std::vector<std::vector<int32_t>> chars;
};

template <typename T>
struct Gradients {
  std::vector<T> dense;                    // same layout as the parameters
  std::map<int32_t, Vec<T>> word_vectors;  // rows of the word embeddings touched
  // Other sparse parameters (a hybrid model's state features): (index, value) pairs, summed by
  // the consumer; Add appends in order, so the sum does not depend on the thread count.
  std::vector<std::pair<int64_t, T>> sparse;
  void Reset(int64_t size) {
    dense.assign(size, T(0));
    word_vectors.clear();
    sparse.clear();
  }
  void Add(const Gradients& other) {
    for (size_t i = 0; i < dense.size(); ++i) dense[i] += other.dense[i];
    for (const auto& [id, v] : other.word_vectors) {
      auto [it, inserted] = word_vectors.try_emplace(id, v);
      if (!inserted) it->second += v;
    }
    sparse.insert(sparse.end(), other.sparse.begin(), other.sparse.end());
  }
};

template <typename T>
class Encoder {
 public:
  // Everything Forward keeps for Backward.
  struct Tape {
    std::vector<int32_t> words;                    // after word dropout
    std::vector<CharCnn::Cache<T>> chars;          // character CNN
    std::vector<CharBiLstm::Cache<T>> char_lstms;  // or character BiLSTM
    Mat<T> input;                                  // token representations before dropout
    Mat<T> input_mask;                             // dropout masks (empty: none)
    std::vector<Mat<T>> layer_inputs;              // input of each BiLSTM layer (after dropout)
    std::vector<Lstm::Cache<T>> forward, backward;
    std::vector<Mat<T>> layer_masks;  // dropout after each BiLSTM layer
    Mat<T> top;                       // the last layer's output after dropout
  };

  Encoder() = default;
  Encoder(const EncoderConfig& config, Vocabulary vocabulary);

  // Random initialisation (Glorot-uniform matrices, forget-gate biases 1), then the rows of
  // words the vectors know (their own or from their n-grams) from `vectors` when given.
  void Initialize(uint64_t seed, const WordVectors* vectors);

  const EncoderConfig& config() const { return config_; }
  const Vocabulary& vocabulary() const { return vocabulary_; }
  const ParameterLayout& layout() const { return layout_; }
  std::vector<T>& params() { return params_; }
  const std::vector<T>& params() const { return params_; }
  Mat<T>& word_embeddings() { return word_embeddings_; }
  const Mat<T>& word_embeddings() const { return word_embeddings_; }
  // Per word (column of word_embeddings): the int8 scale the embeddings were rounded with, so a
  // load-then-save writes the same bytes; empty when they are not stored as int8.
  std::vector<float>& embedding_scales() { return embedding_scales_; }
  const std::vector<float>& embedding_scales() const { return embedding_scales_; }

  // The dense parameter count of an encoder of `config` over `num_chars` characters (with the
  // reserved ones), computed without allocating them.
  static int64_t DenseSize(const EncoderConfig& config, int num_chars);

  EncodedSentence Encode(absl::Span<const std::string> tokens) const;

  // Emissions (labels x tokens). With `rng` (training) applies word dropout and dropout; `tape`
  // (may be null at inference) keeps what Backward needs.
  void Forward(const EncodedSentence& sentence, std::mt19937_64* rng, Tape* tape,
               Mat<T>* emissions) const;
  // Adds the gradient of sum(d_emissions .* emissions) to `grads`.
  void Backward(const EncodedSentence& sentence, const Tape& tape, const Mat<T>& d_emissions,
                Gradients<T>* grads) const;

 private:
  static void BuildLayers(const EncoderConfig& config, int num_chars, ParameterLayout* layout,
                          CharCnn* chars, CharBiLstm* char_lstm, std::vector<Lstm>* forward,
                          std::vector<Lstm>* backward, Linear* output);
  int InputDim() const { return config_.word_dim + (has_chars() ? config_.char_filters : 0); }
  bool has_chars() const { return config_.char_dim > 0 && config_.char_filters > 0; }
  bool has_char_lstm() const { return has_chars() && config_.char_encoder == CharEncoder::kBiLstm; }

  EncoderConfig config_;
  Vocabulary vocabulary_;
  ParameterLayout layout_;
  CharCnn chars_;
  CharBiLstm char_lstm_;
  std::vector<Lstm> forward_, backward_;
  Linear output_;
  std::vector<T> params_;
  Mat<T> word_embeddings_;  // word_dim x words
  std::vector<float> embedding_scales_;
};

// The sum of `count` sentences' gradients and losses. `sentence(i, grads)` adds sentence i's
// gradient to grads and returns its loss. Sentences are cut into blocks of a fixed size, each
// block summed in order by one thread, and the blocks added in order, so the result is the same
// for every thread count.
template <typename T>
T BatchGradient(int count, int threads, int64_t dense_size,
                const std::function<T(int, Gradients<T>*)>& sentence, Gradients<T>* out);

extern template class Encoder<float>;
extern template class Encoder<double>;
extern template float BatchGradient<float>(int, int, int64_t,
                                           const std::function<float(int, Gradients<float>*)>&,
                                           Gradients<float>*);
extern template double BatchGradient<double>(int, int, int64_t,
                                             const std::function<double(int, Gradients<double>*)>&,
                                             Gradients<double>*);

}  // namespace chaintag::neural

#endif  // CHAINTAG_SRC_NEURAL_ENCODER_H_
