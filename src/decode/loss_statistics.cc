// The loss statistics: small finite-state accumulators over the label sequence (token errors,
// token and chunk confusion counts) whose final state determines a loss, for the AuxDp engine.
#include "decode/loss_statistics.h"

#include <algorithm>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace chaintag {

void CountSpace::Reset(Mode mode, int tp_max, int fp_max, int total_max) {
  tp_max = std::max(tp_max, 0);
  fp_max = std::max(fp_max, 0);
  switch (mode) {
    case Mode::kTpFp:
      break;
    case Mode::kTp:
      fp_max = 0;
      break;
    case Mode::kFp:
      tp_max = 0;
      break;
    case Mode::kSum:
      tp_max = std::max(0, std::min(tp_max + fp_max, total_max));
      fp_max = 0;
      break;
  }
  tp_of_.clear();
  fp_of_.clear();
  index_.assign(static_cast<size_t>(tp_max + 1) * (fp_max + 1), -1);
  for (int a = 0; a <= tp_max; ++a) {
    for (int b = 0; b <= fp_max && a + b <= std::max(total_max, 0); ++b) {
      index_[static_cast<size_t>(a) * (fp_max + 1) + b] = static_cast<int>(tp_of_.size());
      tp_of_.push_back(a);
      fp_of_.push_back(b);
    }
  }
  const int r = static_cast<int>(tp_of_.size());
  after_tp_.resize(r);
  after_fp_.resize(r);
  // The caps are true upper bounds on reachable counts; saturating only guards the table.
  auto find = [&](int a, int b) {
    a = std::min(a, tp_max);
    b = std::min(b, fp_max);
    int i = index_[static_cast<size_t>(a) * (fp_max + 1) + b];
    while (i < 0 && b > 0) i = index_[static_cast<size_t>(a) * (fp_max + 1) + --b];
    while (i < 0 && a > 0) i = index_[static_cast<size_t>(--a) * (fp_max + 1) + b];
    return std::max(i, 0);
  };
  for (int i = 0; i < r; ++i) {
    const int a = tp_of_[i], b = fp_of_[i];
    switch (mode) {
      case Mode::kTpFp:
        after_tp_[i] = find(a + 1, b);
        after_fp_[i] = find(a, b + 1);
        break;
      case Mode::kTp:
        after_tp_[i] = find(a + 1, 0);
        after_fp_[i] = i;
        break;
      case Mode::kFp:
        after_tp_[i] = i;
        after_fp_[i] = find(0, b + 1);
        break;
      case Mode::kSum:
        after_tp_[i] = after_fp_[i] = find(a + 1, 0);
        break;
    }
  }
}

namespace {

absl::Status CheckGold(const std::vector<int>& gold, int num_labels, const Lattice& lattice,
                       const char* what) {
  if (static_cast<int>(gold.size()) != lattice.size() || num_labels != lattice.num_labels()) {
    return absl::InvalidArgumentError(absl::StrCat(what, ": bound to ", gold.size(), " tokens x ",
                                                   num_labels, " labels; lattice has ",
                                                   lattice.size(), " x ", lattice.num_labels()));
  }
  return absl::OkStatus();
}

}  // namespace

void TokenErrorStatistic::Reset(const LossView& loss, absl::Span<const int> gold) {
  loss_ = &loss;
  gold_.assign(gold.begin(), gold.end());
  const int n = loss.num_labels;
  int64_t total = 0;
  for (int g : gold_) {
    int64_t worst = 0;
    for (int y = 0; y < n; ++y)
      worst = std::max(worst, loss.weight_units[static_cast<size_t>(g) * n + y]);
    total += worst;
  }
  if (loss.max_errors >= 0) total = std::min<int64_t>(total, loss.max_errors);
  // The engine bounds R far below int range; clamp so an absurd total fails there, not here.
  cap_ = static_cast<int>(std::min<int64_t>(total, int64_t{1} << 30));
}

int TokenErrorStatistic::Next(int state, int position, int, int label) const {
  const int64_t next =
      state + loss_->weight_units[static_cast<size_t>(gold_[position]) * loss_->num_labels + label];
  return static_cast<int>(std::min<int64_t>(next, cap_));
}

absl::Status TokenErrorStatistic::Validate(const Lattice& lattice) const {
  return CheckGold(gold_, loss_->num_labels, lattice, "TokenErrorStatistic");
}

void TokenErrorStatistic::FillSuccessors(int position, int num_labels,
                                         absl::Span<int> table) const {
  const int64_t* units =
      loss_->weight_units.data() + static_cast<size_t>(gold_[position]) * loss_->num_labels;
  for (int s = 0; s <= cap_; ++s) {
    int* first = table.data() + static_cast<size_t>(s) * (num_labels + 1) * num_labels;
    for (int y = 0; y < num_labels; ++y) {
      first[y] = static_cast<int>(std::min<int64_t>(s + units[y], cap_));
    }
    for (int prev = 0; prev < num_labels; ++prev) {
      std::copy(first, first + num_labels, first + static_cast<size_t>(prev + 1) * num_labels);
    }
  }
}

