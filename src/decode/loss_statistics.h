// The loss statistics for the AuxDp engine (aux_dp.h), beside its other statistics: each tracks a
// small integer state over the label sequence from which a loss computes Delta exactly. They read
// the loss through a LossView (plain tables for the per-cell work, and the loss of a final state);
// the training library's BoundLoss (src/train/losses.h) provides one and documents the losses.
#ifndef CHAINTAG_SRC_DECODE_LOSS_STATISTICS_H_
#define CHAINTAG_SRC_DECODE_LOSS_STATISTICS_H_

#include <cstdint>
#include <functional>
#include <vector>

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "chaintag/chunks.h"
#include "chaintag/lattice.h"
#include "decode/aux_dp.h"

namespace chaintag {

// Dense numbering of count pairs (a, b) with a <= a_max, b <= b_max, a + b <= total_max, plus the
// successor index after one TP or one FP. Modes keep R minimal for losses needing less than (TP,
// FP).
class CountSpace {
 public:
  enum class Mode {
    kTpFp,  // (TP, FP): precision, F_beta, IoU
    kTp,    // (TP, 0): recall
    kFp,    // (0, FP): false positives
    kSum,   // (TP + FP, 0): label count
  };
  void Reset(Mode mode, int tp_max, int fp_max, int total_max);
  int size() const { return static_cast<int>(tp_of_.size()); }
  int AfterTp(int index) const { return after_tp_[index]; }
  int AfterFp(int index) const { return after_fp_[index]; }
  // The (TP, FP) a loss should see: exact for the components the mode tracks, 0 otherwise
  // (kSum reports the sum as TP).
  int tp(int index) const { return tp_of_[index]; }
  int fp(int index) const { return fp_of_[index]; }

 private:
  std::vector<int> tp_of_, fp_of_, after_tp_, after_fp_, index_;
};

// What the loss statistics read of a loss. The spans must outlive the statistics bound to it.
struct LossView {
  int num_labels = 0;
  // Per label: 1 if it is positive (token level) or its chunk type is counted (chunk level).
  absl::Span<const char> counted_labels;
  // Error losses: integer error units per (gold, predicted), N x N, gold-major.
  absl::Span<const int64_t> weight_units;
  // Error losses: the count past which the loss cannot change (zero-one: 1); -1 for none.
  int64_t max_errors = -1;
  // Which confusion counts the loss needs.
  CountSpace::Mode count_mode = CountSpace::Mode::kTpFp;
  // The loss of a final state, called once per state after decoding (never per cell).
  std::function<double(int64_t errors, int m)> from_errors;
  std::function<double(int tp, int fp, int gold)> from_counts;
};

// A statistic whose final state determines the loss.
class LossStatistic : public Statistic {
 public:
  // out[s] = loss of final state s, for every state.
  virtual void StateLosses(std::vector<double>* out) const = 0;
  // out[s] >= the loss of every final state a path through state s can end in, given
  // `state_losses` (StateLosses' output). The counts a state holds only grow along a path, so the
  // statistics below take the largest loss over the states with at least its counts; this
  // default takes the largest loss of all.
  virtual void ReachableLossBounds(const std::vector<double>& state_losses,
                                   std::vector<double>* out) const;
};

// Loss statistics have many states of which few are reachable at any position, so the engine
// asks for the successor rows of live cells only, filled with the derived class's Next (called
// non-virtually).
template <typename Derived>
class RowLossStatistic : public LossStatistic {
 public:
  bool ComputesRows() const final { return true; }
  void FillRow(int position, int prev_label, int state, int num_labels, int* row) const final {
    const Derived& self = static_cast<const Derived&>(*this);
    for (int y = 0; y < num_labels; ++y)
      row[y] = self.Derived::Next(state, position, prev_label, y);
  }
};

// Number of wrong tokens (in weight units for weighted Hamming), capped at 1 for zero-one and at
// the largest reachable total otherwise, so the state is exact.
class TokenErrorStatistic final : public RowLossStatistic<TokenErrorStatistic> {
 public:
  void Reset(const LossView& loss, absl::Span<const int> gold);
  int NumStates() const override { return cap_ + 1; }
  int Initial() const override { return 0; }
  int Next(int state, int position, int prev_label, int label) const override;
  absl::Status Validate(const Lattice& lattice) const override;
  bool DependsOnPreviousLabel() const override { return false; }
  void FillSuccessors(int position, int num_labels, absl::Span<int> table) const override;
  void StateLosses(std::vector<double>* out) const override;
  void ReachableLossBounds(const std::vector<double>& state_losses,
                           std::vector<double>* out) const override;

