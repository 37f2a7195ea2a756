// Training linear-chain CRFs: L-BFGS (L2), OWL-QN (L1 / elastic net) through libLBFGS, and the
// averaged perceptron. One option table drives CLI parsing, --help and the model's metadata.
#ifndef CHAINTAG_TRAIN_H_
#define CHAINTAG_TRAIN_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "chaintag/corpus.h"
#include "chaintag/features.h"
#include "chaintag/model.h"

namespace chaintag {

struct TrainOptions {
  std::string algorithm = "lbfgs";  // lbfgs (L2) | owlqn (L1 + L2) | perceptron
  // Objective: sum_i -log P(y_i | x_i) + c1 * |w|_1 + c2 * |w|^2 (CRFsuite convention: no 1/2).
  double c1 = 0.0;
  double c2 = 1.0;
  int max_iterations = 1000;  // L-BFGS iterations, or perceptron epochs
  int min_feature_count = 1;  // attributes seen fewer times in training are dropped
  int threads = 0;            // 0 = all cores; the result is identical for every value
  double epsilon = 1e-5;      // stop when the objective improves < epsilon (relative) over `period`
  int period = 10;
  int early_stopping = 0;  // > 0: stop after this many dev evaluations without improvement
  int lbfgs_memory = 6;    // L-BFGS corrections m; memory is about (2m + 4) * 8 bytes per weight
  uint64_t seed = 1;       // perceptron shuffling
};

// One row of the option table (CRFsuite style): name, default, help, parse and print.
struct TrainOptionDef {
  std::string name;
  std::string default_value;
  std::string help;
  std::function<absl::Status(TrainOptions*, std::string_view)> set;
  std::function<std::string(const TrainOptions&)> get;
};
const std::vector<TrainOptionDef>& TrainOptionTable();
// Sets option `name` from text (errors name the option and the expected type).
absl::Status SetTrainOption(TrainOptions* options, std::string_view name, std::string_view value);
// Checks ranges and combinations (e.g. owlqn needs c1 > 0, lbfgs needs c1 == 0).
absl::Status ValidateTrainOptions(const TrainOptions& options);

struct TrainProgress {
  int iteration = 0;
  double objective = 0.0;  // CRF: regularised negative log-likelihood; perceptron: wrong tokens
  double gradient_norm = 0.0;  // 0 for the perceptron
  int64_t active_features = 0;  // non-zero weights
  std::optional<double> dev_score;
  std::string dev_metric;  // "F1" for chunk labels, otherwise "accuracy"; percentages
  double elapsed_seconds = 0.0;
};

// Trains a model on `train` (every sentence must carry gold labels). `dev` may be null; when given,
// it is scored every iteration (chunk F1 or accuracy) and the best weights are kept. `progress`
// may be empty. Training runs without the chunk transition mask; the returned model carries the
// mask inferred from the training labels and applies it when tagging (and when scoring dev).
absl::StatusOr<Model> TrainCrf(const TrainOptions& options, const FeatureSpec& spec,
                               const std::vector<Sentence>& train,
                               const std::vector<Sentence>* dev,
                               const std::function<void(const TrainProgress&)>& progress);

}  // namespace chaintag

#endif  // CHAINTAG_TRAIN_H_