void TokenErrorStatistic::StateLosses(std::vector<double>* out) const {
  out->resize(cap_ + 1);
  const int m = static_cast<int>(gold_.size());
  for (int s = 0; s <= cap_; ++s) (*out)[s] = loss_->from_errors(s, m);
}

void TokenConfusionStatistic::Reset(const LossView& loss, absl::Span<const int> gold) {
  loss_ = &loss;
  gold_.assign(gold.begin(), gold.end());
  const absl::Span<const char> positive = loss.counted_labels;
  const int num_positive = static_cast<int>(std::count(positive.begin(), positive.end(), 1));
  num_gold_ = 0;
  int fp_possible = 0;
  for (int g : gold_) {
    num_gold_ += positive[g];
    // An FP needs a positive label other than the gold one.
    fp_possible += num_positive - (positive[g] ? 1 : 0) > 0;
  }
  space_.Reset(loss.count_mode, num_gold_, fp_possible, static_cast<int>(gold_.size()));
}

int TokenConfusionStatistic::Next(int state, int position, int, int label) const {
  if (!loss_->counted_labels[label]) return state;
  return label == gold_[position] ? space_.AfterTp(state) : space_.AfterFp(state);
}

absl::Status TokenConfusionStatistic::Validate(const Lattice& lattice) const {
  return CheckGold(gold_, loss_->num_labels, lattice, "TokenConfusionStatistic");
}

void TokenConfusionStatistic::FillSuccessors(int position, int num_labels,
                                             absl::Span<int> table) const {
  const int g = gold_[position];
  const absl::Span<const char> positive = loss_->counted_labels;
  const int r = space_.size();
  for (int s = 0; s < r; ++s) {
    int* first = table.data() + static_cast<size_t>(s) * (num_labels + 1) * num_labels;
    for (int y = 0; y < num_labels; ++y) {
      first[y] = !positive[y] ? s : (y == g ? space_.AfterTp(s) : space_.AfterFp(s));
    }
    for (int prev = 0; prev < num_labels; ++prev) {
      std::copy(first, first + num_labels, first + static_cast<size_t>(prev + 1) * num_labels);
    }
  }
}

void TokenConfusionStatistic::StateLosses(std::vector<double>* out) const {
  const int r = space_.size();
  out->resize(r);
  for (int s = 0; s < r; ++s) {
    (*out)[s] = loss_->from_counts(space_.tp(s), space_.fp(s), num_gold_);
  }
}

void ChunkConfusionStatistic::Bind(const ChunkTable& table, const std::vector<char>& counted_labels,
                                   CountSpace::Mode mode, const LossView* loss) {
  table_ = &table;
  loss_ = loss;
  mode_ = mode;
  n_ = table.num_labels();
  flag_states_ = mode == CountSpace::Mode::kSum ? 1 : 3;
  counted_.assign(counted_labels.begin(), counted_labels.end());
  type_.assign(n_, -1);
  for (int y = 0; y < n_; ++y) {
    if (counted_[y]) type_[y] = table.TypeOf(y);
  }
  starts_.assign(static_cast<size_t>(n_ + 1) * n_, 0);
  ends_.assign(static_cast<size_t>(n_ + 1) * n_, 0);
  for (int prev = -1; prev < n_; ++prev) {
    for (int y = 0; y < n_; ++y) {
      starts_[static_cast<size_t>(prev + 1) * n_ + y] = table.Starts(prev, y);
      ends_[static_cast<size_t>(prev + 1) * n_ + y] = table.Ends(prev, y);
    }
  }
}

void ChunkConfusionStatistic::Reset(absl::Span<const int> gold) {
  gold_.assign(gold.begin(), gold.end());
  const int m = static_cast<int>(gold_.size());
  gold_start_type_.assign(m, -2);
  gold_ends_.assign(m + 1, 0);
  num_gold_ = 0;
  for (int t = 0; t < m; ++t) {
    const int prev = t == 0 ? -1 : gold_[t - 1];
    if (starts_[static_cast<size_t>(prev + 1) * n_ + gold_[t]] && counted_[gold_[t]]) {
      gold_start_type_[t] = type_[gold_[t]];
      ++num_gold_;
    }
    if (t > 0) gold_ends_[t] = ends_[static_cast<size_t>(prev + 1) * n_ + gold_[t]];
  }
  if (m > 0) gold_ends_[m] = table_->Ends(gold_[m - 1], -1);
  bool any_counted = false;
  for (char c : counted_) any_counted = any_counted || c;
  // Every predicted chunk holds at least one token: at most M of them.
  space_.Reset(mode_, num_gold_, any_counted ? m : 0, m);
}

