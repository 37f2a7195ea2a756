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
      return MakeLmsbnTrainer(resolved, threads);
    case Algorithm::kAuto:
      break;
  }
  return absl::InvalidArgumentError(
      absl::StrCat("algorithm ", ToAbsl(AlgorithmName(resolved.algorithm)),
                   ": expected options resolved by ResolveTrainOptions"));
}

void AddTrainingMetadata(const TrainOptions& o, const TrainingSummary& summary,
                         ModelBuilder* builder) {
  for (const TrainOptionDef& def : TrainOptionTable()) {
    if (!def.recorded || def.recorded(o)) builder->AddMetadata(def.name, def.get(o));
  }
  builder->AddMetadata("training_sentences", absl::StrCat(summary.sentences));
  builder->AddMetadata("training_tokens", absl::StrCat(summary.tokens));
  builder->AddMetadata("attributes_before_pruning",
                       absl::StrCat(summary.attributes_before_pruning));
  builder->AddMetadata("features_before_pruning", absl::StrCat(summary.features_before_pruning));
  builder->AddMetadata("features", absl::StrCat(builder->parameters().num_state_features()));
  builder->AddMetadata("iterations", absl::StrCat(summary.iterations));
  builder->AddMetadata("selected_iteration", absl::StrCat(summary.selected_iteration));
  builder->AddMetadata("final_objective", absl::StrCat(summary.final_objective));
  builder->AddMetadata("stop_reason", summary.stop_reason);
}

}  // namespace chaintag::train_internal
