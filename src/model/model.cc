// Model assembly, scoring, pruning and feature inspection.
#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "chaintag/model.h"

namespace chaintag {

void ModelParameters::Score(const FeaturizedSentence& sentence, absl::Span<const double> w,
                            Lattice* lattice) const {
  assert(static_cast<int64_t>(w.size()) == size());
  const int m = sentence.size();
  const int n = num_labels;
  lattice->Reset(m, n);
  const int num_attr = num_attributes();
  const int32_t* offsets = attribute_offsets.data();
  const int32_t* labels = feature_labels.data();
  const double* weight = w.data();
  for (int t = 0; t < m; ++t) {
    double* row = lattice->unary_row(t).data();
    for (const int32_t a : sentence.at(t)) {
      // Ids outside the dictionary cannot come from Featurize; skipping them keeps Score memory-safe.
      if (a < 0 || a >= num_attr) continue;
      const int32_t end = offsets[a + 1];
      for (int32_t f = offsets[a]; f < end; ++f) row[labels[f]] += weight[f];
    }
  }
  const double* transition = weight + transition_offset();
  for (int prev = 0; prev < n; ++prev) {
    for (int y = 0; y < n; ++y) lattice->transition(prev, y) = transition[prev * n + y];
  }
  const double* start = weight + start_offset();
  const double* end = weight + end_offset();
  for (int y = 0; y < n; ++y) {
    lattice->start(y) = start[y];
    lattice->end(y) = end[y];
  }
}

Model::Model(std::vector<std::string> labels, FeatureSpec spec, AttributeDictionary attributes,
             ModelParameters parameters, TransitionMask mask)
    : labels_(std::move(labels)),
      spec_(std::move(spec)),
      attributes_(std::move(attributes)),
      parameters_(std::move(parameters)),
      mask_(std::move(mask)) {
  // The file stores float32; rounding here makes the in-memory model tag exactly like the loaded
  // one, so self-test labels recorded now are reproduced on load.
  for (double& w : parameters_.weights) w = static_cast<double>(static_cast<float>(w));
  // A mask with some empty vectors means "all allowed" there; filling them keeps one
  // representation and lets the tagger apply the mask without size checks.
  if (mask_.num_labels > 0) {
    const size_t n = static_cast<size_t>(mask_.num_labels);
    if (mask_.allowed.empty()) mask_.allowed.assign(n * n, 1);
    if (mask_.allowed_start.empty()) mask_.allowed_start.assign(n, 1);
    if (mask_.allowed_end.empty()) mask_.allowed_end.assign(n, 1);
  }
  BuildTaggingScores();
}

void Model::BuildTaggingScores() {
  const ModelParameters& p = parameters_;
  const int n = p.num_labels;
  TaggingScores& t = tagging_;
  t = TaggingScores();
  // The loader constructs before it validates, so inconsistent parameters leave the layout
  // empty (the Tagger then falls back to Score) instead of reading out of bounds.
  if (n <= 0 || static_cast<int64_t>(p.weights.size()) != p.size()) return;
  const int num_attr = p.num_attributes();
  const auto num_features = static_cast<int64_t>(p.feature_labels.size());
  for (int a = 0; a < num_attr; ++a) {
    if (p.attribute_offsets[a] < 0 || p.attribute_offsets[a] > p.attribute_offsets[a + 1] ||
        p.attribute_offsets[a + 1] > num_features) {
      return;
    }
  }
  if (num_attr > 0 && p.attribute_offsets[0] != 0) return;
  for (const int32_t y : p.feature_labels) {
    if (y < 0 || y >= n) return;
  }
  t.ranges.resize(2 * static_cast<size_t>(num_attr));
  t.entries.reserve(p.feature_labels.size());
  for (int a = 0; a < num_attr; ++a) {
    const int32_t begin = p.attribute_offsets[a], end = p.attribute_offsets[a + 1];
    t.ranges[2 * a] = static_cast<int32_t>(t.entries.size());
    for (int32_t f = begin; f < end; ++f) {
      t.entries.push_back({p.feature_labels[f], static_cast<float>(p.weights[f])});
    }
    t.ranges[2 * a + 1] = static_cast<int32_t>(t.entries.size());
  }
  // Score + ApplyTransitionMask on an empty sentence give exactly the per-sentence values.
  Lattice lattice;
  p.Score(FeaturizedSentence(), p.weights, &lattice);
  if (mask_.num_labels == num_labels()) ApplyTransitionMask(mask_, &lattice);
  t.transition = lattice.transition_data();
  t.start.resize(n);
  t.end.resize(n);
  for (int y = 0; y < n; ++y) {
    t.start[y] = lattice.start(y);
    t.end[y] = lattice.end(y);
  }
}

int Model::LabelId(std::string_view label) const {
  for (int i = 0; i < num_labels(); ++i) {
    if (labels_[i] == label) return i;
  }
  return -1;
}

std::string Model::Metadata(std::string_view key) const {
  for (const auto& [k, v] : metadata_) {
    if (k == key) return v;
  }
  return "";
}

void Model::AddMetadata(std::string key, std::string value) {
  metadata_.emplace_back(std::move(key), std::move(value));
}

absl::Status Model::SetSelfTests(const std::vector<Sentence>& sentences) {
  std::vector<SelfTest> tests;
  tests.reserve(sentences.size());
  Tagger tagger(*this);
  for (const Sentence& sentence : sentences) {
    absl::StatusOr<Labeling> best = tagger.Tag(sentence);
    if (!best.ok()) return best.status();
    SelfTest test;
    // Only the columns are stored in the file, so keep exactly those in memory too.
    test.sentence.columns = sentence.columns;
    test.expected.reserve(best->labels.size());
    for (const int y : best->labels) test.expected.push_back(labels_[y]);
    tests.push_back(std::move(test));
  }
  self_tests_ = std::move(tests);
  return absl::OkStatus();
}

void Model::Prune() {
  const ModelParameters& old = parameters_;
  const int num_attr = old.num_attributes();
  const int64_t num_features = old.num_state_features();
  ModelParameters pruned;
  pruned.num_labels = old.num_labels;
  pruned.attribute_offsets.reserve(num_attr + 1);
  pruned.attribute_offsets.push_back(0);
  AttributeDictionary attributes;
  std::vector<double> state_weights;
  for (int a = 0; a < num_attr; ++a) {
    const int32_t before = static_cast<int32_t>(pruned.feature_labels.size());
    for (int32_t f = old.attribute_offsets[a]; f < old.attribute_offsets[a + 1]; ++f) {
      if (old.weights[f] == 0.0) continue;
      pruned.feature_labels.push_back(old.feature_labels[f]);
      state_weights.push_back(old.weights[f]);
    }
    if (static_cast<int32_t>(pruned.feature_labels.size()) == before) continue;
    attributes.Insert(a < attributes_.size() ? attributes_.name(a) : std::string());
    pruned.attribute_offsets.push_back(static_cast<int32_t>(pruned.feature_labels.size()));
  }
  pruned.weights = std::move(state_weights);
  pruned.weights.insert(pruned.weights.end(), old.weights.begin() + num_features,
                        old.weights.end());
  parameters_ = std::move(pruned);
  attributes_ = std::move(attributes);
  BuildTaggingScores();
}

std::vector<WeightedFeature> TopFeatures(const Model& model, int k) {
  const ModelParameters& p = model.parameters();
  const int64_t num_features = p.num_state_features();
  std::vector<int32_t> attribute_of(num_features);
  for (int a = 0; a < p.num_attributes(); ++a) {
    for (int32_t f = p.attribute_offsets[a]; f < p.attribute_offsets[a + 1]; ++f) {
      attribute_of[f] = a;
    }
  }
  std::vector<int64_t> order(num_features);
  for (int64_t f = 0; f < num_features; ++f) order[f] = f;
  const int64_t top = std::clamp<int64_t>(k, 0, num_features);
  // Largest magnitude first: strongly negative features are as informative as positive ones.
  std::partial_sort(order.begin(), order.begin() + top, order.end(), [&](int64_t x, int64_t y) {
    const double wx = std::fabs(p.weights[x]);
    const double wy = std::fabs(p.weights[y]);
    return wx != wy ? wx > wy : x < y;
  });
  std::vector<WeightedFeature> result;
  result.reserve(top);
  for (int64_t i = 0; i < top; ++i) {
    const int64_t f = order[i];
    WeightedFeature feature;
    const int a = attribute_of[f];
    if (a < model.attributes().size()) feature.attribute = model.attributes().name(a);
    feature.label = model.labels()[p.feature_labels[f]];
    feature.weight = p.weights[f];
    result.push_back(std::move(feature));
  }
  return result;
}

}  // namespace chaintag
