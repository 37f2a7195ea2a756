// Internal: the fork-join pattern the trainers share.
#ifndef CHAINTAG_SRC_TRAIN_PARALLEL_H_
#define CHAINTAG_SRC_TRAIN_PARALLEL_H_

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "worker_threads.h"

namespace chaintag::train_internal {

using ::chaintag::RunOnThreads;

// The first error in `statuses` (one per worker), or OK.
inline absl::Status FirstError(absl::Span<const absl::Status> statuses) {
  for (const absl::Status& s : statuses) {
    if (!s.ok()) return s;
  }
  return absl::OkStatus();
}

}  // namespace chaintag::train_internal

#endif  // CHAINTAG_SRC_TRAIN_PARALLEL_H_
