// The latent-dynamic CRF trainer: seeded random initial weights, then L-BFGS (or OWL-QN with an
// L1 term) on the marginal log-likelihood (LdcrfObjective).
#include <memory>
#include <utility>
#include <vector>

#include "train/lbfgs_optimizer.h"
#include "train/ldcrf_objective.h"
#include "train/trainer.h"

namespace chaintag::train_internal {
namespace {

// Initial weights in [-kInitialScale, kInitialScale]: small enough to start near the uniform
// distribution, large enough to make the hidden states of a label differ.
constexpr double kInitialScale = 0.1;

class LdcrfTrainer : public Trainer {
 public:
  LdcrfTrainer(const TrainOptions& options, LatentLayout layout, int threads)
      : options_(options), layout_(std::move(layout)), threads_(threads) {}

  absl::StatusOr<TrainerRun> Run(TrainingData* data, std::vector<double>* weights,
                                 const IterationCallback& on_iteration) override {
    // The objective is non-convex and symmetric in the hidden states of a label: start from
    // seeded random weights, the same for every thread count.
    RandomInitialWeights(options_.seed, kInitialScale, weights);
    LdcrfObjective objective(*data, layout_, options_.c2, threads_);
    LbfgsSettings settings;
    settings.memory = options_.lbfgs_memory;
    settings.c1 = options_.algorithm == Algorithm::kOwlqn ? options_.c1 : 0.0;
    settings.max_iterations = options_.max_iterations;
    settings.epsilon = options_.tolerance;
    settings.period = options_.period;
    settings.checkpoints = checkpoints_;
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
  LatentLayout layout_;
  int threads_;
};

}  // namespace

std::unique_ptr<Trainer> MakeLdcrfTrainer(const TrainOptions& resolved, LatentLayout layout,
                                          int threads) {
  return std::make_unique<LdcrfTrainer>(resolved, std::move(layout), threads);
}

}  // namespace chaintag::train_internal
