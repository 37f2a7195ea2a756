// Allowed-transition masks and forced labels applied as -inf lattice scores (as Wapiti does), so
// every decoder stays unchanged.
#include <algorithm>
#include <string>
#include <vector>

#include "chaintag/decode.h"
#include "chaintag/lattice.h"

namespace chaintag {
namespace {

// A chunk tag is "B-X", "I-X", "E-X" or "S-X" with a non-empty type; other labels are free.
struct MaskTag {
  char prefix = 0;  // 0 for labels that are not chunk tags (including "O")
  std::string type;
};

MaskTag ParseMaskTag(const std::string& label) {
  MaskTag tag;
  if (label.size() >= 3 && label[1] == '-' &&
      (label[0] == 'B' || label[0] == 'I' || label[0] == 'E' || label[0] == 'S')) {
    tag.prefix = label[0];
    tag.type = label.substr(2);
  }
  return tag;
}

}  // namespace

TransitionMask InferChunkTransitionMask(const std::vector<std::string>& labels,
                                        const std::vector<char>& observed) {
  const int n = static_cast<int>(labels.size());
  TransitionMask mask;
  mask.num_labels = n;
  mask.allowed.assign(static_cast<size_t>(n) * n, 1);
  mask.allowed_start.assign(n, 1);
  mask.allowed_end.assign(n, 1);
  std::vector<MaskTag> tags(n);
  bool iobes = false;
  for (int i = 0; i < n; ++i) {
    tags[i] = ParseMaskTag(labels[i]);
    if (tags[i].prefix == 'E' || tags[i].prefix == 'S') iobes = true;
  }
  // Inside/end tags continue a phrase of their own type; IOBES also requires B/I to continue.
  auto continues = [&](int prev, int y) {
    const MaskTag& b = tags[y];
    const bool needs_open = b.prefix == 'I' || b.prefix == 'E';
    const bool prev_open = prev >= 0 && (tags[prev].prefix == 'B' || tags[prev].prefix == 'I');
    if (needs_open) return prev_open && tags[prev].type == b.type;
    if (iobes && prev_open) return false;  // an open IOBES phrase must go on with I-X or E-X
    return true;
  };
  const bool have_observed = observed.size() == static_cast<size_t>(n + 1) * n;
  for (int y = 0; y < n; ++y) {
    mask.allowed_start[y] = continues(-1, y) || (have_observed && observed[y] != 0);
    if (iobes && (tags[y].prefix == 'B' || tags[y].prefix == 'I')) mask.allowed_end[y] = 0;
    for (int p = 0; p < n; ++p) {
      const bool seen = have_observed && observed[static_cast<size_t>(p + 1) * n + y] != 0;
      mask.allowed[static_cast<size_t>(p) * n + y] = continues(p, y) || seen;
    }
  }
  return mask;
}

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
