// Allowed transitions inferred from label names (IOB2/IOBES validity).
#include <string>
#include <vector>

#include "chaintag/labels.h"

namespace chaintag {
namespace {

// Chunk tags "B-X", "I-X", "E-X" or "S-X" constrain; "O" and labels of no scheme are free.
struct MaskTag {
  char prefix = 0;  // 0 for free labels
  std::string type;
};

MaskTag ParseMaskTag(const std::string& label) {
  const ChunkTag chunk = ParseChunkTag(label);
  MaskTag tag;
  if (chunk.in_scheme && chunk.prefix != 'O') {
    tag.prefix = chunk.prefix;
    tag.type = chunk.type;
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

}  // namespace chaintag
