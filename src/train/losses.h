// Losses Delta(y*, y) bound to a label inventory, and the auxiliary-variable statistics that let
// the AuxDp engine (aux_dp.h) maximise any function of them exactly.
//
// Semantics (shared by EvaluateLoss, the statistics and LossAugmentedDecode):
// - Token level. Positives are the labels in spec.positives (default: every label except "O").
//   A token is a TP when the predicted label is positive and equals the gold label, an FP when it
//   is positive and differs from the gold label. G = number of gold tokens with a positive label,
//   FN = G - TP, P = TP + FP (number of positive predictions).
// - Chunk level. Chunks exactly as conlleval finds them (ChunkTable::Starts/Ends), only of the
//   types in spec.positives (default: every type). A predicted chunk is a TP when its span and
//   type equal a gold chunk, otherwise an FP. G = number of gold chunks, P = TP + FP.
// - fp = FP; precision = 1 - TP/P, and when P = 0: 0 if G = 0 else 1; recall = 1 - TP/G, 0 when
//   G = 0; fbeta = 1 - (1+b^2) TP / (b^2 G + P), 0 when G = P = 0; iou = 1 - TP / (G + FP), 0 when
//   G = P = 0; label-count = |P - G|.
// - hamming = number of tokens whose label differs from gold; normalized-hamming = hamming / M (0
//   for M = 0); zero-one = min(hamming, 1); weighted-hamming = sum_t weight(gold_t, y_t) with
//   unlisted pairs weighing 1 if the labels differ and 0 if equal (listed pairs, even equal labels,
//   weigh what is listed). Weights are held exactly as integer multiples of a unit (weights x 100
//   must be integers within 1e-9, divided by their gcd), so the slack-scaling state is exact.
// All losses are >= 0, which makes slack scaling (1 + F - F(y*)) * Delta non-decreasing in F.
#ifndef CHAINTAG_SRC_TRAIN_LOSSES_H_
#define CHAINTAG_SRC_TRAIN_LOSSES_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "chaintag/aux_dp.h"
#include "chaintag/chunks.h"
#include "chaintag/decode.h"
#include "chaintag/lattice.h"
#include "chaintag/train.h"

namespace chaintag {

class BoundLoss {
 public:
  const LossSpec& spec() const { return spec_; }
  LossKind kind() const { return spec_.kind; }
  LossLevel level() const { return spec_.level; }
  int num_labels() const { return static_cast<int>(labels_.size()); }
  const std::vector<std::string>& labels() const { return labels_; }
  const ChunkTable& chunks() const { return chunks_; }
  // Token level: 1 if the label is positive. Chunk level: 1 if the label's chunk type is counted.
  const std::vector<char>& counted_labels() const { return counted_; }
  // Weighted Hamming: integer units per (gold, predicted) pair, N x N; a unit weighs unit().
  int64_t weight_units(int gold, int predicted) const {
    return units_[static_cast<size_t>(gold) * labels_.size() + predicted];
  }
  double unit() const { return unit_; }
  // True for the losses that are a function of the (weighted) error count.
  bool IsErrorLoss() const;
  // The loss of an error count (in weight units for weighted Hamming) over `m` tokens.
  double FromErrors(int64_t errors, int m) const;
  // The loss of confusion counts (see the file comment); `gold` is G.
  double FromCounts(int tp, int fp, int gold) const;

 private:
  friend absl::StatusOr<std::shared_ptr<const BoundLoss>> BindLoss(
      const LossSpec& spec, const std::vector<std::string>& labels);
  explicit BoundLoss(const std::vector<std::string>& labels) : labels_(labels), chunks_(labels) {}

