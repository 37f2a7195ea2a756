// The scores a decoder sees: unary M x N, transition N x N, and start/end N. Decoders never see
// features or models; masks and forced labels are applied as -infinity scores.
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
  }

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

  const std::vector<double>& unary_data() const { return unary_; }
  const std::vector<double>& transition_data() const { return transition_; }

  // F(y): the chain score of a full labeling (kNegInf if it uses a masked cell).
  double Score(absl::Span<const int> labels) const {
    assert(static_cast<int>(labels.size()) == m_);
    if (m_ == 0) return 0.0;
    double s = start(labels[0]) + end(labels[m_ - 1]);
    for (int t = 0; t < m_; ++t) {
      s += unary(t, labels[t]);
      if (t > 0) s += transition(labels[t - 1], labels[t]);
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
};

}  // namespace chaintag

#endif  // CHAINTAG_LATTICE_H_
