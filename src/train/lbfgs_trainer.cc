// The smooth objectives (crf, softmax-margin) minimised by L-BFGS, or OWL-QN with an L1 term.
#include <algorithm>
#include <memory>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "train/crf_objective.h"
#include "train/lbfgs_optimizer.h"
#include "train/losses.h"
#include "train/trainer.h"

namespace chaintag::train_internal {
namespace {

class LbfgsTrainer : public Trainer {
 public:
  LbfgsTrainer(const TrainOptions& options, std::shared_ptr<const BoundLoss> loss)
      : options_(options), loss_(std::move(loss)) {}

  absl::StatusOr<TrainerRun> Run(TrainingData* data, std::vector<double>* weights,
                                 const IterationCallback& on_iteration) override {
    SmoothLoss smooth;
    smooth.epsilon = options_.epsilon;
    smooth.p = options_.p;
    if (loss_->kind() != LossKind::kNone) {
      // The N x N cost table: the per-token costs of a one-token sentence with each gold label.
      const int n = data->num_labels();
      smooth.cost.resize(static_cast<size_t>(n) * n);
      std::vector<double> costs;
      for (int g = 0; g < n; ++g) {
        const int gold[] = {g};
        if (absl::Status s = DecomposedLossCosts(*loss_, gold, &costs); !s.ok()) return s;
        std::copy(costs.begin(), costs.end(), smooth.cost.begin() + static_cast<size_t>(g) * n);
      }
      smooth.per_token_average = loss_->kind() == LossKind::kNormalizedHamming;
    }
    // The objective turns the attribute ids into feature offsets in place (saves a copy).
    CrfObjective objective(*data, options_.c2, options_.threads, &data->position_attributes,
                           std::move(smooth));
    LbfgsSettings settings;
    settings.memory = options_.lbfgs_memory;
    settings.c1 = options_.algorithm == Algorithm::kOwlqn ? options_.c1 : 0.0;
    settings.max_iterations = options_.max_iterations;
    settings.epsilon = options_.tolerance;
    settings.period = options_.period;
    settings.checkpoints = checkpoints_;
    settings.fixed = data->FixedTransitionWeights();
    absl::StatusOr<LbfgsResult> result = MinimizeLbfgs(objective, settings, weights, on_iteration);
    if (!result.ok()) return result.status();
    return TrainerRun{result->iterations,
                      result->stopped_by_caller ? "early stopping" : result->reason};
  }

  absl::Status SetCheckpoints(const LbfgsCheckpoints& checkpoints) override {
    checkpoints_ = checkpoints;
    return absl::OkStatus();
  }

 private:
  LbfgsCheckpoints checkpoints_;
  TrainOptions options_;
  std::shared_ptr<const BoundLoss> loss_;
};

}  // namespace

std::unique_ptr<Trainer> MakeLbfgsTrainer(const TrainOptions& resolved,
                                          std::shared_ptr<const BoundLoss> loss) {
  return std::make_unique<LbfgsTrainer>(resolved, std::move(loss));
}

}  // namespace chaintag::train_internal
