// The scores a decoder sees: unary M x N, transition N x N, and start/end N; a second-order lattice
// adds trigram scores (N+1) x N x N. Decoders never see features or models; masks and forced
// labels are applied as -infinity scores.
#ifndef CHAINTAG_LATTICE_H_
#define CHAINTAG_LATTICE_H_

#include <cassert>
#include <limits>
#include <vector>

#include "absl/types/span.h"

namespace chaintag {

inline constexpr double kNegInf = -std::numeric_limits<double>::infinity();

class Lattice {
 public:
  Lattice() = default;
  Lattice(int num_positions, int num_labels) { Reset(num_positions, num_labels); }

  // Resizes and zeroes all scores (reuses memory: no allocation when the size does not grow).
  void Reset(int num_positions, int num_labels) {
    m_ = num_positions;
    n_ = num_labels;
    unary_.assign(static_cast<size_t>(m_) * n_, 0.0);
    transition_.assign(static_cast<size_t>(n_) * n_, 0.0);
    start_.assign(n_, 0.0);
    end_.assign(n_, 0.0);
    trigram_.clear();
    shared_ = SharedTrigram();
  }

  // Makes the lattice second order (after Reset): every position t >= 1 adds
  // trigram(y_{t-2}, y_{t-1}, y_t), with y_{-1} = kBos (= num_labels()). Scores start at 0.
  void EnableSecondOrder() {
    trigram_.assign(TrigramSize(), 0.0);
    shared_ = SharedTrigram();
  }
  // Second order with trigram tables owned by someone else (a model's, shared by every
  // sentence's lattice). They must outlive the lattice's use; a mutable access copies the scores.
  struct SharedTrigram {
    const double* scores = nullptr;  // (N+1) x N x N
    // Optional: per middle label b the minimum of trigram(., b, .) at [b], the maximum at [N + b].
    const double* bounds = nullptr;
    // Optional: exp(scores - exp_shift), (N+1) x N x N, for probability-space sums.
    const double* exp = nullptr;
    double exp_shift = 0;
  };
  void ShareSecondOrder(const SharedTrigram& shared) {
    trigram_.clear();
    shared_ = shared;
  }
  int order() const { return trigram_.empty() && shared_.scores == nullptr ? 1 : 2; }
  int bos() const { return n_; }  // the label "before the sentence" in trigram()

  int size() const { return m_; }        // M: positions (tokens)
  int num_labels() const { return n_; }  // N

  double unary(int t, int y) const { return unary_[static_cast<size_t>(t) * n_ + y]; }
  double& unary(int t, int y) { return unary_[static_cast<size_t>(t) * n_ + y]; }
  absl::Span<const double> unary_row(int t) const {
    return absl::MakeConstSpan(unary_.data() + static_cast<size_t>(t) * n_, n_);
  }
  absl::Span<double> unary_row(int t) {
    return absl::MakeSpan(unary_.data() + static_cast<size_t>(t) * n_, n_);
  }
  // Score of label `y` following label `prev`.
  double transition(int prev, int y) const {
    return transition_[static_cast<size_t>(prev) * n_ + y];
  }
  double& transition(int prev, int y) { return transition_[static_cast<size_t>(prev) * n_ + y]; }
  double start(int y) const { return start_[y]; }  // score of `y` at position 0
  double& start(int y) { return start_[y]; }
  double end(int y) const { return end_[y]; }  // score of `y` at position M-1
  double& end(int y) { return end_[y]; }

  // Second-order lattices only: the score of `y` after `prev` after `before` (bos() at t = 1).
  double trigram(int before, int prev, int y) const {
    return trigram_data()[(static_cast<size_t>(before) * n_ + prev) * n_ + y];
  }
  double& trigram(int before, int prev, int y) {
    return trigram_data()[(static_cast<size_t>(before) * n_ + prev) * n_ + y];
  }
  // (N+1) x N x N, row (before, prev) contiguous over y; empty for first-order lattices.
  absl::Span<const double> trigram_data() const {
    if (shared_.scores != nullptr) return absl::MakeConstSpan(shared_.scores, TrigramSize());
    return trigram_;
  }
  absl::Span<double> trigram_data() {
    if (shared_.scores != nullptr) {
      trigram_.assign(shared_.scores, shared_.scores + TrigramSize());
      shared_ = SharedTrigram();
    }
    return absl::MakeSpan(trigram_);
  }
  // The shared tables (ShareSecondOrder); all null for owned or first-order scores.
  const SharedTrigram& shared_trigram() const { return shared_; }

  const std::vector<double>& unary_data() const { return unary_; }
  const std::vector<double>& transition_data() const { return transition_; }
  const std::vector<double>& start_data() const { return start_; }
  const std::vector<double>& end_data() const { return end_; }

  // F(y): the chain score of a full labeling (kNegInf if it uses a masked cell).
  double Score(absl::Span<const int> labels) const {
    assert(static_cast<int>(labels.size()) == m_);
    if (m_ == 0) return 0.0;
    double s = start(labels[0]) + end(labels[m_ - 1]);
    for (int t = 0; t < m_; ++t) {
      s += unary(t, labels[t]);
      if (t > 0) s += transition(labels[t - 1], labels[t]);
      if (t > 0 && order() == 2)
        s += trigram(t == 1 ? n_ : labels[t - 2], labels[t - 1], labels[t]);
    }
    return s;
  }

 private:
  int m_ = 0;
  int n_ = 0;
  std::vector<double> unary_;
  std::vector<double> transition_;
  std::vector<double> start_;
  std::vector<double> end_;
  size_t TrigramSize() const { return static_cast<size_t>(n_ + 1) * n_ * n_; }
  std::vector<double> trigram_;
  SharedTrigram shared_;
};

}  // namespace chaintag

#endif  // CHAINTAG_LATTICE_H_
