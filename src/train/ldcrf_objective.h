// The latent-dynamic CRF objective (Morency et al., CVPR 2007; Sun et al., COLING 2008): the
// regularised negative marginal log-likelihood sum_i -log P(y_i|x_i) + c2 |w|^2 with
// P(y|x) = sum over the hidden paths h that project to y of P(h|x). Its gradient is
// E[f | x_i] - E[f | y_i, x_i] + 2 c2 w: forward-backward on the hidden lattice, free and masked
// to the gold labels' hidden states. Non-convex: training starts from seeded random weights.
#ifndef CHAINTAG_TRAIN_LDCRF_OBJECTIVE_H_
#define CHAINTAG_TRAIN_LDCRF_OBJECTIVE_H_

#include <cstdint>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "decode/latent.h"
#include "train/crf_objective.h"
#include "train/training_data.h"

namespace chaintag {
namespace train_internal {

// Parses --latent: "K" (every label K hidden states) or "B-NP=4,I-NP=4,O=2" (labels not named get
// one state; a bare number in the list sets that default: "B-NP=4,2"), against `labels`. Errors
// name the option and the offending entry.
absl::StatusOr<LatentLayout> ParseLatentSpec(std::string_view text,
                                             const std::vector<std::string>& labels);
// The same checks without the labels (which need the data): form and counts only.
absl::Status CheckLatentSpec(std::string_view text);

// Turns label-level training data into hidden-state data: every (attribute, label) feature
// becomes one feature per hidden state of the label, and the transition, start and end weights
// are over hidden states. `empirical` is cleared (the objective does not use it).
void ExpandToHiddenStates(const LatentLayout& layout, TrainingData* data);

// Seeded initial weights, uniform in [-scale, scale], the same for every platform and thread
// count (SplitMix64 per weight index).
void RandomInitialWeights(uint64_t seed, double scale, std::vector<double>* w);

class LdcrfObjective : public Objective {
 public:
  // `data` is over hidden states (ExpandToHiddenStates); gold stays label ids. `threads` >= 1.
  LdcrfObjective(const TrainingData& data, const LatentLayout& layout, double c2, int threads);
  int64_t size() const override { return data_.parameters.size(); }
  double Evaluate(absl::Span<const double> w, absl::Span<double> gradient) override;

 private:
  struct Worker {
    std::vector<int64_t> gradient;  // fixed point, as CrfObjective
    std::vector<double> unary, gold_unary;
    std::vector<int64_t> fixed;
    ScaledForwardBackward kernel;
  };
  void ProcessSentence(int s, const double* w, const ExpTables& tables, Worker* worker);
  void Accumulate(int s, int sign, const ScaledForwardBackward& kernel, Worker* worker);

  const TrainingData& data_;
  const LatentLayout& layout_;
  double c2_;
  std::vector<Worker> workers_;
  std::vector<double> loss_;  // per sentence: log Z - log Z(y_i), summed exactly (ExactTotal)
  std::vector<int64_t> over_ranks_;  // over MPI ranks: all ranks' workers' gradient sums
};

}  // namespace train_internal
}  // namespace chaintag

#endif  // CHAINTAG_TRAIN_LDCRF_OBJECTIVE_H_