int ChunkConfusionStatistic::Next(int state, int position, int prev_label, int label) const {
  const size_t cell = static_cast<size_t>(prev_label + 1) * n_ + label;
  const bool starts = starts_[cell];
  const int m = static_cast<int>(gold_.size());
  if (flag_states_ == 1) {  // kSum: count predicted counted chunks as they start
    return starts && counted_[label] ? space_.AfterTp(state) : state;
  }
  int index = state / 3;
  int open = state % 3;
  if (open != 0 && (starts || ends_[cell])) {
    index = open == 1 && gold_ends_[position] ? space_.AfterTp(index) : space_.AfterFp(index);
    open = 0;
  } else if (open == 1 && gold_ends_[position]) {
    open = 2;  // the gold chunk closed inside the predicted one
  }
  if (starts) {
    open = !counted_[label] ? 0 : (gold_start_type_[position] == type_[label] ? 1 : 2);
  }
  if (position == m - 1 && open != 0) {  // the sentence end closes the last chunk
    index = open == 1 && gold_ends_[m] ? space_.AfterTp(index) : space_.AfterFp(index);
    open = 0;
  }
  return 3 * index + open;
}

absl::Status ChunkConfusionStatistic::Validate(const Lattice& lattice) const {
  return CheckGold(gold_, n_, lattice, "ChunkConfusionStatistic");
}

void ChunkConfusionStatistic::FillSuccessors(int position, int num_labels,
                                             absl::Span<int> table) const {
  const int r = NumStates();
  for (int s = 0; s < r; ++s) {
    for (int prev = -1; prev < num_labels; ++prev) {
      int* row = table.data() + (static_cast<size_t>(s) * (num_labels + 1) + prev + 1) * num_labels;
      for (int y = 0; y < num_labels; ++y) row[y] = Next(s, position, prev, y);
    }
  }
}

void ChunkConfusionStatistic::StateLosses(std::vector<double>* out) const {
  const int r = NumStates();
  out->resize(r);
  for (int s = 0; s < r; ++s) {
    const int tp_count = tp(s), fp_count = fp(s);
    if (loss_ != nullptr) {
      (*out)[s] = loss_->from_counts(tp_count, fp_count, num_gold_);
    } else {
      const int predicted = tp_count + fp_count;
      (*out)[s] = num_gold_ == 0 && predicted == 0
                      ? 0.0
                      : 1.0 - 2.0 * tp_count / static_cast<double>(num_gold_ + predicted);
    }
  }
}

void LossStatistic::ReachableLossBounds(const std::vector<double>& state_losses,
                                        std::vector<double>* out) const {
  double top = 0;
  for (double x : state_losses) top = std::max(top, x);
  out->assign(state_losses.size(), top);
}

namespace {

// out[s] = the largest state_losses[s'] over the states s' with tp(s') >= tp(s) and fp(s') >=
// fp(s) (counts never decrease along a path): a suffix maximum over the (TP, FP) grid.
template <typename TpOf, typename FpOf>
void CountLossBounds(const std::vector<double>& state_losses, TpOf tp_of, FpOf fp_of,
                     std::vector<double>* out) {
  const int r = static_cast<int>(state_losses.size());
  int tp_max = 0, fp_max = 0;
  for (int s = 0; s < r; ++s) {
    tp_max = std::max(tp_max, tp_of(s));
    fp_max = std::max(fp_max, fp_of(s));
  }
  const size_t width = static_cast<size_t>(fp_max) + 2;
  std::vector<double> grid((static_cast<size_t>(tp_max) + 2) * width, kNegInf);
  auto at = [&](int a, int b) -> double& { return grid[static_cast<size_t>(a) * width + b]; };
  for (int s = 0; s < r; ++s)
    at(tp_of(s), fp_of(s)) = std::max(at(tp_of(s), fp_of(s)), state_losses[s]);
  for (int a = tp_max; a >= 0; --a) {
    for (int b = fp_max; b >= 0; --b) at(a, b) = std::max({at(a, b), at(a + 1, b), at(a, b + 1)});
  }
  out->resize(r);
  for (int s = 0; s < r; ++s) (*out)[s] = at(tp_of(s), fp_of(s));
}

}  // namespace

void TokenErrorStatistic::ReachableLossBounds(const std::vector<double>& state_losses,
                                              std::vector<double>* out) const {
  // The state is the (capped) error count, which only grows.
  const int r = static_cast<int>(state_losses.size());
  out->resize(r);
  double top = kNegInf;
  for (int s = r - 1; s >= 0; --s) (*out)[s] = top = std::max(top, state_losses[s]);
}

void TokenConfusionStatistic::ReachableLossBounds(const std::vector<double>& state_losses,
                                                  std::vector<double>* out) const {
  CountLossBounds(
      state_losses, [&](int s) { return space_.tp(s); }, [&](int s) { return space_.fp(s); }, out);
}

void ChunkConfusionStatistic::ReachableLossBounds(const std::vector<double>& state_losses,
                                                  std::vector<double>* out) const {
  CountLossBounds(
      state_losses, [&](int s) { return tp(s); }, [&](int s) { return fp(s); }, out);
}

}  // namespace chaintag
