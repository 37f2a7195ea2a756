// Label-history attributes for the left-to-right large-margin model (LMSBN; X. Miao and
// R. P. N. Rao, "Large Margin Boltzmann Machines and Large Margin Sigmoid Belief Networks").
#include <algorithm>
#include <array>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "chaintag/chunks.h"
#include "chaintag/features.h"
#include "features/featurizer.h"
#include "features/functions.h"
#include "features/template.h"

namespace chaintag {

using features::HistoryKind;
using features::HistoryRef;
using features::kHistoryCountCap;
using features::kHistoryLengthCap;
using features::kMaxHistoryRefs;

namespace {

// Cache key: position, template and the template's history values.
struct CacheKey {
  int32_t t = 0;
  int32_t tmpl = 0;
  std::array<int32_t, kMaxHistoryRefs> values{};
  bool operator==(const CacheKey&) const = default;
  template <typename H>
  friend H AbslHashValue(H h, const CacheKey& k) {
    return H::combine(std::move(h), k.t, k.tmpl, k.values);
  }
};

// Bounds the per-sentence id cache (a long search on a long sentence).
constexpr size_t kMaxCacheEntries = size_t{1} << 20;

bool MatchesPattern(std::string_view pattern, std::string_view label) {
  if (pattern.ends_with("*")) return label.starts_with(pattern.substr(0, pattern.size() - 1));
  return label == pattern;
}

}  // namespace

struct HistoryFeaturizer::Impl {
  FeatureSpec spec;
  const FeatureSpec::Impl* s = nullptr;
  // Per history reference: its counter (kLabelCount, kChunkCount) or -1.
  std::vector<int> counter_of_ref;
  int num_counters = 0;
  // Per template: the history reference of each history piece, in order.
  std::vector<std::vector<int>> template_refs;

  struct Label {
    std::string name;
    char prefix = 'O';
    int type = -1;
    std::vector<char> counts;  // per counter: 1 if this label adds to it when it begins/occurs
  };
  std::vector<Label> labels;
  absl::flat_hash_map<std::string, int> label_ids;
  std::vector<std::string> types;
  absl::flat_hash_map<std::string, int> type_ids;

  // The prepared sentence.
  int n = 0;
  // segments[h][t * (refs + 1) + i]: rendered text before history piece i (and after the last).
  std::vector<std::vector<std::string>> segments;
  std::vector<int> prev_same;  // previous position with the same word form, or -1
  absl::flat_hash_map<CacheKey, int32_t> cache;
  const AttributeDictionary* cache_dict = nullptr;
  int32_t bias_id = -1;
  std::string scratch, tmp_a, tmp_b;

  int Intern(std::string_view name) {
    auto [it, inserted] = label_ids.try_emplace(std::string(name), static_cast<int>(labels.size()));
    if (!inserted) return it->second;
    Label l;
    l.name = std::string(name);
    const ChunkTag tag = ParseChunkTag(name);
    l.prefix = tag.prefix;
    if (tag.prefix != 'O') {
      auto [tt, fresh] = type_ids.try_emplace(tag.type, static_cast<int>(types.size()));
      if (fresh) types.push_back(tag.type);
      l.type = tt->second;
    }
    l.counts.assign(num_counters, 0);
    for (size_t r = 0; r < s->history_refs.size(); ++r) {
      const int c = counter_of_ref[r];
      if (c < 0) continue;
      const HistoryRef& ref = s->history_refs[r];
      l.counts[c] = ref.kind == HistoryKind::kLabelCount
                        ? MatchesPattern(ref.arg, name)
                        : (tag.prefix != 'O' && tag.type == ref.arg);
    }
    labels.push_back(std::move(l));
    return it->second;
  }

  // The value code of reference r at t (see Render).
  int Value(int r, int t, absl::Span<const int> history, const State& state) const {
    const HistoryRef& ref = s->history_refs[r];
    switch (ref.kind) {
      case HistoryKind::kLabel:
        return t - ref.back >= 0 ? history[t - ref.back] : t - ref.back;
      case HistoryKind::kChunkType:
        return state.open_type;
      case HistoryKind::kChunkLength:
        return std::min(state.open_length, kHistoryLengthCap);
      case HistoryKind::kPrevChunkType:
        return state.prev_type;
      case HistoryKind::kLabelCount:
      case HistoryKind::kChunkCount:
        return state.counts[counter_of_ref[r]];
      case HistoryKind::kSameWord:
        return prev_same[t] >= 0 ? history[prev_same[t]] : -1;
    }
    return 0;
  }

