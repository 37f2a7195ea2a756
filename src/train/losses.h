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
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "chaintag/chunks.h"
#include "chaintag/decode.h"
#include "chaintag/lattice.h"
#include "chaintag/train.h"
#include "decode/aux_dp.h"
#include "decode/loss_statistics.h"

namespace chaintag {

// A loss bound to a label inventory (label ids as in a Model / Lattice).
class BoundLoss;
absl::StatusOr<std::shared_ptr<const BoundLoss>> BindLoss(const LossSpec& spec,
                                                          const std::vector<std::string>& labels);

enum class LossScaling { kMargin, kSlack };

struct LossAugmentedResult {
  // The exact engine was over its memory or cell limit: labeling is the maximiser under the
  // Hamming loss instead (one Viterbi), with `loss` and `value` of the real loss.
  bool fallback = false;
  Labeling labeling;  // the maximiser y-hat; labeling.score = F(y-hat)
  double loss = 0.0;  // Delta(y*, y-hat)
  double value =
      0.0;  // the maximised objective: F + Delta (margin) or (1 + F - F(y*)) Delta (slack)
};

// Exact loss-augmented inference on `lattice` for gold labels `gold` (label ids):
//   margin scaling: argmax_y F(y) + Delta(y*, y)
//   slack scaling:  argmax_y (1 + F(y) - F(y*)) * Delta(y*, y)
// Decomposable losses under margin scaling fold into the unary scores and cost one Viterbi; every
// other combination runs the auxiliary-variable engine on the loss's statistic. `scratch` may be
// null; reusing one per thread avoids allocation. `hint`, when not empty, is a labeling (e.g. the
// maximiser of the previous training pass) whose objective tightens the engine's pruning; it
// never changes the answer, only the time to find it.
struct LossAugmentedScratch;
absl::StatusOr<LossAugmentedResult> LossAugmentedDecode(const Lattice& lattice,
                                                        absl::Span<const int> gold,
                                                        const BoundLoss& loss, LossScaling scaling,
                                                        LossAugmentedScratch* scratch = nullptr,
                                                        absl::Span<const int> hint = {});
struct LossAugmentedScratchDeleter {
  void operator()(LossAugmentedScratch* scratch) const;
};
using LossAugmentedScratchPtr = std::unique_ptr<LossAugmentedScratch, LossAugmentedScratchDeleter>;
LossAugmentedScratchPtr MakeLossAugmentedScratch();
// A scratch whose exact engine may use `max_bytes` for its tables (8 bytes a cell); a sentence
// needing more gets the Hamming-loss maximiser (LossAugmentedResult::fallback).
LossAugmentedScratchPtr MakeLossAugmentedScratch(int64_t max_bytes);
// Delta(gold, predicted) computed directly from the two labelings (for checks and reports).
double EvaluateLoss(const BoundLoss& loss, absl::Span<const int> gold,
                    absl::Span<const int> predicted);
// Per-token costs of a decomposable loss: cost(t, y) for gold `gold`, so that
// Delta(gold, y) = sum_t cost(t, y_t). `costs` receives M x N values. Fails for other losses.
absl::Status DecomposedLossCosts(const BoundLoss& loss, absl::Span<const int> gold,
                                 std::vector<double>* costs);

// The distance D in the bound term's margin test.
enum class BoundDistance {
  kHamming,  // wrongly labelled tokens, as in McAllester's theorem (Bauer et al. 2023, sec. 4.2)
  kChunks,   // chunk errors FP + FN against y*
};
// The PAC-Bayes bound term of Bauer, Nakajima and Mueller (Mathematics 11(12):2628, 2023,
// sec. 4.2, after McAllester's theorem) for one sentence: max_y 1[F(y*) - F(y) <= D(y*, y)] *
// (1 - F1), F1 over chunks against y*, exact on the engine with the statistic (TP, FP); the
// Hamming distance is folded into the scores (+1 on every token label other than y*'s), so it
// needs no state. `chunks` describes the lattice's labels. A gold labeling the lattice forbids
// (F(y*) = -inf) passes the margin test for every y; callers warn about it.
absl::StatusOr<double> BoundTerm(const Lattice& lattice, absl::Span<const int> gold,
                                 const ChunkTable& chunks,
                                 BoundDistance distance = BoundDistance::kHamming);

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
