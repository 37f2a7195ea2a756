// Train's path for neural and hybrid models: TrainNeuralModel.
#include "train/neural_model.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <thread>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "features/featurizer.h"
#include "neural/encoder.h"
#include "neural/word_vectors.h"
#include "neural_train/neural_trainer.h"
#include "string_view_compat.h"
#include "train/model_builder.h"
#include "train/trainer.h"

namespace chaintag::train_internal {

namespace {

// Label ids of `labels` in `inventory` (-1 for a label training never saw, when allowed).
absl::Status LabelIds(const absl::flat_hash_map<std::string, int>& ids,
                      const std::vector<std::string>& labels, bool allow_unknown,
                      std::vector<int>* out) {
  out->clear();
  for (const std::string& label : labels) {
    auto it = ids.find(label);
    if (it == ids.end() && !allow_unknown) {
      return absl::InternalError(absl::StrCat("training label '", label, "' not in the inventory"));
    }
    out->push_back(it == ids.end() ? -1 : it->second);
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Model> TrainNeuralModel(const TrainOptions& o, const FeatureSpec& spec,
                                       TrainingData data,
                                       std::vector<std::vector<std::string>> words,
                                       const std::vector<std::vector<std::string>>& labels,
                                       const std::vector<Sentence>* dev, TrainObserver* observer,
                                       const TrainDataInfo& info,
                                       std::vector<Sentence> self_tests) {
  const bool hybrid = o.encoder == EncoderKind::kHybrid;
  absl::flat_hash_map<std::string, int> label_ids;
  for (size_t y = 0; y < data.labels.size(); ++y) label_ids[data.labels[y]] = static_cast<int>(y);

  NeuralData train;
  train.tokens = std::move(words);
  train.labels.resize(labels.size());
  int64_t tokens = 0;
  for (size_t s = 0; s < labels.size(); ++s) {
    if (absl::Status st = LabelIds(label_ids, labels[s], false, &train.labels[s]); !st.ok()) {
      return st;
    }
    tokens += static_cast<int64_t>(labels[s].size());
  }
  if (tokens != data.num_positions()) {
    return absl::InternalError(absl::StrCat("neural training: ", tokens, " words for ",
                                            data.num_positions(), " featurized tokens"));
  }
  NeuralSparseFeatures features;
  if (hybrid) {
    train.token_offsets = data.position_offsets;
    train.token_attributes = data.position_attributes;
    features.attribute_offsets = data.parameters.attribute_offsets;
    features.feature_labels = data.parameters.feature_labels;
  }

  NeuralData dev_data;
  const bool has_dev = dev != nullptr && !dev->empty();
  if (has_dev) {
    Featurizer featurizer(spec);
    FeaturizedSentence featurized;
    if (hybrid) dev_data.token_offsets.push_back(0);
    for (const Sentence& sentence : *dev) {
      if (sentence.labels.size() != static_cast<size_t>(sentence.size())) {
        return absl::InvalidArgumentError(
            absl::StrCat(Location(sentence), ": expected gold labels in the dev data"));
      }
      dev_data.tokens.push_back(sentence.columns.empty() ? std::vector<std::string>()
                                                         : sentence.columns[0]);
      dev_data.labels.emplace_back();
      if (absl::Status st = LabelIds(label_ids, sentence.labels, true, &dev_data.labels.back());
          !st.ok()) {
        return st;
      }
      if (!hybrid) continue;
      if (absl::Status st = featurizer.CheckColumns(sentence); !st.ok()) return st;
      featurizer.Featurize(sentence, data.attributes, &featurized);
      for (int t = 0; t < featurized.size(); ++t) {
        for (const int32_t a : featurized.at(t)) {
          if (a >= 0 && a < data.attributes.size()) dev_data.token_attributes.push_back(a);
        }
        dev_data.token_offsets.push_back(static_cast<int64_t>(dev_data.token_attributes.size()));
      }
    }
  }

  std::unique_ptr<neural::WordVectors> vectors;
  if (!o.embeddings.empty()) {
    absl::StatusOr<neural::WordVectors> read = neural::WordVectors::Read(o.embeddings);
    if (!read.ok()) return read.status();
    vectors = std::make_unique<neural::WordVectors>(*std::move(read));
  }

  NeuralTrainOptions n;
  n.encoder.word_dim = o.word_dim;
  n.encoder.char_filters = o.char_filters;
  if (o.char_filters == 0) n.encoder.char_dim = 0;
  if (o.char_encoder == CharEncoderKind::kBiLstm) {
    n.encoder.char_encoder = neural::CharEncoder::kBiLstm;
    n.encoder.char_dim = o.char_filters == 0 ? 0 : 25;  // Lample et al. (2016): 25 and 2 x 25
  }
  n.encoder.hidden = o.hidden;
  n.encoder.layers = o.layers;
  n.encoder.dropout = o.dropout;
  n.encoder.fine_tune = o.freeze_embeddings == 0;
  n.objective = o.objective == Objective::kCrf ? NeuralTrainOptions::Objective::kCrf
                : o.objective == Objective::kSoftmaxMargin
                    ? NeuralTrainOptions::Objective::kSoftmaxMargin
                    : NeuralTrainOptions::Objective::kSsvmMargin;
  n.cost = o.loss.has_value() && *o.loss == LossKind::kHamming ? 1.0 : 0.0;
  n.learning_rate = o.learning_rate > 0 ? o.learning_rate : 2e-3;
  n.batch_size = o.batch_size;
  n.epochs = o.epochs;
  n.patience = o.patience;
  n.threads = o.threads > 0 ? o.threads
                            : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  n.seed = o.seed;
  n.min_word_count = 1;
  n.max_vocabulary = o.max_vocabulary;
  n.mask = data.mask;
  n.sparse_l2 = o.c2;
  n.sparse_learning_rate_scale = o.sparse_rate;
  n.learning_rate_decay = o.learning_rate_decay;
  n.average_epochs = o.average_epochs;

  int epochs_run = 0, best_epoch = 0;
  double best_dev = -1, best_loss = 0;
  bool best_averaged = false;
  std::string dev_by_epoch;  // "raw/averaged" per epoch, for the model's metadata
  absl::StatusOr<NeuralChain> chain = TrainNeuralChain(
      train, has_dev ? &dev_data : nullptr, data.num_labels(), n, vectors.get(),
      [&](const NeuralProgress& p) -> absl::Status {
        epochs_run = p.epoch;
        if (p.dev_accuracy < 0 || p.dev_accuracy > best_dev) {
          best_dev = p.dev_accuracy;
          best_epoch = p.epoch;
          best_loss = p.loss;
          best_averaged = p.averaged_dev_accuracy > p.raw_dev_accuracy;
        }
        if (p.averaged_dev_accuracy >= 0) {
          absl::StrAppend(&dev_by_epoch, dev_by_epoch.empty() ? "" : " ",
                          absl::StrFormat("%.2f/%.2f", 100 * p.raw_dev_accuracy,
                                          100 * p.averaged_dev_accuracy));
        } else if (p.raw_dev_accuracy >= 0) {
          absl::StrAppend(&dev_by_epoch, dev_by_epoch.empty() ? "" : " ",
                          absl::StrFormat("%.2f", 100 * p.raw_dev_accuracy));
        }
        if (observer == nullptr) return absl::OkStatus();
        TrainProgress progress;
        progress.iteration = p.epoch;
        progress.epoch = true;
        progress.objective = p.loss;
        if (p.dev_accuracy >= 0) {
          progress.dev_score = 100 * p.dev_accuracy;
          progress.dev_metric = "accuracy";
        }
        progress.elapsed_seconds = p.seconds;
        observer->OnIteration(progress);
        return observer->Interrupted();
      },
      hybrid ? &features : nullptr);
  if (!chain.ok()) return chain.status();
  vectors.reset();
  // The size cap: keep the max_sparse_features largest |weights| (ties by index), rescore dev.
  const int64_t trained_features = static_cast<int64_t>(chain->sparse.size());
  double dev_before_cut = -1;
  if (trained_features > o.max_sparse_features) {
    std::vector<int32_t> order(chain->sparse.size());
    for (size_t f = 0; f < order.size(); ++f) order[f] = static_cast<int32_t>(f);
    std::nth_element(order.begin(), order.begin() + o.max_sparse_features, order.end(),
                     [&](int32_t a, int32_t b) {
                       const float wa = std::abs(chain->sparse[a]), wb = std::abs(chain->sparse[b]);
                       return wa != wb ? wa > wb : a < b;
                     });
    for (size_t k = o.max_sparse_features; k < order.size(); ++k) chain->sparse[order[k]] = 0;
    if (has_dev && best_dev >= 0) {
      dev_before_cut = best_dev;
      best_dev = NeuralAccuracy(*chain, dev_data, n.mask, n.threads);
    }
  }

  ModelParameters params = std::move(data.parameters);
  params.weights.assign(params.size(), 0.0);
  for (size_t f = 0; f < chain->sparse.size(); ++f) params.weights[f] = chain->sparse[f];
  std::copy(chain->chain.begin(), chain->chain.end(),
            params.weights.begin() + params.transition_offset());
  const int64_t num_attributes = data.attributes.size();
  const int64_t num_features = params.num_state_features();
  const int num_sentences = data.num_sentences();
  ModelBuilder builder(data.labels, spec, std::move(data.attributes), std::move(params), data.mask);
  builder.SetEncoder(std::make_shared<neural::Encoder<float>>(std::move(chain->encoder)));
  builder.Prune();
  builder.SetInputOptions(info.input);
  train_internal::AddTrainingMetadata(
      o,
      {.sentences = num_sentences,
       .tokens = tokens,
       .attributes_before_pruning = num_attributes,
       .features_before_pruning = num_features,
       .iterations = epochs_run,
       .selected_iteration = best_epoch,
       .final_objective = best_loss,
       .stop_reason = epochs_run < o.epochs ? "early stopping on dev" : "epochs"},
      &builder);
  if (best_dev >= 0) {
    builder.AddMetadata("dev_metric", "accuracy");
    builder.AddMetadata("dev_score", absl::StrCat(100 * best_dev));
  }
  if (o.average_epochs > 1 && best_dev >= 0) {
    // Which parameters were kept, and every epoch's dev accuracy (own/averaged parameters).
    builder.AddMetadata("selected_parameters",
                        best_averaged ? absl::StrCat("mean of the last ", o.average_epochs,
                                                     " epochs' (or fewer) up to the selected one")
                                      : "the selected epoch's own");
    builder.AddMetadata("dev_by_epoch", dev_by_epoch);
  }
  if (dev_before_cut >= 0) {
    builder.AddMetadata("dev_score_before_feature_cut", absl::StrCat(100 * dev_before_cut));
  }
  for (const auto& [key, value] : info.metadata) builder.AddMetadata(key, value);
  builder.SetSelfTestSentences(std::move(self_tests));
  return std::move(builder).Build();
}

}  // namespace chaintag::train_internal
