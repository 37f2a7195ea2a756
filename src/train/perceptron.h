// Averaged structured perceptron (Collins 2002) over the CRF feature set, with the lazy averaging
// trick (Daume 2006, sec. 2.1.1) so an update costs only the features it touches. Its decoder is
// the trainers' loss-augmented one (margin scaling); with LossKind::kNone that is plain Viterbi.
#ifndef CHAINTAG_TRAIN_PERCEPTRON_H_
#define CHAINTAG_TRAIN_PERCEPTRON_H_

#include <cstdint>
#include <functional>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "chaintag/train.h"
#include "train/losses.h"
#include "train/trainer.h"
#include "train/training_data.h"

namespace chaintag {
namespace train_internal {

// Runs up to `epochs` shuffled passes (seeded, deterministic); `w` receives the averaged weights of
// the last epoch run. `on_epoch` (may be empty) sees the epoch number, the wrongly labelled tokens
// of the epoch as the objective, and the averaged weights; it returns false to stop. Returns the
// epochs run.
absl::StatusOr<int> TrainAveragedPerceptron(const TrainingData& data, const BoundLoss& loss,
                                            int epochs, uint64_t seed, std::vector<double>* w,
                                            const IterationCallback& on_epoch);

}  // namespace train_internal
}  // namespace chaintag

#endif  // CHAINTAG_TRAIN_PERCEPTRON_H_