  LossSpec spec_;
  std::vector<std::string> labels_;
  ChunkTable chunks_;
  std::vector<char> counted_;
  std::vector<int64_t> units_;  // N x N (Hamming-type losses)
  double unit_ = 1.0;
};

namespace train_internal {

struct ConfusionCounts {
  int tp = 0;
  int fp = 0;
  int gold = 0;  // G
};
// TP, FP and G of `predicted` against `gold` at the loss's level, computed directly.
ConfusionCounts CountConfusion(const BoundLoss& loss, absl::Span<const int> gold,
                               absl::Span<const int> predicted);

// Dense numbering of count pairs (a, b) with a <= a_max, b <= b_max, a + b <= total_max, plus the
// successor index after one TP or one FP. Modes keep R minimal for losses needing less than (TP, FP).
class CountSpace {
 public:
  enum class Mode {
    kTpFp,  // (TP, FP): precision, F_beta, IoU
    kTp,    // (TP, 0): recall
    kFp,    // (0, FP): false positives
    kSum,   // (TP + FP, 0): label count
  };
  static Mode ModeFor(LossKind kind);
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

// A statistic whose final state determines the loss.
class LossStatistic : public Statistic {
 public:
  // out[s] = loss of final state s, for every state.
  virtual void StateLosses(std::vector<double>* out) const = 0;
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
    for (int y = 0; y < num_labels; ++y) row[y] = self.Derived::Next(state, position, prev_label, y);
  }
};

// Number of wrong tokens (in weight units for weighted Hamming), capped at 1 for zero-one and at
// the largest reachable total otherwise, so the state is exact.
class TokenErrorStatistic final : public RowLossStatistic<TokenErrorStatistic> {
 public:
  void Reset(const BoundLoss& loss, absl::Span<const int> gold);
  int NumStates() const override { return cap_ + 1; }
  int Initial() const override { return 0; }
  int Next(int state, int position, int prev_label, int label) const override;
  absl::Status Validate(const Lattice& lattice) const override;
  bool DependsOnPreviousLabel() const override { return false; }
  void FillSuccessors(int position, int num_labels, absl::Span<int> table) const override;
  void StateLosses(std::vector<double>* out) const override;

 private:
  const BoundLoss* loss_ = nullptr;
  std::vector<int> gold_;
  int cap_ = 0;
};

// Token-level confusion counts (TP, FP or what CountSpace::ModeFor(kind) keeps).
class TokenConfusionStatistic final : public RowLossStatistic<TokenConfusionStatistic> {
 public:
  void Reset(const BoundLoss& loss, absl::Span<const int> gold);
  int NumStates() const override { return space_.size(); }
  int Initial() const override { return 0; }
  int Next(int state, int position, int prev_label, int label) const override;
  absl::Status Validate(const Lattice& lattice) const override;
  bool DependsOnPreviousLabel() const override { return false; }
  void FillSuccessors(int position, int num_labels, absl::Span<int> table) const override;
  void StateLosses(std::vector<double>* out) const override;

 private:
  const BoundLoss* loss_ = nullptr;
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
            const BoundLoss* loss);
  void Reset(absl::Span<const int> gold);
  int NumStates() const override { return space_.size() * flag_states_; }
  int Initial() const override { return 0; }
  int Next(int state, int position, int prev_label, int label) const override;
  absl::Status Validate(const Lattice& lattice) const override;
  void FillSuccessors(int position, int num_labels, absl::Span<int> table) const override;
  void StateLosses(std::vector<double>* out) const override;
  int num_gold() const { return num_gold_; }
  // Confusion counts of a final state (exact for the components the mode tracks).
  int tp(int state) const { return space_.tp(state / flag_states_); }
  int fp(int state) const { return space_.fp(state / flag_states_); }

 private:
  const ChunkTable* table_ = nullptr;
  const BoundLoss* loss_ = nullptr;
  CountSpace::Mode mode_ = CountSpace::Mode::kTpFp;
  int n_ = 0;
  int flag_states_ = 3;
  std::vector<char> counted_;     // N
  std::vector<int> type_;         // N: chunk type if counted, else -1
  std::vector<char> starts_;      // (N+1) x N, row prev+1
  std::vector<char> ends_;        // (N+1) x N
  std::vector<int> gold_;
  std::vector<int> gold_start_type_;  // M: type of the gold chunk starting at t, else -2
  std::vector<char> gold_ends_;       // M + 1: the gold chunk holding t-1 ends before t
  int num_gold_ = 0;
  CountSpace space_;
};

}  // namespace train_internal

// Per-thread scratch for LossAugmentedDecode: nothing is allocated once it has seen the longest
// sentence.
struct LossAugmentedScratch {
  Lattice augmented;  // margin scaling with a decomposable loss: lattice + per-token costs
  ViterbiScratch viterbi;
  std::vector<double> costs;
  AuxDpDecoder decoder;
  train_internal::TokenErrorStatistic errors;
  train_internal::TokenConfusionStatistic token;
  train_internal::ChunkConfusionStatistic chunk;
  std::vector<double> state_loss;
};

}  // namespace chaintag

#endif  // CHAINTAG_SRC_TRAIN_LOSSES_H_
