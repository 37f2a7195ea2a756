// Allowed-transition masks and forced labels applied as -inf lattice scores (as Wapiti does), so
// every decoder stays unchanged.
#include <algorithm>
#include <string>
#include <vector>

#include "chaintag/decode.h"
#include "chaintag/lattice.h"

namespace chaintag {
void ApplyTransitionMask(const TransitionMask& mask, Lattice* lattice) {
  const int n = lattice->num_labels();
  if (mask.num_labels != n) return;  // a mask for another label set is a caller bug; ignore it
  if (mask.allowed.size() == static_cast<size_t>(n) * n) {
    for (int p = 0; p < n; ++p) {
      for (int y = 0; y < n; ++y) {
        if (!mask.allowed[static_cast<size_t>(p) * n + y]) lattice->transition(p, y) = kNegInf;
      }
    }
  }
  if (mask.allowed_start.size() == static_cast<size_t>(n)) {
    for (int y = 0; y < n; ++y) {
      if (!mask.allowed_start[y]) lattice->start(y) = kNegInf;
    }
  }
  if (mask.allowed_end.size() == static_cast<size_t>(n)) {
    for (int y = 0; y < n; ++y) {
      if (!mask.allowed_end[y]) lattice->end(y) = kNegInf;
    }
  }
}

void ApplyForcedLabels(absl::Span<const int> forced, Lattice* lattice) {
  const int m = std::min<int>(lattice->size(), static_cast<int>(forced.size()));
  const int n = lattice->num_labels();
  for (int t = 0; t < m; ++t) {
    const int keep = forced[t];
    if (keep < 0 || keep >= n) continue;
    for (int y = 0; y < n; ++y) {
      if (y != keep) lattice->unary(t, y) = kNegInf;
    }
  }
}

}  // namespace chaintag
