// ModelBuilder: how trainers (and tests) make a Model from trained parts.
#ifndef CHAINTAG_TRAIN_MODEL_BUILDER_H_
#define CHAINTAG_TRAIN_MODEL_BUILDER_H_

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "chaintag/corpus.h"
#include "chaintag/decode.h"
#include "chaintag/features.h"
#include "chaintag/model.h"
#include "decode/latent.h"
#include "model/parameters.h"

namespace chaintag {

// Builds a Model from trained parts; the runtime Model itself has no mutators.
class ModelBuilder {
 public:
  // Weights are rounded to float32 now, as the file stores them, so self-tests recorded by
  // Build are reproduced after loading.
  ModelBuilder(std::vector<std::string> labels, FeatureSpec spec, AttributeDictionary attributes,
               ModelParameters parameters, TransitionMask mask);
  void SetInputOptions(const ModelInputOptions& options) { input_options_ = options; }
  // Makes a latent model: `parameters` are then over layout.num_states() hidden states.
  void SetLatentLayout(LatentLayout layout) { latent_ = std::move(layout); }
  void SetFamily(ModelFamily family) { family_ = family; }
  // A neural or hybrid model: the encoder whose emissions are added to the sparse scores (its
  // word embeddings are rounded to float16 now, as the file stores them).
  void SetEncoder(std::shared_ptr<neural::Encoder<float>> encoder);
  void AddMetadata(std::string key, std::string value);
  // Drops state features whose weight is exactly zero (after L1) and attributes left with none.
  void Prune();
  // Sentences to store as self-tests; Build records the labels the model assigns to them.
  void SetSelfTestSentences(std::vector<Sentence> sentences) {
    self_test_sentences_ = std::move(sentences);
  }
  const ModelParameters& parameters() const { return parameters_; }
  const AttributeDictionary& attributes() const { return attributes_; }
  // Checks the parts as the loader does, lays the weights out for tagging (the double copy is
  // released) and tags the self-test sentences. Consumes the builder.
  absl::StatusOr<Model> Build() &&;

 private:
  std::vector<std::string> labels_;
  FeatureSpec spec_;
  AttributeDictionary attributes_;
  ModelParameters parameters_;
  TransitionMask mask_;
  LatentLayout latent_;
  ModelInputOptions input_options_;
  ModelFamily family_ = ModelFamily::kLinearChain;
  std::vector<std::pair<std::string, std::string>> metadata_;
  std::vector<Sentence> self_test_sentences_;
  std::shared_ptr<neural::Encoder<float>> encoder_;
};

}  // namespace chaintag

#endif  // CHAINTAG_TRAIN_MODEL_BUILDER_H_
