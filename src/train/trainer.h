// The one interface every optimiser implements (L-BFGS / OWL-QN on the smooth objectives, BCFW
// and SGD on the structural SVM, the averaged perceptron), and the factory that picks one from
// resolved options. Train (train.cc) drives whichever it gets the same way.
#ifndef CHAINTAG_SRC_TRAIN_TRAINER_H_
#define CHAINTAG_SRC_TRAIN_TRAINER_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "chaintag/train.h"
#include "decode/latent.h"
#include "train/lbfgs_state.h"
#include "train/losses.h"
#include "train/model_builder.h"
#include "train/training_data.h"

namespace chaintag {

class BoundLoss;

namespace train_internal {

// Every optimiser reports each iteration (L-BFGS iteration, SSVM pass, perceptron epoch) through
// this one callback: what it measured and the weights a model would get if training stopped now.
// Returning false stops training.
using IterationCallback =
    std::function<bool(const TrainProgress& progress, absl::Span<const double> weights)>;

struct TrainerRun {
  int iterations = 0;       // iterations (passes, epochs) run
  std::string stop_reason;  // recorded in the model's metadata
};

class Trainer {
 public:
  virtual ~Trainer() = default;
  // Optimises `weights` (data->parameters.size() zeros on entry) on `data`, which the trainer
  // may rewrite in place (the CRF objective turns attribute ids into feature offsets).
  virtual absl::StatusOr<TrainerRun> Run(TrainingData* data, std::vector<double>* weights,
                                         const IterationCallback& on_iteration) = 0;
  // Saves the optimiser state (--checkpoint) or starts from a saved one (--resume); only the
  // L-BFGS/OWL-QN trainers can.
  virtual absl::Status SetCheckpoints(const LbfgsCheckpoints& /*checkpoints*/) {
    return absl::UnimplementedError(
        "checkpoints: only the L-BFGS/OWL-QN trainers (crf, softmax-margin, ldcrf) save and "
        "resume their state");
  }
};

// What every trained model records about its training, after the recorded options (train.cc and
// neural_model.cc write the same keys in the same order).
struct TrainingSummary {
  int64_t sentences = 0, tokens = 0;
  int64_t attributes_before_pruning = 0, features_before_pruning = 0;
  int64_t iterations = 0, selected_iteration = 0;
  double final_objective = 0;
  std::string stop_reason;
};
// Adds the recorded training options and the summary to the metadata; call after Prune (the
// "features" entry counts the state features kept).
void AddTrainingMetadata(const TrainOptions& o, const TrainingSummary& summary,
                         ModelBuilder* builder);

// What a trainer is made with beside the options.
struct TrainerInputs {
  std::shared_ptr<const BoundLoss> loss;  // bound to the data's labels
  int threads = 1;                        // > 0
  LatentLayout latent;  // latent-dynamic objectives: the hidden states the data is over
};
// The trainer of resolved options (ResolveTrainOptions), made by the objective's row
// (options.cc, kObjectiveRows).
absl::StatusOr<std::unique_ptr<Trainer>> MakeTrainer(const TrainOptions& resolved,
                                                     TrainerInputs inputs);
// The family section of the models an objective trains (its row).
ModelFamily FamilyOf(chaintag::Objective objective);

// The concrete trainers (one file each); MakeTrainer is the usual way in.
std::unique_ptr<Trainer> MakeLbfgsTrainer(const TrainOptions& resolved,
                                          std::shared_ptr<const BoundLoss> loss);
std::unique_ptr<Trainer> MakeSsvmTrainer(const TrainOptions& resolved,
                                         std::shared_ptr<const BoundLoss> loss, int threads);
std::unique_ptr<Trainer> MakePerceptronTrainer(const TrainOptions& resolved,
                                               std::shared_ptr<const BoundLoss> loss);
// LMBM (objective lmbm, algorithm dcd): dual coordinate descent over per-position hinges (lmbm.h).
std::unique_ptr<Trainer> MakeLmbmTrainer(const TrainOptions& resolved);
// LMSBN (objective lmsbn, algorithm dcd): dual coordinate descent over per-token multiclass
// hinges with the gold label history (lmsbn.h); `threads` evaluate the primal.
std::unique_ptr<Trainer> MakeLmsbnTrainer(const TrainOptions& resolved, int threads);
// The latent-dynamic CRF (objective ldcrf) on data already over `layout`'s hidden states
// (ExpandToHiddenStates).
std::unique_ptr<Trainer> MakeLdcrfTrainer(const TrainOptions& resolved, LatentLayout layout,
                                          int threads);

}  // namespace train_internal
}  // namespace chaintag

#endif  // CHAINTAG_SRC_TRAIN_TRAINER_H_
