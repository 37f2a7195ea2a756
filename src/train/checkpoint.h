// Internal: checkpoint files of --checkpoint / --resume (docs/distributed.md, "Checkpoints"): the
// restartable optimiser's state with the dev tracking of Train, tied to the options and the
// training data that produced them. Files are user input: every field is checked on reading.
#ifndef CHAINTAG_SRC_TRAIN_CHECKPOINT_H_
#define CHAINTAG_SRC_TRAIN_CHECKPOINT_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "train/lbfgs_state.h"

namespace chaintag::train_internal {

inline constexpr uint32_t kCheckpointVersion = 1;

// What identifies the training data (over every rank): sizes and a CRC-32C of the label names
// and the empirical feature counts, which change with any sentence, template or cut-off.
struct DataFingerprint {
  int64_t sentences = 0;
  int64_t tokens = 0;
  int64_t labels = 0;
  int64_t weights = 0;
  uint32_t checksum = 0;
  bool operator==(const DataFingerprint&) const = default;
};

// Train's dev tracking at the checkpoint (best score, its weights, early-stopping count).
struct TrackerState {
  int iterations = 0;
  double last_objective = 0;
  bool has_best = false;
  double best_score = 0;
  int best_iteration = 0;
  double best_objective = 0;
  int since_best = 0;
  std::string dev_metric;
  std::vector<double> best_weights;
};

struct Checkpoint {
  std::string options;  // "name=value" lines of the resolved options that shape the model
  DataFingerprint data;
  TrackerState tracker;
  LbfgsState optimizer;
};

// Writes a checkpoint to `path` atomically (temporary file, fsync, rename).
absl::Status WriteCheckpoint(const std::string& path, const std::string& options,
                             const DataFingerprint& data, const TrackerState& tracker,
                             const LbfgsState& optimizer);

// Reads and checks a checkpoint file (magic, version, CRC, sizes), then that it was written for
// `options` and `data`; errors name the file and what differs. A file over `max_bytes` (what the
// state of data.weights weights can take) is refused unread.
absl::StatusOr<Checkpoint> ReadCheckpoint(const std::string& path, const std::string& options,
                                          const DataFingerprint& data, int64_t max_bytes);

}  // namespace chaintag::train_internal

#endif  // CHAINTAG_SRC_TRAIN_CHECKPOINT_H_
