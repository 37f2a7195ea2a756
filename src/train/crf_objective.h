// The CRF objective (regularised negative log-likelihood) and its gradient, computed with a
// scaled forward-backward in probability space (Rabiner 1989, sec. V.A) so the inner loops need
// no logsumexp, on a fixed-point gradient so every thread count gives bit-identical results.
#ifndef CHAINTAG_TRAIN_CRF_OBJECTIVE_H_
#define CHAINTAG_TRAIN_CRF_OBJECTIVE_H_

#include <cstdint>
#include <vector>

#include "absl/types/span.h"
#include "model/parameters.h"
#include "train/training_data.h"

namespace chaintag {
namespace train_internal {

// A differentiable function of the ModelParameters weight vector (the seam the optimisers use).
class Objective {
 public:
  virtual ~Objective() = default;
  virtual int64_t size() const = 0;
  // Returns the value at `w` and writes the gradient (both have size() entries).
  virtual double Evaluate(absl::Span<const double> w, absl::Span<double> gradient) = 0;
};

// exp(score - shift) tables of the sentence-independent scores, built once per evaluation.
struct ExpTables {
  int num_labels = 0;
  std::vector<double> transition, start, end;
  std::vector<double> transition_t;  // transition transposed: [b * N + a] = transition[a * N + b]
  std::vector<double> trigram;       // (N+1) x N x N, second-order chains only
  double transition_shift = 0, start_shift = 0, end_shift = 0, trigram_shift = 0;
  // `trigram_scores` (null for first-order chains) has (N+1) x N x N entries.
  void Build(int n, const double* transition_scores, const double* start_scores,
             const double* end_scores, const double* trigram_scores = nullptr);
};

// The chain scores of `w` (transition, start, end and, at order 2, trigram weights, contiguous
// from params.transition_offset()) divided by `epsilon`, with every transition, start and end the
// mask forbids at -inf: the tables built from them give those labelings probability 0.
std::vector<double> MaskedChainScores(const ModelParameters& params, absl::Span<const double> w,
                                      const TransitionMask& mask, double epsilon = 1.0);

// Forward-backward on one sentence with per-position normalisers. Reuses its buffers.
class ScaledForwardBackward {
 public:
  // `unary` holds M x N log scores and is overwritten with scratch values. Returns log Z (may be
  // +-inf or NaN when the scores overflow). Afterwards unary_marginals() is M x N P(y_t = y) and
  // transition_marginals() is N x N sum_t P(y_{t-1} = a, y_t = b).
  double Run(int m, const ExpTables& tables, double* unary);
  const double* unary_marginals() const { return alpha_.data(); }
  const double* transition_marginals() const { return transition_.data(); }

 private:
  std::vector<double> alpha_, beta_, inv_norm_, tmp_, transition_;
};

// The same on second-order chains (tables with trigram): recursions over label pairs
// (y_{t-1}, y_t), O(M N^3). Afterwards trigram_marginals() is (N+1) x N x N
// sum_{t >= 1} P(y_{t-2} = a, y_{t-1} = b, y_t = c) (a = N before the sentence).
class ScaledForwardBackward2 {
 public:
  double Run(int m, const ExpTables& tables, double* unary);
  const double* unary_marginals() const { return marginals_.data(); }
  const double* transition_marginals() const { return transition_.data(); }
  const double* trigram_marginals() const { return trigram_.data(); }

