// Model assembly from consistent parameters, the tagging layout, scoring and feature inspection.
#include "chaintag/model.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "decode/latent.h"
#include "decode/second_order.h"
#include "features/featurizer.h"
#include "model/parameters.h"

namespace chaintag {

void ModelParameters::Score(const FeaturizedSentence& sentence, absl::Span<const double> w,
                            Lattice* lattice, const double* trigram_bounds) const {
  assert(static_cast<int64_t>(w.size()) == size());
  const int m = sentence.size();
  const int n = num_labels;
  lattice->Reset(m, n);
  const int num_attr = num_attributes();
  const int32_t* offsets = attribute_offsets.data();
  const int32_t* labels = feature_labels.data();
  const double* weight = w.data();
  const bool weighted = sentence.weighted();
  for (int t = 0; t < m; ++t) {
    double* row = lattice->unary_row(t).data();
    for (int32_t k = sentence.offsets[t]; k < sentence.offsets[t + 1]; ++k) {
      const int32_t a = sentence.attributes[k];
      // Ids outside the dictionary cannot come from Featurize; skipping them keeps Score
      // memory-safe.
      if (a < 0 || a >= num_attr) continue;
      const int32_t end = offsets[a + 1];
      if (weighted) {
        const double v = sentence.values[k];
        for (int32_t f = offsets[a]; f < end; ++f) row[labels[f]] += v * weight[f];
      } else {
        for (int32_t f = offsets[a]; f < end; ++f) row[labels[f]] += weight[f];
      }
    }
  }
  FillChain(w, lattice, trigram_bounds);
}

void ModelParameters::FillChain(absl::Span<const double> w, Lattice* lattice,
                                const double* trigram_bounds) const {
  const int n = num_labels;
  const double* transition = w.data() + transition_offset();
  std::copy(transition, transition + static_cast<size_t>(n) * n, &lattice->transition(0, 0));
  const double* start = w.data() + start_offset();
  const double* end = w.data() + end_offset();
  for (int y = 0; y < n; ++y) {
    lattice->start(y) = start[y];
    lattice->end(y) = end[y];
  }
  if (order == 2) lattice->ShareSecondOrder({w.data() + trigram_offset(), trigram_bounds});
}

void ModelInputOptions::ApplyTo(ReaderOptions* options) const {
  options->format = format;
  options->label_column = label_column;
  options->conllu_label = conllu_label;
  options->np_chunks = np_chunks;
}

ModelInputOptions InputOptionsOf(const ReaderOptions& options) {
  ModelInputOptions input;
  input.format = options.format;
  input.label_column = options.label_column;
  input.conllu_label = options.conllu_label;
  input.np_chunks = options.np_chunks;
  return input;
}

Model::Model(std::vector<std::string> labels, FeatureSpec spec, AttributeDictionary attributes,
             const ModelParameters& parameters, TransitionMask mask, LatentLayout latent)
    : Model(std::move(labels), std::move(spec), std::move(attributes), StateScoresOf(parameters),
            std::vector<double>(parameters.weights.begin() + parameters.transition_offset(),
                                parameters.weights.end()),
            parameters.num_labels, parameters.order, std::move(mask), std::move(latent)) {}

Model::TaggingScores Model::StateScoresOf(const ModelParameters& p) {
  TaggingScores t;
  // The file stores float32; rounding here makes a built model tag exactly like the loaded one.
  // Entries are the state features in order, so attribute a's range is its feature range.
  const int64_t num_features = p.num_state_features();
  t.entries.resize(num_features);
  for (int64_t f = 0; f < num_features; ++f) {
    t.entries[f] = {p.feature_labels[f], static_cast<float>(p.weights[f])};
  }
  const int num_attr = p.num_attributes();
  t.ranges.resize(2 * static_cast<size_t>(num_attr));
  for (int a = 0; a < num_attr; ++a) {
    t.ranges[2 * a] = p.attribute_offsets[a];
    t.ranges[2 * a + 1] = p.attribute_offsets[a + 1];
  }
  return t;
}

Model::Model(std::vector<std::string> labels, FeatureSpec spec, AttributeDictionary attributes,
             TaggingScores state, std::vector<double> chain, int num_states, int order,
             TransitionMask mask, LatentLayout latent)
    : labels_(std::move(labels)),
      spec_(std::move(spec)),
      attributes_(std::move(attributes)),
      mask_(std::move(mask)),
      latent_(std::move(latent)),
      tagging_(std::make_shared<TaggingScores>(std::move(state))) {
  // A mask with some empty vectors means "all allowed" there; filling them keeps one
  // representation and lets the tagger apply the mask without size checks.
  if (mask_.num_labels > 0) {
    const size_t n = static_cast<size_t>(mask_.num_labels);
    if (mask_.allowed.empty()) mask_.allowed.assign(n * n, 1);
    if (mask_.allowed_start.empty()) mask_.allowed_start.assign(n, 1);
    if (mask_.allowed_end.empty()) mask_.allowed_end.assign(n, 1);
  }
  const int n = num_states;
  const int num_attr = static_cast<int>(tagging_->ranges.size() / 2);
  TaggingScores& t = *tagging_;
  t.dense_of.resize(num_attr);
  std::vector<int32_t> dense_attributes;
  for (int a = 0; a < num_attr; ++a) {
    const int32_t begin = t.ranges[2 * a], end = t.ranges[2 * a + 1];
    const bool dense = end - begin >= 2 && 3 * (end - begin) >= n;
    t.dense_of[a] = dense ? static_cast<int32_t>(dense_attributes.size()) : -1;
    if (dense) dense_attributes.push_back(a);
  }
  t.dense.assign(dense_attributes.size() * n, 0.0);
  for (size_t d = 0; d < dense_attributes.size(); ++d) {
    const int a = dense_attributes[d];
    double* row = t.dense.data() + d * n;
    for (int32_t f = t.ranges[2 * a]; f < t.ranges[2 * a + 1]; ++f) {
      row[t.entries[f].label] = static_cast<double>(t.entries[f].weight);
    }
  }
  // `chain`: N*N + 2N transition, start and end weights, then any trigram weights.
  const size_t nn = static_cast<size_t>(n) * n;
  for (double& w : chain) w = static_cast<double>(static_cast<float>(w));
  if (order == 2) t.trigram.assign(chain.begin() + nn + 2 * n, chain.end());
  order_ = t.trigram.empty() ? 1 : 2;
  chain.resize(nn + 2 * n);
  chain_weights_ = std::move(chain);
  // The masked scores are those Score + ApplyTransitionMask give every sentence.
  Lattice lattice(0, n);
  for (int prev = 0; prev < n; ++prev) {
    for (int y = 0; y < n; ++y) lattice.transition(prev, y) = chain_weights_[prev * n + y];
  }
  for (int y = 0; y < n; ++y) {
    lattice.start(y) = chain_weights_[nn + y];
    lattice.end(y) = chain_weights_[nn + n + y];
  }
  if (!latent_.empty()) {
    // The label mask over hidden states: h -> h' is allowed when label(h) -> label(h') is.
    if (n > 0 && mask_.num_labels == num_labels() && latent_.num_states() == n) {
      ApplyTransitionMask(ExpandTransitionMask(mask_, latent_), &lattice);
    }
  } else if (n > 0 && mask_.num_labels == n) {
    ApplyTransitionMask(mask_, &lattice);
  }
  t.transition = lattice.transition_data();
  if (order == 2) {
    // Trigram weights are never masked: the tagging layout is also what the file stores.
    t.trigram_bounds = decode_internal::TrigramBounds(t.trigram.data(), n);
    t.trigram_exp.resize(t.trigram.size());
    t.trigram_exp_shift =
        decode_internal::ExpShifted(t.trigram.data(), t.trigram.size(), t.trigram_exp.data());
  }
  t.start.resize(n);
  t.end.resize(n);
  for (int y = 0; y < n; ++y) {
    t.start[y] = lattice.start(y);
    t.end[y] = lattice.end(y);
  }
}

Model::Model() : tagging_(std::make_shared<TaggingScores>()) {}

int64_t Model::num_state_features() const { return static_cast<int64_t>(tagging_->entries.size()); }

ModelParameters Model::Parameters() const {
  ModelParameters p;
  p.num_labels = num_states();
  p.order = order();
  const size_t num_attr = tagging_->ranges.size() / 2;
  p.attribute_offsets.reserve(num_attr + 1);
  p.attribute_offsets.push_back(0);
  for (size_t a = 0; a < num_attr; ++a) p.attribute_offsets.push_back(tagging_->ranges[2 * a + 1]);
  p.feature_labels.reserve(tagging_->entries.size());
  p.weights.reserve(tagging_->entries.size() + chain_weights_.size() + tagging_->trigram.size());
  for (const TaggingScores::Entry& e : tagging_->entries) {
    p.feature_labels.push_back(e.label);
    p.weights.push_back(e.weight);
  }
  p.weights.insert(p.weights.end(), chain_weights_.begin(), chain_weights_.end());
  p.weights.insert(p.weights.end(), tagging_->trigram.begin(), tagging_->trigram.end());
  return p;
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

std::vector<WeightedFeature> TopFeatures(const Model& model, int k) {
  const Model::TaggingScores& scores = model.tagging_scores();
  const int64_t num_features = model.num_state_features();
  std::vector<int32_t> attribute_of(num_features);
  for (size_t a = 0; a < scores.ranges.size() / 2; ++a) {
    for (int32_t f = scores.ranges[2 * a]; f < scores.ranges[2 * a + 1]; ++f) {
      attribute_of[f] = static_cast<int32_t>(a);
    }
  }
  std::vector<int64_t> order(num_features);
  for (int64_t f = 0; f < num_features; ++f) order[f] = f;
  const int64_t top = std::clamp<int64_t>(k, 0, num_features);
  auto weight = [&](int64_t f) { return static_cast<double>(scores.entries[f].weight); };
  // Largest magnitude first: strongly negative features are as informative as positive ones.
  std::partial_sort(order.begin(), order.begin() + top, order.end(), [&](int64_t x, int64_t y) {
    const double wx = std::fabs(weight(x));
    const double wy = std::fabs(weight(y));
    return wx != wy ? wx > wy : x < y;
  });
  std::vector<WeightedFeature> result;
  result.reserve(top);
  for (int64_t i = 0; i < top; ++i) {
    const int64_t f = order[i];
    WeightedFeature feature;
    const int a = attribute_of[f];
    if (a < model.attributes().size()) feature.attribute = model.attributes().name(a);
    const int y = scores.entries[f].label;
    if (model.latent()) {
      const LatentLayout& layout = model.latent_layout();
      feature.label = model.labels()[layout.label_of(y)] + "[" +
                      std::to_string(y - layout.first_state(layout.label_of(y))) + "]";
    } else {
      feature.label = model.labels()[y];
    }
    feature.weight = weight(f);
    result.push_back(std::move(feature));
  }
  return result;
}

ModelInfo DescribeModel(const Model& model, int top_features) {
  ModelInfo info;
  info.family = std::string(ModelFamilyName(model.family()));
  info.labels = model.labels();
  if (model.family() == ModelFamily::kLmsbn) {
    info.family_description =
        "left-to-right large-margin model over the whole label history, decoded by "
        "branch-and-bound";
    info.history_templates = model.spec().HistoryTemplateLines();
    info.num_history_templates = model.spec().num_history_templates();
  }
  if (model.latent()) {
    info.hidden_states.emplace();
    for (int i = 0; i < model.num_labels(); ++i)
      info.hidden_states->emplace_back(model.labels()[i], model.latent_layout().states_of(i));
    info.num_hidden_states = model.num_states();
  }
  info.order = model.order();
  info.input_columns = model.spec().num_input_columns();
  info.attributes = model.attributes().size();
  info.state_features = model.num_state_features();
  info.self_tests = static_cast<int64_t>(model.self_tests().size());
  if (const auto& lexicon = model.spec().lexicon(); lexicon != nullptr)
    info.lexicon = ModelInfo::WordClasses{lexicon->num_words(), lexicon->num_class_sets()};
  if (const auto& lexicon = model.spec().lexicon2(); lexicon != nullptr)
    info.lexicon2 = ModelInfo::WordClasses{lexicon->num_words(), lexicon->num_class_sets()};
  if (const auto& clusters = model.spec().clusters(); clusters != nullptr)
    info.clusters = ModelInfo::WordClasses{clusters->num_words(), clusters->num_clusters()};
  info.templates = model.spec().text();
  info.input = model.input_options();
  info.metadata = model.metadata();
  info.top_features = TopFeatures(model, top_features);
  return info;
}

}  // namespace chaintag
