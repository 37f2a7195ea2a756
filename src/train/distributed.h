// Internal: the reductions data-parallel training makes (issue 29). Ranks hold the sentences
// i = r (mod P); every sum is exact (integers), so results do not depend on P, the threads or the
// order in which contributions arrive, and a single process (null or size-1 communicator) gets the
// same numbers.
#ifndef CHAINTAG_SRC_TRAIN_DISTRIBUTED_H_
#define CHAINTAG_SRC_TRAIN_DISTRIBUTED_H_

#include <cstdint>
#include <vector>

#include "absl/types/span.h"
#include "chaintag/communicator.h"

namespace chaintag::train_internal {

// The sum over all ranks of `values`, computed exactly in fixed point (integer parts, and
// fractions in units of 2^-kExactSumBits) and rounded at the end, so any partition of the same
// values gives the same double. NaN, or values of magnitude at least 2^62, make the total NaN or
// +-infinity.
inline constexpr int kExactSumBits = 64;
double ExactTotal(absl::Span<const double> values, Communicator* ranks);

// Over several ranks: fills `total` with the sum of `gradient` of every worker of every rank
// and returns it; null for one process, whose callers add their workers' sums themselves.
template <typename Worker>
const int64_t* GradientOverRanks(Communicator* ranks, const std::vector<Worker>& workers,
                                 std::vector<int64_t>* total) {
  if (!IsDistributed(ranks)) return nullptr;
  total->assign(workers.front().gradient.begin(), workers.front().gradient.end());
  for (size_t k = 1; k < workers.size(); ++k) {
    const int64_t* g = workers[k].gradient.data();
    for (size_t i = 0; i < total->size(); ++i) (*total)[i] += g[i];
  }
  ranks->SumInt64(absl::MakeSpan(*total));
  return total->data();
}

// Sums `values` over the ranks in place (nothing to do for one process).
void SumOverRanks(Communicator* ranks, absl::Span<int64_t> values);
void SumOverRanks(Communicator* ranks, absl::Span<int32_t> values);
// Element-wise OR of 0/1 flags over the ranks.
void OrOverRanks(Communicator* ranks, absl::Span<char> flags);

}  // namespace chaintag::train_internal

#endif  // CHAINTAG_SRC_TRAIN_DISTRIBUTED_H_
