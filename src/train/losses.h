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
#include "chaintag/chunks.h"
#include "chaintag/decode.h"
#include "chaintag/lattice.h"
#include "chaintag/train.h"
#include "decode/aux_dp.h"
#include "decode/loss_statistics.h"

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
  // The loss as the AuxDp loss statistics read it (decode/loss_statistics.h).
  const LossView& view() const { return view_; }

  BoundLoss(const BoundLoss&) = delete;  // view_ points into the object itself
  BoundLoss& operator=(const BoundLoss&) = delete;

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
  LossView view_;
};

namespace train_internal {

struct ConfusionCounts {
  int tp = 0;
  int fp = 0;
  int gold = 0;  // G
};
// True for the losses that count positives at a level (fp, precision, recall, fbeta, iou,
// label-count); the others are defined on tokens only.
bool IsLevelledLoss(LossKind kind);

// TP, FP and G of `predicted` against `gold` at the loss's level, computed directly.
ConfusionCounts CountConfusion(const BoundLoss& loss, absl::Span<const int> gold,
                               absl::Span<const int> predicted);

}  // namespace train_internal

// Per-thread scratch for LossAugmentedDecode: nothing is allocated once it has seen the longest
// sentence.
struct LossAugmentedScratch {
  Lattice augmented;  // margin scaling with a decomposable loss: lattice + per-token costs
  ViterbiScratch viterbi;
  std::vector<double> costs;
  AuxDpDecoder decoder;
  TokenErrorStatistic errors;
  TokenConfusionStatistic token;
  ChunkConfusionStatistic chunk;
  std::vector<double> state_loss;
  // Pruning of the engine's cells (on unless a test compares against the unpruned engine).
  bool prune = true;
  std::vector<double> suffix;  // M x N best score the rest of a labeling can add
  std::vector<double> reachable_loss, state_threshold;  // per state, for pruning
};

}  // namespace chaintag

#endif  // CHAINTAG_SRC_TRAIN_LOSSES_H_
