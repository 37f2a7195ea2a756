#include "train/trainer.h"

#include "absl/strings/str_cat.h"
#include "train/model_builder.h"

namespace chaintag::train_internal {

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