  void Render(int r, int code, std::string* out) const {
    switch (s->history_refs[r].kind) {
      case HistoryKind::kLabel:
        if (code >= 0) {
          out->append(labels[code].name);
        } else {
          absl::StrAppend(out, "_B-", -code);
        }
        return;
      case HistoryKind::kChunkType:
      case HistoryKind::kPrevChunkType:
        out->append(code >= 0 ? types[code] : "-");
        return;
      case HistoryKind::kChunkLength:
      case HistoryKind::kLabelCount:
      case HistoryKind::kChunkCount:
        absl::StrAppend(out, code);
        return;
      case HistoryKind::kSameWord:
        out->append(code >= 0 ? labels[code].name : "-");
        return;
    }
  }

  // Appends the cell value of `source` at position `pos` (markers outside the sentence).
  void AppendCell(const Sentence& sentence, const features::CellSource& source, int pos,
                  std::string* out) {
    if (pos < 0) {
      absl::StrAppend(out, "_B-", -pos);
      return;
    }
    if (pos >= n) {
      absl::StrAppend(out, "_B+", pos - n + 1);
      return;
    }
    if (source.column >= sentence.num_columns()) return;
    const std::vector<std::string>& column = sentence.columns[source.column];
    if (pos >= static_cast<int>(column.size())) return;
    std::string_view v = column[pos];
    if (source.functions.empty()) {
      out->append(v);
      return;
    }
    for (size_t f = 0; f + 1 < source.functions.size(); ++f) {
      tmp_b.clear();
      features::ApplyCellFunction(source.functions[f], v, &tmp_b, &s->resources);
      std::swap(tmp_a, tmp_b);
      v = tmp_a;
    }
    features::ApplyCellFunction(source.functions.back(), v, out, &s->resources);
  }

