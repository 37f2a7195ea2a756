// Internal: end-to-end training of a neural encoder under a linear chain (the encoder's emissions
// are a lattice's unaries; transitions, start and end scores as in sparse chain models).
// Objectives whose gradient reaches the emissions: crf (Lafferty et al. 2001), softmax-margin
// with the Hamming loss (Gimpel and Smith 2010) and ssvm-margin with loss-augmented unaries
// (Taskar et al. 2003, the subgradient of the structured hinge). Adam (Kingma and Ba 2015) or
// SGD over mini-batches, gradient-norm clipping, early stopping on a dev set. The result does
// not depend on the thread count (neural::BatchGradient).
#ifndef CHAINTAG_SRC_NEURAL_TRAIN_NEURAL_TRAINER_H_
#define CHAINTAG_SRC_NEURAL_TRAIN_NEURAL_TRAINER_H_

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "chaintag/labels.h"
#include "chaintag/lattice.h"
#include "model/parameters.h"
#include "neural/encoder.h"
#include "neural/word_vectors.h"

namespace chaintag {

struct NeuralTrainOptions {
  neural::EncoderConfig encoder;  // num_labels is set from the data
  enum class Objective { kCrf, kSoftmaxMargin, kSsvmMargin };
  Objective objective = Objective::kCrf;
  double cost = 1.0;  // Hamming cost per wrong token (softmax-margin, ssvm-margin)
  enum class Optimizer { kAdam, kSgd };
  Optimizer optimizer = Optimizer::kAdam;
  double learning_rate = 2e-3;
  int batch_size = 16;
  double clip = 5.0;  // global gradient norm; 0: none
  int epochs = 30;
  int patience = 4;  // epochs without a better dev accuracy before stopping (needs dev data)
  int threads = 1;
  uint64_t seed = 1;
  int min_word_count = 1;  // training words seen fewer times are unknown to the encoder
  // Words the encoder knows: the training words, then the vectors' words by count, up to this.
  int max_vocabulary = 50000;
  // The allowed transitions (chunk validity) training normalises over, as tagging applies them;
  // num_labels == 0: every transition is allowed.
  TransitionMask mask;
  // Hybrid models: false keeps the sparse weights at zero (a purely neural model).
  bool train_sparse = true;
  // Hybrid: the sparse features' Adam step is this times learning_rate.
  double sparse_learning_rate_scale = 1;
  // Hybrid: objective += sparse_l2 * |sparse weights|^2 (the CRFsuite convention of c2), so the
  // sparse part cannot memorise the training data and leave the encoder no gradient.
  double sparse_l2 = 0;
  // Epoch e (from 1) steps with learning_rate / (1 + learning_rate_decay * (e - 1)).
  double learning_rate_decay = 0;
};

// Sparse state features of a hybrid model, in ModelParameters layout: the features of attribute
// a are [attribute_offsets[a], attribute_offsets[a + 1]), feature f scores label
// feature_labels[f].
struct NeuralSparseFeatures {
  std::vector<int32_t> attribute_offsets;
  std::vector<int32_t> feature_labels;
  int num_attributes() const {
    return attribute_offsets.empty() ? 0 : static_cast<int>(attribute_offsets.size()) - 1;
  }
};

// Sentences with gold label ids.
// Gold labels may be -1 in dev data (a label training never saw: always wrong).
struct NeuralData {
  std::vector<std::vector<std::string>> tokens;
  std::vector<std::vector<int>> labels;
  // Hybrid: every token's sparse attribute ids, in corpus order (CSR: token k has
  // token_attributes[token_offsets[k] .. token_offsets[k + 1])); empty without sparse features.
  std::vector<int64_t> token_offsets;
  std::vector<int32_t> token_attributes;
};

// A trained neural chain: the encoder plus first-order chain scores.
struct NeuralChain {
  neural::Encoder<float> encoder;
  int num_labels = 0;
  // Transition scores N x N ([prev * N + y]), then start (N), then end (N).
  std::vector<float> chain;
  // Hybrid: the sparse features and their weights (empty for a purely neural chain).
  NeuralSparseFeatures features;
  std::vector<float> sparse;
  float transition(int prev, int y) const { return chain[prev * num_labels + y]; }
  float start(int y) const { return chain[num_labels * num_labels + y]; }
  float end(int y) const { return chain[num_labels * (num_labels + 1) + y]; }

  // Emissions, sparse scores of `attributes` (the sentence's tokens' attribute ids, CSR with
  // `offsets` of size + 1 entries; null without) and chain scores into `lattice` (Reset to the
  // sentence's size), then the mask.
  void FillLattice(const neural::EncodedSentence& sentence, const int64_t* offsets,
                   const int32_t* attributes, const TransitionMask& mask, Lattice* lattice) const;
  // The same from emissions already computed (labels x tokens).
  void FillChain(const neural::Mat<float>& emissions, const int64_t* offsets,
                 const int32_t* attributes, const TransitionMask& mask, Lattice* lattice) const;
  // Every parameter's bytes in a fixed order (for the determinism test and model sections).
  std::string ParameterBytes() const;
};

struct NeuralProgress {
  int epoch = 0;
  double loss = 0;           // training objective summed over the epoch
  double dev_accuracy = -1;  // -1 without dev data
  double seconds = 0;
};

// `features` (may be null) gives a hybrid chain sparse state features over the attribute ids of
// the data's token_attributes. `progress` may stop training by returning an error.
absl::StatusOr<NeuralChain> TrainNeuralChain(
    const NeuralData& train, const NeuralData* dev, int num_labels,
    const NeuralTrainOptions& options, const neural::WordVectors* vectors,
    const std::function<absl::Status(const NeuralProgress&)>& progress = {},
    const NeuralSparseFeatures* features = nullptr);

// Token accuracy of Viterbi decoding on `data` (under options.mask).
double NeuralAccuracy(const NeuralChain& chain, const NeuralData& data, const TransitionMask& mask,
                      int threads);

}  // namespace chaintag

#endif  // CHAINTAG_SRC_NEURAL_TRAIN_NEURAL_TRAINER_H_
