#include "train/trainer.h"

#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "string_view_compat.h"

namespace chaintag::train_internal {

absl::StatusOr<std::unique_ptr<Trainer>> MakeTrainer(const TrainOptions& resolved,
                                                     std::shared_ptr<const BoundLoss> loss,
                                                     int threads) {
  if (resolved.objective == Objective::kLdcrf) {
    return absl::InvalidArgumentError(
        "objective ldcrf: the trainer needs the hidden-state layout (MakeLdcrfTrainer)");
  }
  switch (resolved.algorithm) {
    case Algorithm::kLbfgs:
    case Algorithm::kOwlqn:
      return MakeLbfgsTrainer(resolved, std::move(loss));
    case Algorithm::kBcfw:
    case Algorithm::kSgd:
      return MakeSsvmTrainer(resolved, std::move(loss), threads);
    case Algorithm::kPerceptron:
      return MakePerceptronTrainer(resolved, std::move(loss));
    case Algorithm::kDcd:
      if (resolved.objective == Objective::kLmbm) return MakeLmbmTrainer(resolved);
      break;  // lmsbn trains apart (RunLmsbn), without a chain trainer
    case Algorithm::kAuto:
      break;
  }
  return absl::InvalidArgumentError(
      absl::StrCat("algorithm ", ToAbsl(AlgorithmName(resolved.algorithm)),
                   ": expected options resolved by ResolveTrainOptions"));
}

}  // namespace chaintag::train_internal
