// ModelBuilder: the one way to make a Model from trained parts (the loader reads files).
#include "train/model_builder.h"

#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "chaintag/model.h"
#include "chaintag/train.h"
#include "model/model_file.h"
#include "neural/encoder.h"
#include "neural/serialize.h"

namespace chaintag {

ModelBuilder::ModelBuilder(std::vector<std::string> labels, FeatureSpec spec,
                           AttributeDictionary attributes, ModelParameters parameters,
                           TransitionMask mask)
    : labels_(std::move(labels)),
      spec_(std::move(spec)),
      attributes_(std::move(attributes)),
      parameters_(std::move(parameters)),
      mask_(std::move(mask)) {
  for (double& w : parameters_.weights) w = static_cast<double>(static_cast<float>(w));
}

void ModelBuilder::SetEncoder(std::shared_ptr<neural::Encoder<float>> encoder) {
  if (encoder != nullptr) neural::RoundEmbeddingsToHalf(encoder.get());
  encoder_ = std::move(encoder);
}

void ModelBuilder::AddMetadata(std::string key, std::string value) {
  metadata_.emplace_back(std::move(key), std::move(value));
}

void ModelBuilder::Prune() {
  const ModelParameters& old = parameters_;
  const int num_attr = old.num_attributes();
  const int64_t num_features = old.num_state_features();
  ModelParameters pruned;
  pruned.num_labels = old.num_labels;
  pruned.order = old.order;
  pruned.attribute_offsets.reserve(num_attr + 1);
  pruned.attribute_offsets.push_back(0);
  AttributeDictionary attributes;
  std::vector<double> state_weights;
  for (int a = 0; a < num_attr; ++a) {
    const int32_t before = static_cast<int32_t>(pruned.feature_labels.size());
    for (int32_t f = old.attribute_offsets[a]; f < old.attribute_offsets[a + 1]; ++f) {
      if (old.weights[f] == 0.0) continue;
      pruned.feature_labels.push_back(old.feature_labels[f]);
      state_weights.push_back(old.weights[f]);
    }
    if (static_cast<int32_t>(pruned.feature_labels.size()) == before) continue;
    attributes.Insert(a < attributes_.size() ? attributes_.name(a) : std::string());
    pruned.attribute_offsets.push_back(static_cast<int32_t>(pruned.feature_labels.size()));
  }
  pruned.weights = std::move(state_weights);
  pruned.weights.insert(pruned.weights.end(), old.weights.begin() + num_features,
                        old.weights.end());
  parameters_ = std::move(pruned);
  attributes_ = std::move(attributes);
}

absl::StatusOr<Model> ModelBuilder::Build() && {
  if (!latent_.empty() && latent_.num_labels() != static_cast<int>(labels_.size())) {
    return absl::InvalidArgumentError(absl::StrCat("the built model: latent layout is for ",
                                                   latent_.num_labels(), " labels, expected ",
                                                   labels_.size()));
  }
  const int num_states = latent_.empty() ? static_cast<int>(labels_.size()) : latent_.num_states();
  if (absl::Status s = model_file::CheckParameters(parameters_, num_states, attributes_.size(),
                                                   "the built model");
      !s.ok()) {
    return s;
  }
  Model model(std::move(labels_), std::move(spec_), std::move(attributes_), parameters_,
              std::move(mask_), std::move(latent_));
  parameters_ = ModelParameters();  // the model keeps its tagging layout only
  model.input_options_ = input_options_;
  model.family_ = family_;
  if (family_ != ModelFamily::kLmsbn && model.spec().num_history_templates() > 0) {
    return absl::InvalidArgumentError(
        "the built model: label-history templates need the lmsbn family");
  }
  if (encoder_ != nullptr) {
    if (encoder_->config().num_labels != model.num_labels() || model.latent() ||
        model.order() != 1 || family_ != ModelFamily::kLinearChain ||
        model.spec().reads_attributes()) {
      return absl::InvalidArgumentError(
          "the built model: a neural encoder needs a first-order linear chain over its labels "
          "that reads words");
    }
    model.encoder_ = std::move(encoder_);
  }
  model.metadata_ = std::move(metadata_);
  std::vector<Model::SelfTest> tests;
  tests.reserve(self_test_sentences_.size());
  {
    Tagger tagger(model);
    for (Sentence& sentence : self_test_sentences_) {
      absl::StatusOr<Labeling> best = tagger.Tag(sentence);
      if (!best.ok()) return best.status();
      Model::SelfTest test;
      // Only the columns are stored in the file, so keep exactly those in memory too.
      test.sentence.columns = std::move(sentence.columns);
      test.sentence.attribute_offsets = std::move(sentence.attribute_offsets);
      test.sentence.attribute_names = std::move(sentence.attribute_names);
      test.sentence.attribute_values = std::move(sentence.attribute_values);
      test.expected.reserve(best->labels.size());
      for (const int y : best->labels) test.expected.push_back(model.labels()[y]);
      tests.push_back(std::move(test));
    }
  }
  self_test_sentences_.clear();
  model.self_tests_ = std::move(tests);
  return model;
}

}  // namespace chaintag
