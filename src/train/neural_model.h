// Internal: Train's path for neural and hybrid models (TrainOptions::encoder): the featurized
// corpus and the words go to TrainNeuralChain (src/neural_train), and the result becomes a Model
// whose sparse weights (zero for neural models, pruned away) and encoder ModelBuilder stores.
#ifndef CHAINTAG_SRC_TRAIN_NEURAL_MODEL_H_
#define CHAINTAG_SRC_TRAIN_NEURAL_MODEL_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "chaintag/model.h"
#include "chaintag/train.h"
#include "train/model_builder.h"
#include "train/training_data.h"

namespace chaintag::train_internal {

// `words` and `labels` are the training sentences' word columns and gold labels, in the order
// `data` featurized them; `data.attributes` must still have its index (dev featurization).
absl::StatusOr<Model> TrainNeuralModel(const TrainOptions& options, const FeatureSpec& spec,
                                       TrainingData data,
                                       std::vector<std::vector<std::string>> words,
                                       const std::vector<std::vector<std::string>>& labels,
                                       const std::vector<Sentence>* dev, TrainObserver* observer,
                                       const TrainDataInfo& info, std::vector<Sentence> self_tests);

}  // namespace chaintag::train_internal

#endif  // CHAINTAG_SRC_TRAIN_NEURAL_MODEL_H_
