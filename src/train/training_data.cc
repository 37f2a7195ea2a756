#include "train/training_data.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "chaintag/decode.h"
#include "features/featurizer.h"
#include "model/model_file.h"
#include "model/parameters.h"
#include "string_view_compat.h"
#include "train/distributed.h"

namespace chaintag {
namespace train_internal {

std::vector<int64_t> TrainingData::FixedTransitionWeights() const {
  std::vector<int64_t> out;
  for (size_t i = 0; i < fixed_transitions.size(); ++i) {
    if (fixed_transitions[i]) out.push_back(parameters.transition_offset() + int64_t(i));
  }
  return out;
}

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
  if (IsDistributed(data->ranks)) data->ranks->OrBits(absl::MakeSpan(seen));
  ModelParameters& params = data->parameters;
  params.num_labels = n;
  params.attribute_offsets.assign(num_attributes + 1, 0);
  int64_t count = 0;
  for (int a = 0; a < num_attributes; ++a) {
    for (int w = 0; w < words; ++w)
      count += __builtin_popcountll(seen[static_cast<size_t>(a) * words + w]);
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

  data->observed_transitions.assign(static_cast<size_t>(n + 1) * n, 0);
  if (data->weighted()) {
    // Real-valued attributes: the gold feature values are sums of attribute values.
    data->empirical.clear();
    std::vector<double>& empirical = data->weighted_empirical;
    empirical.assign(params.size(), 0.0);
    for (int s = 0; s < data->num_sentences(); ++s) {
      const int64_t begin = data->sentence_offsets[s];
      const int64_t end = data->sentence_offsets[s + 1];
      if (begin == end) continue;
      for (int64_t p = begin; p < end; ++p) {
        const int y = data->gold[p];
        for (int64_t k = data->position_offsets[p]; k < data->position_offsets[p + 1]; ++k) {
          empirical[data->FindFeature(data->position_attributes[k], y)] += data->value(k);
        }
        const int prev = p == begin ? -1 : data->gold[p - 1];
        data->observed_transitions[static_cast<size_t>(prev + 1) * n + y] = 1;
        if (prev >= 0) empirical[params.transition_offset() + int64_t{prev} * n + y] += 1.0;
      }
      empirical[params.start_offset() + data->gold[begin]] += 1.0;
      empirical[params.end_offset() + data->gold[end - 1]] += 1.0;
    }
    return;
  }
  data->weighted_empirical.clear();
  data->empirical.assign(params.size(), 0);
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
  SumOverRanks(data->ranks, absl::MakeSpan(data->empirical));
  OrOverRanks(data->ranks, absl::MakeSpan(data->observed_transitions));
}

std::string TrainingData::SentenceName(int s) const {
  const std::string where =
      s < static_cast<int>(sentence_file.size())
          ? absl::StrCat(Location(files[sentence_file[s]], sentence_line[s]), " ")
          : "";
  return absl::StrCat(where, "(training sentence ", s + 1, ", ", sentence_size(s), " tokens)");
}

std::vector<std::string> TrainingData::TakeFallbackWarnings() const {
  std::vector<std::string> out;
  for (int s : fallbacks->TakeFresh()) {
    out.push_back(absl::StrCat(SentenceName(s),
                               ": exact loss-augmented decoding needs more than --loss-memory-mb ",
                               loss_max_bytes >> 20,
                               "; trained with the Hamming-loss maximiser instead (raise "
                               "--loss-memory-mb to decode it exactly)"));
  }
  return out;
}

void ScoreTrainingSentence(const TrainingData& data, int s, const double* w, Lattice* lattice) {
  const ModelParameters& params = data.parameters;
  const int n = params.num_labels;
  const int m = data.sentence_size(s);
  lattice->Reset(m, n);
  const int64_t first = data.sentence_offsets[s];
  for (int t = 0; t < m; ++t) {
    absl::Span<double> row = lattice->unary_row(t);
    if (data.weighted()) {
      for (int64_t k = data.position_offsets[first + t]; k < data.position_offsets[first + t + 1];
           ++k) {
        const int32_t a = data.position_attributes[k];
        const double v = data.position_values[k];
        for (int32_t f = params.attribute_offsets[a]; f < params.attribute_offsets[a + 1]; ++f) {
          row[params.feature_labels[f]] += v * w[f];
        }
      }
      continue;
    }
    for (int32_t a : data.attributes_at(first + t)) {
      for (int32_t f = params.attribute_offsets[a]; f < params.attribute_offsets[a + 1]; ++f) {
        row[params.feature_labels[f]] += w[f];
      }
    }
  }
  params.FillChain(absl::MakeConstSpan(w, params.size()), lattice);
  ApplyTransitionMask(data.mask, lattice);
}

void EnableSecondOrder(TrainingData* data) {
  ModelParameters& params = data->parameters;
  if (params.order == 2) return;
  const int n = params.num_labels;
  params.order = 2;
  params.weights.resize(params.size(), 0.0);
  const bool weighted = data->weighted();
  if (weighted) {
    data->weighted_empirical.resize(params.size(), 0.0);
  } else {
    data->empirical.resize(params.size(), 0);
  }
  for (int s = 0; s < data->num_sentences(); ++s) {
    const int64_t begin = data->sentence_offsets[s];
    for (int64_t p = begin + 1; p < data->sentence_offsets[s + 1]; ++p) {
      const int a = p - 1 == begin ? n : data->gold[p - 2];
      const int64_t f =
          params.trigram_offset() + (int64_t{a} * n + data->gold[p - 1]) * n + data->gold[p];
      if (weighted) {
        data->weighted_empirical[f] += 1.0;
      } else {
        ++data->empirical[f];
      }
    }
  }
  if (!weighted) {
    SumOverRanks(data->ranks, absl::MakeSpan(data->empirical).subspan(params.trigram_offset()));
  }
}

namespace {

// Drops attributes seen fewer than `min_count` times: renumbers the kept ones in first-occurrence
// Renumbers the position CSR's attribute ids through `remap` (-1 drops the occurrence), in place.
void RemapAttributes(const std::vector<int32_t>& remap, TrainingData* data) {
  std::vector<int32_t>& attrs = data->position_attributes;
  std::vector<float>& values = data->position_values;
  const bool weighted = !values.empty();
  std::vector<int64_t>& offsets = data->position_offsets;
  int64_t read = 0, write = 0;
  for (size_t p = 0; p + 1 < offsets.size(); ++p) {
    const int64_t end = offsets[p + 1];
    for (; read < end; ++read) {
      const int32_t id = remap[attrs[read]];
      if (id >= 0) {
        if (weighted) values[write] = values[read];
        attrs[write++] = id;
      }
    }
    offsets[p + 1] = write;
  }
  attrs.resize(write);
  if (weighted) values.resize(write);
}

// Drops attributes seen fewer than `min_count` times: renumbers the kept ones in first-occurrence
// order (as BuildAttributeDictionary does) and compacts the position CSR in place.
void DropRareAttributes(const std::vector<int64_t>& counts, int64_t min_count, TrainingData* data) {
  std::vector<int32_t> remap(counts.size(), -1);
  AttributeDictionary kept;
  for (int id = 0; id < data->attributes.size(); ++id) {
    if (counts[id] >= min_count) remap[id] = kept.Insert(data->attributes.name_view(id));
  }
  data->attributes = std::move(kept);
  RemapAttributes(remap, data);
}

// Where an attribute first occurred: (sentence index in the stream, emission index in it). The
// single-process dictionary numbers attributes in this order.
struct FirstSeen {
  int64_t sentence;
  int64_t emission;
  bool operator<(const FirstSeen& o) const {
    return sentence != o.sentence ? sentence < o.sentence : emission < o.emission;
  }
};

template <typename T>
void AppendRaw(std::string* out, T value) {
  out->append(reinterpret_cast<const char*>(&value), sizeof(value));
}
template <typename T>
T ReadRaw(const char** p) {
  T value;
  std::memcpy(&value, *p, sizeof(value));
  *p += sizeof(value);
  return value;
}

// Turns this rank's dictionary (ids in local first-occurrence order, `first` and `counts` per id;
// counts empty when nothing is dropped) into the single-process one: the union of every rank's
// attributes in order of global first occurrence, without those seen fewer than `min_count` times
// in all, and renumbers the position CSR to it. Every rank receives every rank's dictionary.
void MergeDictionaries(Communicator* ranks, const std::vector<FirstSeen>& first,
                       const std::vector<int64_t>& counts, int64_t min_count, TrainingData* data) {
  std::string mine;
  for (int id = 0; id < data->attributes.size(); ++id) {
    const std::string_view name = data->attributes.name_view(id);
    AppendRaw(&mine, first[id].sentence);
    AppendRaw(&mine, first[id].emission);
    AppendRaw(&mine, counts.empty() ? int64_t{0} : counts[id]);
    AppendRaw(&mine, static_cast<uint32_t>(name.size()));
    mine.append(name);
  }
  const std::vector<std::string> all = ranks->AllGather(mine);
  std::string().swap(mine);
  struct Entry {
    FirstSeen first;
    int64_t count;
    int32_t id = -1;
  };
  absl::flat_hash_map<std::string_view, Entry> merged;
  for (const std::string& part : all) {
    const char* p = part.data();
    const char* end = p + part.size();
    while (p < end) {
      FirstSeen seen;
      seen.sentence = ReadRaw<int64_t>(&p);
      seen.emission = ReadRaw<int64_t>(&p);
      const int64_t count = ReadRaw<int64_t>(&p);
      const uint32_t size = ReadRaw<uint32_t>(&p);
      const std::string_view name(p, size);
      p += size;
      auto [it, inserted] = merged.try_emplace(name, Entry{seen, count});
      if (!inserted) {
        it->second.count += count;
        if (seen < it->second.first) it->second.first = seen;
      }
    }
  }
  struct Ranked {
    FirstSeen first;
    std::string_view name;
    Entry* entry;
  };
  std::vector<Ranked> order;
  order.reserve(merged.size());
  for (auto& [name, entry] : merged) order.push_back({entry.first, name, &entry});
  std::sort(order.begin(), order.end(),
            [](const Ranked& a, const Ranked& b) { return a.first < b.first; });
  AttributeDictionary global;
  for (const Ranked& r : order) {
    if (counts.empty() || r.entry->count >= min_count) r.entry->id = global.Insert(r.name);
  }
  std::vector<Ranked>().swap(order);
  std::vector<int32_t> remap(data->attributes.size());
  for (int id = 0; id < data->attributes.size(); ++id)
    remap[id] = merged.find(data->attributes.name_view(id))->second.id;
  data->attributes = std::move(global);
  RemapAttributes(remap, data);
}

// Whether a model file can store `text` by `rule` (model_file::CheckModelString), checked while
// the data is read, so a bad label or attribute stops training at its FILE:LINE instead of the
// save after training. Printable ASCII (the usual case) passes without the full check.
absl::Status CheckStorable(std::string_view text, model_file::StringRule rule,
                           std::string_view what, const Sentence& sentence, int t) {
  bool printable = !text.empty();
  for (const char c : text)
    printable &= c >= 0x20 && c < 0x7F && (c != ' ' || rule != model_file::StringRule::kName);
  if (printable) return absl::OkStatus();
  absl::Status st = model_file::CheckModelString(text, rule, what, Location(sentence, t));
  return st.ok() ? st : absl::InvalidArgumentError(st.message());
}

}  // namespace

absl::StatusOr<TrainingData> BuildTrainingDataStreaming(const FeatureSpec& spec, SentencePull next,
                                                        int min_feature_count, int max_labels,
                                                        bool label_history, Communicator* ranks) {
  const bool distributed = IsDistributed(ranks);
  const int64_t num_ranks = distributed ? ranks->size() : 1;
  const int64_t rank = distributed ? ranks->rank() : 0;
  Featurizer featurizer(spec);
  std::optional<HistoryFeaturizer> history;
  if (label_history) history.emplace(spec);
  std::vector<int> gold_history;
  TrainingData data;
  // Labels get ids in first-seen order here and are sorted (and gold renumbered) at the end.
  absl::flat_hash_map<std::string, int> label_ids;
  std::vector<std::string> labels;
  const bool count = min_feature_count > 1;
  std::vector<int64_t> counts;        // occurrences per attribute id, only when some may be dropped
  std::vector<FirstSeen> first_seen;  // per attribute id, only when distributed
  int64_t emission = 0;               // attribute occurrences emitted in the current sentence
  // Per-sentence scratch: (position, id) in emission order, bucketed by position afterwards.
  std::vector<int32_t> emitted_positions, emitted_ids, cursor;
  bool weighted = false;  // some attribute value is not 1 (attribute input)
  int64_t num_sentences = 0;
  bool saw_tokens = false;  // on any rank
  data.sentence_offsets.push_back(0);
  data.position_offsets.push_back(0);
  for (;;) {
    absl::StatusOr<const Sentence*> next_or = next();
    if (!next_or.ok()) return next_or.status();
    const Sentence* sentence = *next_or;
    if (sentence == nullptr) break;
    const int64_t index = num_sentences++;
    const int m = sentence->size();
    if (m == 0) continue;
    // Every rank checks and reads the labels of every sentence (so errors and label ids agree);
    // only the owner featurizes it.
    const bool mine = index % num_ranks == rank;
    if (mine) {
      if (data.files.empty() || data.files.back() != sentence->file) {
        data.files.push_back(sentence->file);
      }
      data.sentence_file.push_back(static_cast<int32_t>(data.files.size()) - 1);
      data.sentence_line.push_back(sentence->token_lines.empty() ? 0 : sentence->token_lines[0]);
    }
    if (static_cast<int>(sentence->labels.size()) != m) {
      return ErrorAt(*sentence, 0,
                     absl::StrCat("expected a gold label for each of the ", m, " tokens, found ",
                                  sentence->labels.size(), " labels"));
    }
    // CheckColumns's message names the file and line itself.
    if (absl::Status status = featurizer.CheckColumns(*sentence); !status.ok()) return status;
    // Interning while featurizing gives the ids BuildAttributeDictionary + Featurize would give,
    // in one pass instead of two.
    emitted_positions.clear();
    emitted_ids.clear();
    emission = 0;
    if (mine && spec.reads_attributes()) {
      // Attribute input: values come in emission order (positions in order, as bucketed below).
      const int64_t base = static_cast<int64_t>(data.position_attributes.size());
      const std::vector<float>& values = sentence->attribute_values;
      for (size_t k = 0; k < values.size(); ++k) {
        if (values[k] != 1.0f && !weighted) {
          weighted = true;
          data.position_values.assign(base + static_cast<int64_t>(k), 1.0f);
        }
        if (weighted) data.position_values.push_back(values[k]);
      }
    }
    absl::Status unstorable;  // the first new attribute a model file cannot store
    auto check_new = [&](int id, int t, std::string_view attribute) {
      if (id + 1 == data.attributes.size() && unstorable.ok()) {
        unstorable = CheckStorable(attribute, model_file::StringRule::kLine,
                                   "the feature attribute", *sentence, t);
      }
    };
    // Interns an attribute of position t, keeping counts and (distributed) first occurrences.
    auto intern = [&](int t, std::string_view attribute) {
      const int id = data.attributes.Insert(attribute);
      check_new(id, t, attribute);
      if (count) {
        if (id == static_cast<int>(counts.size())) counts.push_back(0);
        ++counts[id];
      }
      if (distributed && id == static_cast<int>(first_seen.size())) {
        first_seen.push_back({index, emission});
      }
      ++emission;
      emitted_positions.push_back(t);
      emitted_ids.push_back(id);
    };
    if (mine) featurizer.ForEachAttribute(*sentence, intern);
    if (mine && history.has_value()) {
      // Gold history: position t sees the gold labels of 0..t-1.
      history->Prepare(*sentence);
      HistoryFeaturizer::State state = history->Initial();
      gold_history.clear();
      for (int t = 0; t < m; ++t) {
        history->ForEachAttribute(t, gold_history, state,
                                  [&](std::string_view attribute) { intern(t, attribute); });
        gold_history.push_back(history->InternLabel(sentence->labels[t]));
        history->Advance(gold_history.back(), &state);
      }
    }
    if (!unstorable.ok()) return unstorable;
    if (mine) {
      // Stable bucketing by position keeps each position's ids in emission (template) order.
      cursor.assign(m + 1, 0);
      for (int32_t t : emitted_positions) ++cursor[t + 1];
      const int64_t base = static_cast<int64_t>(data.position_attributes.size());
      for (int t = 0; t < m; ++t) {
        cursor[t + 1] += cursor[t];
        data.position_offsets.push_back(base + cursor[t + 1]);
      }
      data.position_attributes.resize(base + emitted_ids.size());
      int32_t* out = data.position_attributes.data() + base;
      for (size_t k = 0; k < emitted_ids.size(); ++k)
        out[cursor[emitted_positions[k]]++] = emitted_ids[k];
    }
    for (size_t t = 0; t < sentence->labels.size(); ++t) {
      const std::string& label = sentence->labels[t];
      auto [it, inserted] = label_ids.emplace(label, static_cast<int>(labels.size()));
      if (inserted && static_cast<int>(labels.size()) >= max_labels) {
        const double n = max_labels + 1.0;
        return ErrorAt(
            *sentence, static_cast<int64_t>(t),
            absl::StrCat(
                "expected at most ", max_labels, " distinct labels (--max-labels), found more at '",
                label, "'; is the label column right? ",
                "Each label pair has a transition weight, so ", max_labels + 1,
                " labels need over ", static_cast<int64_t>(n * n * 8 * 8 / (1 << 20)) + 1,
                " MB for transitions alone while training, growing with the square of the count"));
      }
      if (inserted) {
        if (absl::Status st = CheckStorable(label, model_file::StringRule::kName, "the label",
                                            *sentence, static_cast<int>(t));
            !st.ok()) {
          return st;
        }
        labels.push_back(label);
      }
      if (mine) data.gold.push_back(it->second);
    }
    if (mine) data.sentence_offsets.push_back(static_cast<int64_t>(data.gold.size()));
    saw_tokens = true;
  }
  if (num_sentences == 0)
    return absl::InvalidArgumentError("training data: expected sentences, found none");
  if (!saw_tokens) {
    return absl::InvalidArgumentError("training data: expected tokens, found only empty sentences");
  }
  std::vector<int> order(labels.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int>(i);
  std::sort(order.begin(), order.end(), [&](int a, int b) { return labels[a] < labels[b]; });
  std::vector<int32_t> sorted_id(labels.size());
  for (size_t i = 0; i < order.size(); ++i) {
    sorted_id[order[i]] = static_cast<int32_t>(i);
    data.labels.push_back(std::move(labels[order[i]]));
  }
  for (int32_t& y : data.gold) y = sorted_id[y];
  if (distributed) {
    // One rank's attribute values cannot be weighted while another's are all 1.
    uint64_t any_weighted = weighted ? 1 : 0;
    ranks->OrBits(absl::MakeSpan(&any_weighted, 1));
    if (any_weighted != 0) {
      return absl::UnimplementedError(
          "attribute input with values other than 1: training over MPI ranks sums them in "
          "floating point, which would depend on the ranks; train in one process");
    }
    MergeDictionaries(ranks, first_seen, counts, min_feature_count, &data);
    data.ranks = ranks;
  } else if (count) {
    DropRareAttributes(counts, min_feature_count, &data);
  }
  if (weighted) {
    // Training sums value x marginal in fixed point (CrfObjective::kFixedBits): keep every
    // feature's total far from the int64 range.
    std::vector<double> sums(data.attributes.size(), 0.0);
    for (size_t k = 0; k < data.position_attributes.size(); ++k)
      sums[data.position_attributes[k]] += std::abs(data.position_values[k]);
    for (size_t a = 0; a < sums.size(); ++a) {
      if (sums[a] > kMaxAttributeWeightSum) {
        return absl::InvalidArgumentError(
            absl::StrCat("training data: expected the absolute weights of attribute '",
                         ToAbsl(data.attributes.name_view(static_cast<int>(a))),
                         "' to sum to at most ", kMaxAttributeWeightSum, " over the corpus, found ",
                         sums[a], "; scale the weights down"));
      }
    }
  }
  data.position_values.shrink_to_fit();
  data.position_attributes.shrink_to_fit();
  data.position_offsets.shrink_to_fit();
  data.sentence_offsets.shrink_to_fit();
  data.gold.shrink_to_fit();
  BuildFeatureSet(&data);
  return data;
}

absl::StatusOr<TrainingData> BuildTrainingData(const FeatureSpec& spec,
                                               const std::vector<Sentence>& corpus,
                                               int min_feature_count) {
  size_t i = 0;
  return BuildTrainingDataStreaming(
      spec,
      [&]() -> absl::StatusOr<const Sentence*> {
        return i < corpus.size() ? &corpus[i++] : nullptr;
      },
      min_feature_count);
}

}  // namespace train_internal
}  // namespace chaintag
