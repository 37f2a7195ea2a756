#include "train/training_data.h"

#include <algorithm>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace chaintag {
namespace train_internal {

int64_t TrainingData::FindFeature(int32_t attribute, int label) const {
  const auto& p = parameters;
  const int32_t* begin = p.feature_labels.data() + p.attribute_offsets[attribute];
  const int32_t* end = p.feature_labels.data() + p.attribute_offsets[attribute + 1];
  const int32_t* it = std::lower_bound(begin, end, label);
  if (it == end || *it != label) return -1;
  return it - p.feature_labels.data();
}

void BuildFeatureSet(TrainingData* data) {
  const int n = data->num_labels();
  const int num_attributes = data->attributes.size();
  // One bit per (attribute, label): far smaller than a list of observed pairs.
  const int words = (n + 63) / 64;
  std::vector<uint64_t> seen(static_cast<size_t>(num_attributes) * words, 0);
  const int64_t num_positions = data->num_positions();
  for (int64_t p = 0; p < num_positions; ++p) {
    const int y = data->gold[p];
    for (int32_t a : data->attributes_at(p)) {
      seen[static_cast<size_t>(a) * words + y / 64] |= uint64_t{1} << (y % 64);
    }
  }
  ModelParameters& params = data->parameters;
  params.num_labels = n;
  params.attribute_offsets.assign(num_attributes + 1, 0);
  int64_t count = 0;
  for (int a = 0; a < num_attributes; ++a) {
    for (int w = 0; w < words; ++w) count += __builtin_popcountll(seen[static_cast<size_t>(a) * words + w]);
    params.attribute_offsets[a + 1] = static_cast<int32_t>(count);
  }
  params.feature_labels.resize(count);
  int64_t f = 0;
  for (int a = 0; a < num_attributes; ++a) {
    for (int w = 0; w < words; ++w) {
      uint64_t bits = seen[static_cast<size_t>(a) * words + w];
      while (bits != 0) {
        params.feature_labels[f++] = w * 64 + __builtin_ctzll(bits);
        bits &= bits - 1;
      }
    }
  }
  std::vector<uint64_t>().swap(seen);
  params.weights.assign(params.size(), 0.0);

  data->empirical.assign(params.size(), 0);
  data->observed_transitions.assign(static_cast<size_t>(n + 1) * n, 0);
  for (int s = 0; s < data->num_sentences(); ++s) {
    const int64_t begin = data->sentence_offsets[s];
    const int64_t end = data->sentence_offsets[s + 1];
    if (begin == end) continue;
    for (int64_t p = begin; p < end; ++p) {
      const int y = data->gold[p];
      for (int32_t a : data->attributes_at(p)) ++data->empirical[data->FindFeature(a, y)];
      const int prev = p == begin ? -1 : data->gold[p - 1];
      data->observed_transitions[static_cast<size_t>(prev + 1) * n + y] = 1;
      if (prev >= 0) ++data->empirical[params.transition_offset() + int64_t{prev} * n + y];
    }
    ++data->empirical[params.start_offset() + data->gold[begin]];
    ++data->empirical[params.end_offset() + data->gold[end - 1]];
  }
}

void ScoreTrainingSentence(const TrainingData& data, int s, const double* w, Lattice* lattice) {
  const ModelParameters& params = data.parameters;
  const int n = params.num_labels;
  const int m = data.sentence_size(s);
  lattice->Reset(m, n);
  const int64_t first = data.sentence_offsets[s];
  for (int t = 0; t < m; ++t) {
    absl::Span<double> row = lattice->unary_row(t);
    for (int32_t a : data.attributes_at(first + t)) {
      for (int32_t f = params.attribute_offsets[a]; f < params.attribute_offsets[a + 1]; ++f) {
        row[params.feature_labels[f]] += w[f];
      }
    }
  }
  for (int p = 0; p < n; ++p) {
    for (int y = 0; y < n; ++y) lattice->transition(p, y) = w[params.transition_offset() + p * n + y];
  }
  for (int y = 0; y < n; ++y) {
    lattice->start(y) = w[params.start_offset() + y];
    lattice->end(y) = w[params.end_offset() + y];
  }
}

absl::StatusOr<TrainingData> BuildTrainingData(const FeatureSpec& spec,
                                               const std::vector<Sentence>& corpus,
                                               int min_feature_count) {
  if (corpus.empty()) return absl::InvalidArgumentError("training data: expected sentences, found none");
  Featurizer featurizer(spec);
  std::vector<std::string> labels;
  {
    absl::flat_hash_map<std::string, int> seen;
    for (const Sentence& sentence : corpus) {
      if (sentence.size() == 0) continue;
      if (static_cast<int>(sentence.labels.size()) != sentence.size()) {
        const int64_t line = sentence.token_lines.empty() ? 0 : sentence.token_lines[0];
        return absl::InvalidArgumentError(absl::StrCat(
            sentence.file, ":", line, ": expected a gold label for each of the ", sentence.size(),
            " tokens, found ", sentence.labels.size(), " labels"));
      }
      if (absl::Status status = featurizer.CheckColumns(sentence); !status.ok()) {
        const int64_t line = sentence.token_lines.empty() ? 0 : sentence.token_lines[0];
        return absl::InvalidArgumentError(
            absl::StrCat(sentence.file, ":", line, ": ", status.message()));
      }
      for (const std::string& label : sentence.labels) {
        if (seen.emplace(label, 0).second) labels.push_back(label);
      }
    }
  }
  std::sort(labels.begin(), labels.end());
  absl::flat_hash_map<std::string, int> label_ids;
  for (int i = 0; i < static_cast<int>(labels.size()); ++i) label_ids[labels[i]] = i;

  TrainingData data;
  data.labels = std::move(labels);
  data.attributes = BuildAttributeDictionary(featurizer, corpus, min_feature_count);
  data.sentence_offsets.push_back(0);
  data.position_offsets.push_back(0);
  FeaturizedSentence featurized;
  for (const Sentence& sentence : corpus) {
    if (sentence.size() == 0) continue;
    featurizer.Featurize(sentence, data.attributes, &featurized);
    for (int t = 0; t < sentence.size(); ++t) {
      const auto attrs = featurized.at(t);
      data.position_attributes.insert(data.position_attributes.end(), attrs.begin(), attrs.end());
      data.position_offsets.push_back(static_cast<int64_t>(data.position_attributes.size()));
      data.gold.push_back(label_ids[sentence.labels[t]]);
    }
    data.sentence_offsets.push_back(static_cast<int64_t>(data.gold.size()));
  }
  if (data.gold.empty()) {
    return absl::InvalidArgumentError("training data: expected tokens, found only empty sentences");
  }
  data.position_attributes.shrink_to_fit();
  data.position_offsets.shrink_to_fit();
  data.gold.shrink_to_fit();
  BuildFeatureSet(&data);
  return data;
}

}  // namespace train_internal
}  // namespace chaintag
