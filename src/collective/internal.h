// Internal pieces shared by the clique algorithms: a node held at one label (for max-marginals).
#ifndef CHAINTAG_SRC_COLLECTIVE_INTERNAL_H_
#define CHAINTAG_SRC_COLLECTIVE_INTERNAL_H_

#include "absl/status/statusor.h"
#include "collective/collective.h"

namespace chaintag::collective_internal {

// Node `node` (-1: none) must take label `label`.
struct FixedNode {
  int node = -1;
  int label = 0;
};

absl::StatusOr<CliqueSolution> AlphaPassFixed(const Clique& clique, int p, FixedNode fixed);
absl::StatusOr<CliqueSolution> IcmFixed(const Clique& clique, int max_sweeps, FixedNode fixed);
absl::StatusOr<CliqueSolution> MajorityExactFixed(const Clique& clique, FixedNode fixed);

}  // namespace chaintag::collective_internal

#endif  // CHAINTAG_SRC_COLLECTIVE_INTERNAL_H_