  // Writes the attribute string of history template h at t into `scratch`.
  void Build(int h, int t, const int32_t* codes) {
    const std::vector<int>& refs = template_refs[h];
    const std::string* seg = segments[h].data() + static_cast<size_t>(t) * (refs.size() + 1);
    scratch.clear();
    for (size_t i = 0; i < refs.size(); ++i) {
      scratch.append(seg[i]);
      Render(refs[i], codes[i], &scratch);
    }
    scratch.append(seg[refs.size()]);
  }
};

HistoryFeaturizer::HistoryFeaturizer(FeatureSpec spec) : impl_(std::make_unique<Impl>()) {
  Impl& m = *impl_;
  m.spec = std::move(spec);
  m.s = &m.spec.impl();
  m.counter_of_ref.assign(m.s->history_refs.size(), -1);
  for (size_t r = 0; r < m.s->history_refs.size(); ++r) {
    const HistoryKind k = m.s->history_refs[r].kind;
    if (k == HistoryKind::kLabelCount || k == HistoryKind::kChunkCount) {
      m.counter_of_ref[r] = m.num_counters++;
    }
  }
  for (const features::UnigramTemplate& tmpl : m.s->history_templates) {
    std::vector<int> refs;
    for (const features::TemplatePiece& p : tmpl.pieces) {
      if (p.history >= 0) refs.push_back(p.history);
    }
    m.template_refs.push_back(std::move(refs));
  }
}

HistoryFeaturizer::~HistoryFeaturizer() = default;
HistoryFeaturizer::HistoryFeaturizer(HistoryFeaturizer&&) noexcept = default;
HistoryFeaturizer& HistoryFeaturizer::operator=(HistoryFeaturizer&&) noexcept = default;

void HistoryFeaturizer::SetLabels(const std::vector<std::string>& labels) {
  Impl& m = *impl_;
  m.labels.clear();
  m.label_ids.clear();
  m.types.clear();
  m.type_ids.clear();
  for (const std::string& l : labels) m.Intern(l);
  m.cache.clear();
}

int HistoryFeaturizer::InternLabel(std::string_view label) {
  const int before = num_labels();
  const int id = impl_->Intern(label);
  // A new label may be a new type name that cached strings did not know about; ids stay valid,
  // but keep the cache exact anyway.
  if (num_labels() != before) impl_->cache.clear();
  return id;
}

int HistoryFeaturizer::num_labels() const { return static_cast<int>(impl_->labels.size()); }

HistoryFeaturizer::State HistoryFeaturizer::Initial() const {
  State state;
  state.counts.assign(impl_->num_counters, 0);
  return state;
}

void HistoryFeaturizer::Advance(int label, State* state) const {
  const Impl& m = *impl_;
  const Impl::Label& cur = m.labels[label];
  const char prev_prefix = state->last_label < 0 ? 'O' : m.labels[state->last_label].prefix;
  const int prev_type = state->last_label < 0 ? -1 : m.labels[state->last_label].type;
  const bool same_type = prev_type == cur.type;
  const bool starts = ChunkStarts(prev_prefix, cur.prefix, same_type);
  const bool ends = ChunkEnds(prev_prefix, cur.prefix, same_type);
  // As ExtractChunks: the open chunk closes when the next tag ends it or starts a new one.
  if (state->open_type >= 0 && (ends || starts)) {
    state->prev_type = state->open_type;
    state->open_type = -1;
    state->open_length = 0;
  }
  if (starts) {
    state->open_type = cur.type;
    state->open_length = 1;
  } else if (state->open_type >= 0) {
    ++state->open_length;
  }
  for (size_t r = 0; r < m.counter_of_ref.size(); ++r) {
    const int c = m.counter_of_ref[r];
    if (c < 0 || !cur.counts[c]) continue;
    // Chunk counters count chunk starts; label counters every occurrence.
    if (m.s->history_refs[r].kind == HistoryKind::kChunkCount && !starts) continue;
    state->counts[c] = std::min(state->counts[c] + 1, kHistoryCountCap);
  }
  state->last_label = label;
}

void HistoryFeaturizer::Prepare(const Sentence& sentence) {
  Impl& m = *impl_;
  m.n = sentence.size();
  m.cache.clear();
  const size_t num_templates = m.s->history_templates.size();
  m.segments.resize(num_templates);
  for (size_t h = 0; h < num_templates; ++h) {
    const features::UnigramTemplate& tmpl = m.s->history_templates[h];
    const size_t stride = m.template_refs[h].size() + 1;
    std::vector<std::string>& seg = m.segments[h];
    seg.resize(stride * m.n);
    for (int t = 0; t < m.n; ++t) {
      size_t i = 0;
      std::string* out = &seg[t * stride];
      out->clear();
      for (const features::TemplatePiece& p : tmpl.pieces) {
        if (p.history >= 0) {
          out = &seg[t * stride + ++i];
          out->clear();
        } else if (p.source >= 0) {
          m.AppendCell(sentence, m.s->sources[p.source], t + p.row, out);
        } else {
          out->append(p.literal);
        }
      }
    }
  }
  m.prev_same.assign(m.n, -1);
  if (sentence.num_columns() > 0) {
    absl::flat_hash_map<std::string_view, int> last;
    const std::vector<std::string>& words = sentence.columns[0];
    for (int t = 0; t < m.n && t < static_cast<int>(words.size()); ++t) {
      auto [it, inserted] = last.try_emplace(words[t], t);
      if (!inserted) {
        m.prev_same[t] = it->second;
        it->second = t;
      }
    }
  }
}

void HistoryFeaturizer::ForEachAttribute(int t, absl::Span<const int> history, const State& state,
                                         const std::function<void(std::string_view)>& sink) {
  Impl& m = *impl_;
  sink(kBiasAttribute);
  std::array<int32_t, kMaxHistoryRefs> codes{};
  for (size_t h = 0; h < m.template_refs.size(); ++h) {
    const std::vector<int>& refs = m.template_refs[h];
    for (size_t i = 0; i < refs.size(); ++i) codes[i] = m.Value(refs[i], t, history, state);
    m.Build(static_cast<int>(h), t, codes.data());
    sink(m.scratch);
  }
}

void HistoryFeaturizer::FindIds(int t, absl::Span<const int> history, const State& state,
                                const AttributeDictionary& dict, std::vector<int32_t>* ids) {
  Impl& m = *impl_;
  if (m.cache_dict != &dict) {
    m.cache.clear();
    m.cache_dict = &dict;
    m.bias_id = dict.Find(kBiasAttribute);
  }
  if (m.bias_id >= 0) ids->push_back(m.bias_id);
  if (m.cache.size() > kMaxCacheEntries) m.cache.clear();
  CacheKey key;
  key.t = t;
  for (size_t h = 0; h < m.template_refs.size(); ++h) {
    const std::vector<int>& refs = m.template_refs[h];
    key.tmpl = static_cast<int32_t>(h);
    for (size_t i = 0; i < refs.size(); ++i) key.values[i] = m.Value(refs[i], t, history, state);
    auto [it, inserted] = m.cache.try_emplace(key, -1);
    if (inserted) {
      m.Build(static_cast<int>(h), t, key.values.data());
      it->second = dict.Find(m.scratch);
    }
    if (it->second >= 0) ids->push_back(it->second);
  }
}

}  // namespace chaintag
