// Exact loss-augmented inference (margin and slack scaling) and the PAC-Bayes bound term, on the
// auxiliary-variable engine: the loss's statistic is tracked per cell and H(F, state) picks the
// final state (Bauer, Nakajima, Mueller, Mathematics 11(12):2628, 2023, Section 4.3).
#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "chaintag/decode.h"
#include "chaintag/train.h"
#include "decode/aux_dp.h"
#include "decode/completion.h"
#include "train/losses.h"

namespace chaintag {
namespace {

absl::Status CheckLabels(const char* what, absl::Span<const int> labels, int size, int num_labels) {
  if (static_cast<int>(labels.size()) != size) {
    return absl::InvalidArgumentError(absl::StrCat("loss-augmented decoding: ", what, " has ",
                                                   labels.size(), " labels; expected ", size));
  }
  for (size_t t = 0; t < labels.size(); ++t) {
    if (labels[t] < 0 || labels[t] >= num_labels) {
      return absl::InvalidArgumentError(absl::StrCat("loss-augmented decoding: ", what, " label ",
                                                     labels[t], " at position ", t,
                                                     "; expected 0..", num_labels - 1));
    }
  }
  return absl::OkStatus();
}

absl::Status CheckInputs(const Lattice& lattice, absl::Span<const int> gold, int num_labels) {
  if (lattice.num_labels() != num_labels) {
    return absl::InvalidArgumentError(absl::StrCat("loss-augmented decoding: the loss has ",
                                                   num_labels, " labels; the lattice has ",
                                                   lattice.num_labels()));
  }
  return CheckLabels("gold", gold, lattice.size(), num_labels);
}

}  // namespace

void LossAugmentedScratchDeleter::operator()(LossAugmentedScratch* scratch) const {
  delete scratch;
}

LossAugmentedScratchPtr MakeLossAugmentedScratch() {
  return LossAugmentedScratchPtr(new LossAugmentedScratch());
}

LossAugmentedScratchPtr MakeLossAugmentedScratch(int64_t max_bytes) {
  LossAugmentedScratchPtr scratch = MakeLossAugmentedScratch();
  scratch->decoder.set_max_bytes(max_bytes);
  scratch->decoder.set_max_cells(std::max<int64_t>(1, max_bytes / 8));
  return scratch;
}

absl::StatusOr<LossAugmentedResult> LossAugmentedDecode(const Lattice& lattice,
                                                        absl::Span<const int> gold,
                                                        const BoundLoss& loss, LossScaling scaling,
                                                        LossAugmentedScratch* scratch,
                                                        absl::Span<const int> hint) {
  if (absl::Status st = CheckInputs(lattice, gold, loss.num_labels()); !st.ok()) return st;
  if (!hint.empty()) {
    if (absl::Status st = CheckLabels("hint", hint, lattice.size(), loss.num_labels()); !st.ok())
      return st;
  }
  LossAugmentedScratchPtr local;
  if (scratch == nullptr) {
    local = MakeLossAugmentedScratch();
    scratch = local.get();
  }
  LossAugmentedResult result;
  const double gold_score = lattice.Score(gold);
  if (scaling == LossScaling::kSlack && gold_score == kNegInf) {
    return absl::InvalidArgumentError(
        "slack-scaled loss-augmented decoding: the gold labeling scores -inf on the lattice "
        "(a masked cell), so (1 + F - F(y*)) is undefined");
  }
  if (loss.kind() == LossKind::kNone) {
    if (scaling == LossScaling::kSlack) {
      // Every labeling has value 0; y* itself is the canonical maximiser.
      result.labeling.labels.assign(gold.begin(), gold.end());
      result.labeling.score = gold_score;
      return result;
    }
    absl::StatusOr<Labeling> best = ViterbiDecode(lattice, &scratch->viterbi);
    if (!best.ok()) return best.status();
    result.labeling = *std::move(best);
    result.labeling.score = lattice.Score(result.labeling.labels);
    result.value = result.labeling.score;
    return result;
  }

  if (scaling == LossScaling::kMargin && IsDecomposable(loss.spec())) {
    // Delta folds into the unary scores: one Viterbi on lattice + cost.
    if (absl::Status st = DecomposedLossCosts(loss, gold, &scratch->costs); !st.ok()) return st;
    scratch->augmented = lattice;
    const int m = lattice.size(), n = lattice.num_labels();
    for (int t = 0; t < m; ++t) {
      absl::Span<double> row = scratch->augmented.unary_row(t);
      const double* cost = scratch->costs.data() + static_cast<size_t>(t) * n;
      for (int y = 0; y < n; ++y) row[y] += cost[y];
    }
    absl::StatusOr<Labeling> best = ViterbiDecode(scratch->augmented, &scratch->viterbi);
    if (!best.ok()) return best.status();
    result.labeling = *std::move(best);
    result.labeling.score = lattice.Score(result.labeling.labels);
    result.loss = EvaluateLoss(loss, gold, result.labeling.labels);
    result.value = result.labeling.score + result.loss;
    return result;
  }

  LossStatistic* statistic;
  if (loss.IsErrorLoss()) {
    scratch->errors.Reset(loss.view(), gold);
    statistic = &scratch->errors;
  } else if (loss.level() == LossLevel::kToken) {
    scratch->token.Reset(loss.view(), gold);
    statistic = &scratch->token;
  } else {
    scratch->chunk.Bind(loss.chunks(), loss.counted_labels(), loss.view().count_mode, &loss.view());
    scratch->chunk.Reset(gold);
    statistic = &scratch->chunk;
  }
  const Statistic* statistics[] = {statistic};
  statistic->StateLosses(&scratch->state_loss);
  const double* state_loss = scratch->state_loss.data();
  // Pruning (first-order lattices): H through a cell (t, y, state) with forward score F is at most
  // H(F + suffix(t, y), B(state)), non-decreasing in F, with B(state) the largest loss of a final
  // state reachable from it (ReachableLossBounds); a cell whose bound falls below H of a labeling
  // at hand (the Viterbi labeling, or gold) cannot hold a maximiser, nor can any cell a kept cell
  // takes its score from (see AuxDpDecoder::set_pruning), so the answer is unchanged. The
  // thresholds keep a relative margin of 1e-9 for the rounding of the two sums.
  if (scratch->prune && lattice.order() == 1 && lattice.size() > 0 &&
      !scratch->state_loss.empty()) {
    absl::StatusOr<Labeling> top = ViterbiDecode(lattice, &scratch->viterbi);
    if (top.ok()) {
      // The best objective among labelings at hand: Viterbi, (margin) gold and the hint.
      auto objective = [&](absl::Span<const int> y) {
        const double f = lattice.Score(y);
        if (f == kNegInf) return kNegInf;
        const double delta = EvaluateLoss(loss, gold, y);
        return scaling == LossScaling::kMargin ? f + delta : (1.0 + f - gold_score) * delta;
      };
      const double top_score = lattice.Score(top->labels);
      double reached = objective(top->labels);
      if (scaling == LossScaling::kMargin && gold_score != kNegInf) {
        reached = std::max(reached, objective(gold));
      }
      if (!hint.empty()) reached = std::max(reached, objective(hint));
      const bool usable =
          std::isfinite(reached) && (scaling == LossScaling::kMargin || reached > 0);
      if (usable) {
        statistic->ReachableLossBounds(scratch->state_loss, &scratch->reachable_loss);
        const std::vector<double>& bound = scratch->reachable_loss;
        double largest = 0;
        for (double b : bound) largest = std::max(largest, std::abs(b));
        const double margin = 1e-9 * std::max({1.0, std::abs(top_score), std::abs(gold_score),
                                               largest, std::abs(reached)});
        std::vector<double>& threshold = scratch->state_threshold;  // in terms of F + suffix
        threshold.resize(bound.size());
        for (size_t s = 0; s < bound.size(); ++s) {
          if (scaling == LossScaling::kMargin) {
            threshold[s] = reached - bound[s] - margin;
          } else if (bound[s] > 0) {
            // H = (1 + F - F*) loss <= max(0, 1 + F - F*) B(state), and the H at hand is > 0.
            const double v = reached / bound[s] - 1.0 + gold_score;
            threshold[s] = v - std::max(margin, 1e-9 * std::abs(v));
          } else {
            threshold[s] = std::numeric_limits<double>::infinity();  // H <= 0 < the H at hand
          }
        }
        CompletionScores(lattice, &scratch->suffix);
        scratch->decoder.set_pruning(scratch->suffix.data(), threshold.data());
      }
    }
  }
  absl::Status run = scratch->decoder.Run(lattice, statistics);
  scratch->decoder.clear_pruning();
  if (run.code() == absl::StatusCode::kResourceExhausted) {
    // Over the memory limit (a long sentence, a chunk-level loss): a bounded fallback instead of
    // stopping training, the maximiser under the Hamming loss (one Viterbi on lattice + 1 per
    // token off gold), with the real loss of the labeling it gives. The caller warns.
    scratch->augmented = lattice;
    for (int t = 0; t < lattice.size(); ++t) {
      absl::Span<double> row = scratch->augmented.unary_row(t);
      for (int y = 0; y < lattice.num_labels(); ++y) row[y] += y == gold[t] ? 0.0 : 1.0;
    }
    absl::StatusOr<Labeling> approx = ViterbiDecode(scratch->augmented, &scratch->viterbi);
    if (!approx.ok()) return approx.status();
    result.fallback = true;
    result.labeling = *std::move(approx);
    result.labeling.score = lattice.Score(result.labeling.labels);
    result.loss = EvaluateLoss(loss, gold, result.labeling.labels);
    result.value = scaling == LossScaling::kMargin
                       ? result.labeling.score + result.loss
                       : (1.0 + result.labeling.score - gold_score) * result.loss;
    return result;
  }
  if (!run.ok()) return run;
  FinalObjective h;
  if (scaling == LossScaling::kMargin) {
    h = [state_loss](double f, int s) { return f + state_loss[s]; };
  } else {
    // Non-decreasing in F because every loss is >= 0.
    h = [state_loss, gold_score](double f, int s) {
      return (1.0 + f - gold_score) * state_loss[s];
    };
  }
  int final_state = 0;
  absl::StatusOr<Labeling> best = scratch->decoder.Best(h, &final_state);
  if (!best.ok()) return best.status();
  result.labeling = *std::move(best);
  result.labeling.score = lattice.Score(result.labeling.labels);
  result.loss = state_loss[final_state];
  result.value = scaling == LossScaling::kMargin
                     ? result.labeling.score + result.loss
                     : (1.0 + result.labeling.score - gold_score) * result.loss;
  return result;
}

namespace {

// max_y 1[F(y*) - F(y) <= D] (1 - F1), D = chunk FP + FN (`chunk_errors`) or 0.
absl::StatusOr<double> MarginBoundTerm(const Lattice& lattice, absl::Span<const int> gold,
                                       const ChunkTable& chunks, bool chunk_errors) {
  const int n = chunks.num_labels();
  std::vector<char> counted(n, 0);
  for (int y = 0; y < n; ++y) counted[y] = chunks.TypeOf(y) >= 0;
  ChunkConfusionStatistic statistic;
  statistic.Bind(chunks, counted, CountSpace::Mode::kTpFp, nullptr);
  statistic.Reset(gold);
  const Statistic* statistics[] = {&statistic};
  AuxDpDecoder decoder;
  if (absl::Status st = decoder.Run(lattice, statistics); !st.ok()) return st;
  std::vector<double> one_minus_f1;
  statistic.StateLosses(&one_minus_f1);
  const double gold_score = lattice.Score(gold);
  const int num_gold = statistic.num_gold();
  // F >= F(y*) - D, with a 1e-9 relative tolerance so rounding in the DP's sums cannot flip a
  // boundary case; D depends on the state only, so H is non-decreasing in F.
  const double tolerance = 1e-9 * std::max(1.0, std::abs(gold_score));
  auto h = [&](double f, int s) {
    const int errors = chunk_errors ? statistic.fp(s) + (num_gold - statistic.tp(s)) : 0;
    return f + tolerance >= gold_score - errors ? one_minus_f1[s] : 0.0;
  };
  int final_state = 0;
  absl::StatusOr<Labeling> best = decoder.Best(h, &final_state);
  if (!best.ok()) return best.status();
  return h(best->score, final_state);
}

}  // namespace

absl::StatusOr<double> BoundTerm(const Lattice& lattice, absl::Span<const int> gold,
                                 const ChunkTable& chunks, BoundDistance distance) {
  if (absl::Status st = CheckInputs(lattice, gold, chunks.num_labels()); !st.ok()) return st;
  if (distance == BoundDistance::kChunks) {
    return MarginBoundTerm(lattice, gold, chunks, /*chunk_errors=*/true);
  }
  // F(y) + Hamming(y*, y) >= F(y*), with the distance folded into the unary scores.
  Lattice shifted = lattice;
  for (int t = 0; t < shifted.size(); ++t) {
    absl::Span<double> row = shifted.unary_row(t);
    for (int y = 0; y < static_cast<int>(row.size()); ++y) row[y] += y != gold[t] ? 1.0 : 0.0;
  }
  return MarginBoundTerm(shifted, gold, chunks, /*chunk_errors=*/false);
}

}  // namespace chaintag