 private:
  std::vector<double> alpha_, beta_, inv_norm_, tmp_, v_, marginals_, transition_, trigram_;
};

// The epsilon-objective spanning CRF and SSVM (Hazan and Urtasun, "A Primal-Dual Message-Passing
// Algorithm for Approximated Large Scale Structured Prediction", NIPS 2010; exact on chains):
//   sum_i eps * log sum_y exp((Delta(y_i, y) + F(x_i, y)) / eps) - F(x_i, y_i) + (C/p) |w|_p^p
// for a decomposable Delta(y_i, y) = scale_i * sum_t cost[y_i,t][y_t], with C = 2 * c2 so that p =
// 2 gives c2 |w|^2 (the CRFsuite convention of the plain CRF). eps = 1 and no cost is the CRF; eps
// = 1 with Hamming costs is softmax-margin (Gimpel and Smith 2010).
struct SmoothLoss {
  double epsilon = 1.0;
  double p = 2.0;
  std::vector<double> cost;        // N x N cost[gold * N + predicted]; empty means Delta = 0
  bool per_token_average = false;  // scale_i = 1 / M_i (normalised Hamming) instead of 1
};

class CrfObjective : public Objective {
 public:
  // `threads` <= 0 means all cores. The data must outlive the objective, which never reads
  // data.position_attributes after construction. `consume`, when given, must be
  // &data.position_attributes: it is converted in place and left empty, saving a copy.
  CrfObjective(const TrainingData& data, double c2, int threads,
               std::vector<int32_t>* consume = nullptr, SmoothLoss loss = SmoothLoss());
  int64_t size() const override { return data_.parameters.size(); }
  double Evaluate(absl::Span<const double> w, absl::Span<double> gradient) override;
  int threads() const { return static_cast<int>(workers_.size()); }
  // Attributes scored through dense rows (see num_dense_), for tests.
  int dense_attributes() const { return num_dense_; }

  // Tests: false runs the per-sentence loops as built even where AVX2 is available, true as the
  // CPU allows; both must give the same bits.
  static void UseAvx2LoopsForTesting(bool use);

  // Gradient contributions are summed as integers in units of 2^-kFixedBits, so the sum is exact
  // and independent of the order in which threads add them.
  static constexpr int kFixedBits = 36;

 private:
  struct Worker {
    std::vector<int64_t> gradient;
    std::vector<double> unary;
    std::vector<int64_t> fixed;
    std::vector<int64_t> fixed_signed;    // ToFixedSigned of one position's marginals
    std::vector<int64_t> dense_gradient;  // num_dense_ x N, folded into `gradient`
    ScaledForwardBackward kernel;
    ScaledForwardBackward2 kernel2;
  };
  void ProcessSentence(int s, const double* w, const ExpTables& tables, Worker* worker);
  // kWeighted: real-valued attributes (TrainingData::position_values); otherwise all values are 1.
  template <bool kPacked, bool kWeighted>
  void ProcessSentenceImpl(int s, const double* w, const ExpTables& tables, Worker* worker);
  // ProcessSentenceImpl compiled for AVX2 when the CPU has it, else as built.
  template <bool kPacked, bool kWeighted>
  void ProcessSentenceOn(int s, const double* w, const ExpTables& tables, Worker* worker);
  template <bool kPacked, bool kWeighted>
  void ProcessSentenceAvx2(int s, const double* w, const ExpTables& tables, Worker* worker);

  const TrainingData& data_;
  double c2_;
  SmoothLoss loss_;
  // First state feature and feature count of every attribute occurrence (position_offsets
  // indexes them): the hot loops never look up attribute_offsets, a cache miss per occurrence.
  // With count_bits_ > 0 both are packed in first_feature_ (first << count_bits_ | count) and
  // feature_count_ is empty; otherwise first_feature_ holds the first feature only.
  std::vector<int32_t> first_feature_;
  std::vector<uint16_t> feature_count_;
  int count_bits_ = 0;
  // Attributes with many features (seen with at least a third of the labels) are scored and
  // accumulated through dense rows of N cells, vectorised and free of the label indirection:
  // their occurrences hold -(row + 1) in first_feature_. dense_attributes_ names the attribute of
  // each row; dense_weights_ is refilled from w at every evaluation, with zeros for labels that
  // have no feature (adding them leaves every sum as it was).
  int num_dense_ = 0;
  std::vector<int32_t> dense_attributes_;
  std::vector<double> dense_weights_;
  std::vector<Worker> workers_;
  std::vector<double> log_z_;        // per sentence, summed exactly (ExactTotal)
  std::vector<int64_t> over_ranks_;  // over MPI ranks: all ranks' workers' gradient sums
};

}  // namespace train_internal
}  // namespace chaintag

#endif  // CHAINTAG_TRAIN_CRF_OBJECTIVE_H_