 private:
  const LossView* loss_ = nullptr;
  std::vector<int> gold_;
  int cap_ = 0;
};

// Token-level confusion counts (TP, FP or what LossView::count_mode keeps).
class TokenConfusionStatistic final : public RowLossStatistic<TokenConfusionStatistic> {
 public:
  void Reset(const LossView& loss, absl::Span<const int> gold);
  int NumStates() const override { return space_.size(); }
  int Initial() const override { return 0; }
  int Next(int state, int position, int prev_label, int label) const override;
  absl::Status Validate(const Lattice& lattice) const override;
  bool DependsOnPreviousLabel() const override { return false; }
  void FillSuccessors(int position, int num_labels, absl::Span<int> table) const override;
  void StateLosses(std::vector<double>* out) const override;
  void ReachableLossBounds(const std::vector<double>& state_losses,
                           std::vector<double>* out) const override;

 private:
  const LossView* loss_ = nullptr;
  std::vector<int> gold_;
  int num_gold_ = 0;
  CountSpace space_;
};

// Chunk-level confusion counts. State = 3 * count index + open, open: 0 no counted chunk open,
// 1 the open predicted chunk matches a gold chunk so far (same start and type, gold still open),
// 2 it cannot match. A chunk is counted when it closes (or, in kSum mode, without the flag, when
// it starts). Used by chunk-level losses and by BoundTerm (all types, F1).
class ChunkConfusionStatistic final : public RowLossStatistic<ChunkConfusionStatistic> {
 public:
  // `counted_labels`: per label id, 1 if its chunk type is counted. `loss` may be null (then
  // StateLosses is 1 - F1). The table must outlive the statistic.
  void Bind(const ChunkTable& table, const std::vector<char>& counted_labels, CountSpace::Mode mode,
            const LossView* loss);
  void Reset(absl::Span<const int> gold);
  int NumStates() const override { return space_.size() * flag_states_; }
  int Initial() const override { return 0; }
  int Next(int state, int position, int prev_label, int label) const override;
  absl::Status Validate(const Lattice& lattice) const override;
  void FillSuccessors(int position, int num_labels, absl::Span<int> table) const override;
  void StateLosses(std::vector<double>* out) const override;
  void ReachableLossBounds(const std::vector<double>& state_losses,
                           std::vector<double>* out) const override;
  int num_gold() const { return num_gold_; }
  // Confusion counts of a final state (exact for the components the mode tracks).
  int tp(int state) const { return space_.tp(state / flag_states_); }
  int fp(int state) const { return space_.fp(state / flag_states_); }

 private:
  const ChunkTable* table_ = nullptr;
  const LossView* loss_ = nullptr;
  CountSpace::Mode mode_ = CountSpace::Mode::kTpFp;
  int n_ = 0;
  int flag_states_ = 3;
  std::vector<char> counted_;  // N
  std::vector<int> type_;      // N: chunk type if counted, else -1
  std::vector<char> starts_;   // (N+1) x N, row prev+1
  std::vector<char> ends_;     // (N+1) x N
  std::vector<int> gold_;
  std::vector<int> gold_start_type_;  // M: type of the gold chunk starting at t, else -2
  std::vector<char> gold_ends_;       // M + 1: the gold chunk holding t-1 ends before t
  int num_gold_ = 0;
  CountSpace space_;
};

}  // namespace chaintag

#endif  // CHAINTAG_SRC_DECODE_LOSS_STATISTICS_H_
