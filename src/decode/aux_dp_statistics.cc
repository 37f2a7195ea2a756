// Statistics for the AuxDp engine: label counts, chunk counts, Hamming and chunk distances.
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "decode/aux_dp.h"

namespace chaintag {
namespace {

// Counts stop at the upper bound (beyond it the labeling is pruned) or, without one, at the lower
// bound (any larger count is equally acceptable), which keeps R small.
int CountCap(int lower, int upper) { return upper >= 0 ? upper : std::max(lower, 0); }

int NextCount(int state, bool counted, int upper, int cap) {
  if (!counted) return state;
  if (upper >= 0 && state + 1 > upper) return Statistic::kInfeasible;
  return std::min(state + 1, cap);
}

bool CountAccepts(int state, int lower, int upper) {
  return state >= lower && (upper < 0 || state <= upper);
}

absl::Status CheckReference(const std::vector<int>& reference, const Lattice& lattice,
                            const char* what) {
  if (static_cast<int>(reference.size()) != lattice.size()) {
    return absl::InvalidArgumentError(absl::StrCat(what, ": reference has ", reference.size(),
                                                   " labels; expected ", lattice.size()));
  }
  for (size_t t = 0; t < reference.size(); ++t) {
    if (reference[t] < 0 || reference[t] >= lattice.num_labels()) {
      return absl::InvalidArgumentError(absl::StrCat(what, ": reference label ", reference[t],
                                                     " at position ", t, "; expected 0..",
                                                     lattice.num_labels() - 1));
    }
  }
  return absl::OkStatus();
}

}  // namespace

LabelCountStatistic::LabelCountStatistic(int num_labels, const std::vector<int>& labels, int lower,
                                         int upper)
    : in_set_(num_labels, 0), lower_(lower), upper_(upper), cap_(CountCap(lower, upper)) {
  for (int l : labels) {
    if (l >= 0 && l < num_labels) in_set_[l] = 1;
  }
}

int LabelCountStatistic::Next(int state, int, int, int label) const {
  return NextCount(state, label < static_cast<int>(in_set_.size()) && in_set_[label], upper_, cap_);
}

bool LabelCountStatistic::Accepts(int state) const { return CountAccepts(state, lower_, upper_); }

void LabelCountStatistic::FillSuccessors(int, int num_labels, absl::Span<int> table) const {
  for (int s = 0; s <= cap_; ++s) {
    for (int prev = -1; prev < num_labels; ++prev) {
      int* row = table.data() + (static_cast<size_t>(s) * (num_labels + 1) + prev + 1) * num_labels;
      for (int y = 0; y < num_labels; ++y) {
        row[y] = NextCount(s, y < static_cast<int>(in_set_.size()) && in_set_[y], upper_, cap_);
      }
    }
  }
}

ChunkCountStatistic::ChunkCountStatistic(const ChunkTable& table, const std::vector<int>& types,
                                         int lower, int upper)
    : num_labels_(table.num_labels()), lower_(lower), upper_(upper), cap_(CountCap(lower, upper)) {
  const int n = num_labels_;
  counts_.assign(static_cast<size_t>(n + 1) * n, 0);
  for (int prev = -1; prev < n; ++prev) {
    for (int y = 0; y < n; ++y) {
      const int type = table.TypeOf(y);
      const bool counted = type >= 0 && std::find(types.begin(), types.end(), type) != types.end();
      counts_[static_cast<size_t>(prev + 1) * n + y] = counted && table.Starts(prev, y);
    }
  }
}

int ChunkCountStatistic::Next(int state, int, int prev_label, int label) const {
  return NextCount(state, counts_[static_cast<size_t>(prev_label + 1) * num_labels_ + label] != 0,
                   upper_, cap_);
}

bool ChunkCountStatistic::Accepts(int state) const { return CountAccepts(state, lower_, upper_); }

HammingDistanceStatistic::HammingDistanceStatistic(std::vector<int> reference, int min_distance)
    : reference_(std::move(reference)), cap_(std::max(min_distance, 0)) {}

int HammingDistanceStatistic::Next(int state, int position, int, int label) const {
  return std::min(state + (label != reference_[position] ? 1 : 0), cap_);
}

absl::Status HammingDistanceStatistic::Validate(const Lattice& lattice) const {
  return CheckReference(reference_, lattice, "HammingDistanceStatistic");
}

void HammingDistanceStatistic::FillSuccessors(int position, int num_labels,
                                              absl::Span<int> table) const {
  const int ref = reference_[position];
  for (int s = 0; s <= cap_; ++s) {
    for (int prev = -1; prev < num_labels; ++prev) {
      int* row = table.data() + (static_cast<size_t>(s) * (num_labels + 1) + prev + 1) * num_labels;
      for (int y = 0; y < num_labels; ++y) row[y] = std::min(s + (y != ref ? 1 : 0), cap_);
    }
  }
}

ChunkDistanceStatistic::ChunkDistanceStatistic(const ChunkTable& table, std::vector<int> reference,
                                               int min_distance)
    : table_(&table), reference_(std::move(reference)), cap_(std::max(min_distance, 0)) {
  const int m = static_cast<int>(reference_.size());
  ref_starts_.assign(m, 0);
  ref_ends_.assign(m + 1, 0);
  for (int t = 0; t < m; ++t) {
    const int prev = t == 0 ? -1 : reference_[t - 1];
    ref_starts_[t] = table.Starts(prev, reference_[t]);
    if (t > 0) ref_ends_[t] = table.Ends(prev, reference_[t]);
  }
  if (m > 0) ref_ends_[m] = table.Ends(reference_[m - 1], -1);
}

// State = 3 * count + open, open: 0 no chunk open, 1 the open chunk matches a reference chunk so
// far (same start and type, reference still open), 2 it cannot match.
int ChunkDistanceStatistic::Next(int state, int position, int prev_label, int label) const {
  int count = state / 3;
  int open = state % 3;
  const ChunkTable& table = *table_;
  const bool starts = table.Starts(prev_label, label);
  if (open != 0 && (table.Ends(prev_label, label) || starts)) {
    if (!(open == 1 && ref_ends_[position])) count = std::min(count + 1, cap_);
    open = 0;
  } else if (open == 1 && ref_ends_[position]) {
    open = 2;  // the reference phrase closed inside ours
  }
  if (starts) {
    open =
        ref_starts_[position] && table.TypeOf(reference_[position]) == table.TypeOf(label) ? 1 : 2;
  }
  const int m = static_cast<int>(reference_.size());
  if (position == m - 1 && open != 0) {  // the sentence end closes the last phrase
    if (!(open == 1 && ref_ends_[m])) count = std::min(count + 1, cap_);
    open = 0;
  }
  return 3 * count + open;
}

absl::Status ChunkDistanceStatistic::Validate(const Lattice& lattice) const {
  if (table_->num_labels() != lattice.num_labels()) {
    return absl::InvalidArgumentError(absl::StrCat("ChunkDistanceStatistic: chunk table has ",
                                                   table_->num_labels(), " labels; lattice has ",
                                                   lattice.num_labels()));
  }
  return CheckReference(reference_, lattice, "ChunkDistanceStatistic");
}

}  // namespace chaintag
