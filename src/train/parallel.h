// Internal: the fork-join pattern the trainers share.
#ifndef CHAINTAG_SRC_TRAIN_PARALLEL_H_
#define CHAINTAG_SRC_TRAIN_PARALLEL_H_

#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/types/span.h"

namespace chaintag::train_internal {

// Calls run(k) for k = 0 .. n-1: k = 0 on the calling thread, the others on threads of their own;
// returns when all have finished.
template <typename Fn>
void RunOnThreads(int n, Fn&& run) {
  std::vector<std::thread> pool;
  for (int k = 1; k < n; ++k) pool.emplace_back([&run, k] { run(k); });
  run(0);
  for (std::thread& thread : pool) thread.join();
}

// The first error in `statuses` (one per worker), or OK.
inline absl::Status FirstError(absl::Span<const absl::Status> statuses) {
  for (const absl::Status& s : statuses) {
    if (!s.ok()) return s;
  }
  return absl::OkStatus();
}

}  // namespace chaintag::train_internal

#endif  // CHAINTAG_SRC_TRAIN_PARALLEL_H_
