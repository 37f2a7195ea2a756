#include "train/feature_vectors.h"

#include "model/parameters.h"

namespace chaintag {
namespace train_internal {

void AddLabeling(int n, absl::Span<const int> labels, double scale, double* unary,
                 double* transition) {
  const int m = static_cast<int>(labels.size());
  if (m == 0) return;
  for (int t = 0; t < m; ++t) {
    unary[static_cast<size_t>(t) * n + labels[t]] += scale;
    if (t > 0) transition[static_cast<size_t>(labels[t - 1]) * n + labels[t]] += scale;
  }
  transition[static_cast<size_t>(n) * n + labels[0]] += scale;
  transition[static_cast<size_t>(n) * n + n + labels[m - 1]] += scale;
}

const FeatureAccumulator::Sparse& FeatureAccumulator::Build(const TrainingData& data, int s,
                                                            const double* unary,
                                                            const double* transition) {
  const ModelParameters& params = data.parameters;
  const int n = params.num_labels;
  const int m = data.sentence_size(s);
  const int64_t first = data.sentence_offsets[s];
  const int32_t* offsets = params.attribute_offsets.data();
  const int32_t* labels = params.feature_labels.data();
  for (int t = 0; t < m; ++t) {
    const double* row = unary + static_cast<size_t>(t) * n;
    if (data.weighted()) {
      const int64_t p = first + t;
      for (int64_t k = data.position_offsets[p]; k < data.position_offsets[p + 1]; ++k) {
        const int32_t a = data.position_attributes[k];
        const double v = data.position_values[k];
        for (int32_t f = offsets[a]; f < offsets[a + 1]; ++f) dense_[f] += v * row[labels[f]];
      }
      continue;
    }
    for (int32_t a : data.attributes_at(first + t)) {
      for (int32_t f = offsets[a]; f < offsets[a + 1]; ++f) dense_[f] += row[labels[f]];
    }
  }
  sparse_.entries.clear();
  sparse_.squared_norm = 0;
  // A second sweep collects each touched feature once (it is zeroed when collected).
  for (int t = 0; t < m; ++t) {
    for (int32_t a : data.attributes_at(first + t)) {
      for (int32_t f = offsets[a]; f < offsets[a + 1]; ++f) {
        if (dense_[f] != 0) {
          sparse_.entries.emplace_back(f, dense_[f]);
          sparse_.squared_norm += dense_[f] * dense_[f];
          dense_[f] = 0;
        }
      }
    }
  }
  const int64_t base = params.transition_offset();
  const std::vector<char>& fixed = data.fixed_transitions;
  for (int i = 0; i < n * n + 2 * n; ++i) {
    if (transition[i] != 0 && (fixed.empty() || !fixed[i])) {
      sparse_.entries.emplace_back(base + i, transition[i]);
      sparse_.squared_norm += transition[i] * transition[i];
    }
  }
  return sparse_;
}

void ScaleLattice(double factor, Lattice* lattice) {
  const int m = lattice->size();
  const int n = lattice->num_labels();
  for (int t = 0; t < m; ++t) {
    for (double& x : lattice->unary_row(t)) x *= factor;
  }
  for (int p = 0; p < n; ++p) {
    for (int y = 0; y < n; ++y) lattice->transition(p, y) *= factor;
  }
  for (int y = 0; y < n; ++y) {
    lattice->start(y) *= factor;
    lattice->end(y) *= factor;
  }
}

}  // namespace train_internal
}  // namespace chaintag
