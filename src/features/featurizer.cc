#include "features/featurizer.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "chaintag/features.h"
#include "features/functions.h"
#include "features/template.h"

namespace chaintag {

// Per-sentence values of every cell source, reused across sentences (no allocation once warm).
struct Featurizer::Scratch {
  int n = 0;
  std::vector<std::string_view> values;              // values[source * n + t]
  std::vector<std::pair<uint32_t, uint32_t>> spans;  // arena [begin, end) of derived values
  std::string arena;
  std::string tmp_a, tmp_b;
  std::string keys;                   // all attribute strings of the sentence, concatenated
  std::vector<uint32_t> key_ends;     // end offset of each in `keys`
  std::vector<uint64_t> hashes;       // AttributeDictionary::Hash of each
  std::vector<size_t> source_bytes;   // total bytes of each source's values in the sentence
  std::vector<std::string> position;  // for Attributes()

  // The value cache (EnableValueCache): one per input column read by the templates.
  struct ColumnCache {
    int column = 0;
    std::vector<int> sources;    // sources reading this column
    std::vector<int> templates;  // templates whose cells all read this column at one row
    absl::flat_hash_map<std::string, int32_t> index;   // cell value -> entry
    std::vector<int32_t> ids;                          // [entry * templates.size() + slot]
    std::vector<std::pair<uint32_t, uint32_t>> spans;  // [entry * sources.size() + k] in arena
    std::string arena;
    std::vector<int32_t> entries;  // entry of each token of the current sentence
    void Clear() {
      index.clear();
      ids.clear();
      spans.clear();
      arena.clear();
    }
  };
  const AttributeDictionary* cache_dict = nullptr;
  int cache_dict_size = 0;
  int cache_max_values = 0;
  std::vector<ColumnCache> caches;
  std::vector<int> template_cache;   // per template: its ColumnCache, or -1 (several cells/columns)
  std::vector<int> template_slot;    // per template: its slot in that cache's `templates`
  std::vector<int> template_row;     // per template: the row offset of its cells
  std::vector<int> source_cache;     // per source: its ColumnCache
  std::vector<int> source_slot;      // per source: its index in that cache's `sources`
  std::vector<int32_t> cell_ids;     // per (t, template): id, -1 absent, or -2 - pending key
  std::vector<int32_t> pending_ids;  // ids of the block's looked-up keys
  std::string new_keys;              // attribute strings of the sentence's new cache entries
  std::vector<uint32_t> new_key_ends;  // end offset of each in `new_keys`

  // Ids of several-cell templates reading one small-vocabulary column (POS n-grams), keyed by
  // the cells' cache entries: the key names the attribute string exactly while the entries hold.
  std::vector<int> combo_cache;  // per template: the ColumnCache of all its cells, or -1
  std::vector<absl::flat_hash_map<uint64_t, int32_t>> combo_ids;  // per template
  struct PendingCombo {
    int template_index;
    uint64_t key;
    size_t pending;
  };
  std::vector<PendingCombo> pending_combos;
  std::vector<int> active_combos;  // templates served by combo_ids in the current sentence
  void ClearCombos(int cache) {
    for (size_t j = 0; j < combo_cache.size(); ++j) {
      if (combo_cache[j] == cache) combo_ids[j].clear();
    }
  }
};

namespace {

// Combo keys give each cell 13 bits: a cache entry below kComboMaxValues, or a marker code.
// Positions featurized at a time: scratch stays bounded for sentences of any length.
constexpr int kBlockPositions = 256;
constexpr int kComboBits = 13;
constexpr int kComboMaxValues = 1 << 12;
constexpr int kComboMaxRow = 63;
constexpr int kComboMaxPieces = 64 / kComboBits;
constexpr size_t kComboMaxIds = size_t{1} << 16;

}  // namespace

Featurizer::Featurizer(FeatureSpec spec) : spec_(std::move(spec)), scratch_(new Scratch) {}
Featurizer::~Featurizer() = default;
Featurizer::Featurizer(Featurizer&&) noexcept = default;
Featurizer& Featurizer::operator=(Featurizer&&) noexcept = default;

absl::Status Featurizer::CheckColumns(const Sentence& sentence) const {
  if (spec_.reads_attributes()) {
    if (!sentence.has_attributes()) {
      return ErrorAt(sentence, 0,
                     "expected attribute input (the model was trained on --format attributes), "
                     "found columns");
    }
    const size_t k = sentence.attribute_names.size();
    if (sentence.attribute_offsets.size() != static_cast<size_t>(sentence.size()) + 1 ||
        sentence.attribute_values.size() != k || sentence.attribute_offsets.front() != 0 ||
        sentence.attribute_offsets.back() != static_cast<int32_t>(k) ||
        !std::is_sorted(sentence.attribute_offsets.begin(), sentence.attribute_offsets.end())) {
      return ErrorAt(sentence, 0,
                     "expected attribute offsets, names and values that agree with the tokens");
    }
    return absl::OkStatus();
  }
  if (sentence.has_attributes()) {
    return ErrorAt(sentence, 0,
                   "expected the input columns the model's templates read, found attribute input "
                   "(--format attributes is for models trained on attributes)");
  }
  const int needed = spec_.num_input_columns();
  const std::string where = Location(sentence);
  if (sentence.num_columns() < needed) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, ": expected at least ", needed, " input column", needed == 1 ? "" : "s",
                     " (the feature templates read column ", needed - 1, ", 0-based), found ",
                     sentence.num_columns()));
  }
  for (int c = 1; c < sentence.num_columns(); ++c) {
    if (sentence.columns[c].size() != sentence.columns[0].size()) {
      return absl::InvalidArgumentError(absl::StrCat(where, ": expected ", sentence.size(),
                                                     " values in input column ", c, ", found ",
                                                     sentence.columns[c].size()));
    }
  }
  return absl::OkStatus();
}

void Featurizer::Prepare(const Sentence& sentence) {
  const FeatureSpec::Impl& impl = spec_.impl();
  Scratch& s = *scratch_;
  const int n = sentence.size();
  const int num_sources = static_cast<int>(impl.sources.size());
  s.n = n;
  s.values.assign(static_cast<size_t>(num_sources) * n, std::string_view());
  s.spans.resize(s.values.size());
  s.arena.clear();
  bool any_derived = false;
  for (int src = 0; src < num_sources; ++src) {
    const features::CellSource& source = impl.sources[src];
    if (source.column >= sentence.num_columns()) continue;  // CheckColumns reports this
    const std::vector<std::string>& column = sentence.columns[source.column];
    const int rows = std::min<int>(n, column.size());
    std::string_view* values = s.values.data() + static_cast<size_t>(src) * n;
    const size_t num_functions = source.functions.size();
    if (num_functions == 0) {
      for (int t = 0; t < rows; ++t) values[t] = column[t];
      continue;
    }
    any_derived = true;
    auto* spans = s.spans.data() + static_cast<size_t>(src) * n;
    for (int t = 0; t < rows; ++t) {
      std::string_view value = column[t];
      // Inner functions go through two ping-pong buffers; the last one writes into the arena.
      for (size_t f = 0; f + 1 < num_functions; ++f) {
        s.tmp_b.clear();
        features::ApplyCellFunction(source.functions[f], value, &s.tmp_b, &impl.resources);
        std::swap(s.tmp_a, s.tmp_b);
        value = s.tmp_a;
      }
      const auto begin = static_cast<uint32_t>(s.arena.size());
      features::ApplyCellFunction(source.functions.back(), value, &s.arena, &impl.resources);
      spans[t] = {begin, static_cast<uint32_t>(s.arena.size())};
    }
  }
  if (!any_derived) return;
  // The arena may have moved while growing, so views are made only now.
  for (int src = 0; src < num_sources; ++src) {
    const features::CellSource& source = impl.sources[src];
    if (source.functions.empty() || source.column >= sentence.num_columns()) continue;
    const int rows = std::min<int>(n, sentence.columns[source.column].size());
    const size_t base = static_cast<size_t>(src) * n;
    for (int t = 0; t < rows; ++t) {
      const auto [b, e] = s.spans[base + t];
      s.values[base + t] = std::string_view(s.arena.data() + b, e - b);
    }
  }
}

namespace {

// Copies n bytes without a library call for the short pieces attributes are made of.
inline char* CopyBytes(char* dst, const char* src, size_t n) {
  if (n >= 8 && n <= 16) {
    uint64_t head, tail;
    std::memcpy(&head, src, 8);
    std::memcpy(&tail, src + n - 8, 8);
    std::memcpy(dst, &head, 8);
    std::memcpy(dst + n - 8, &tail, 8);
  } else if (n >= 4 && n < 8) {
    uint32_t head, tail;
    std::memcpy(&head, src, 4);
    std::memcpy(&tail, src + n - 4, 4);
    std::memcpy(dst, &head, 4);
    std::memcpy(dst + n - 4, &tail, 4);
  } else if (n > 0 && n < 4) {
    dst[0] = src[0];
    dst[n / 2] = src[n / 2];
    dst[n - 1] = src[n - 1];
  } else if (n > 16) {
    std::memcpy(dst, src, n);
  }
  return dst + n;
}

// Writes the attribute string of `tmpl` at position t to `dst` (which has room for it).
inline char* WriteAttribute(const FeatureSpec::Impl& impl, const features::UnigramTemplate& tmpl,
                            const std::string_view* values, int n, int t, char* dst) {
  for (const features::TemplatePiece& piece : tmpl.pieces) {
    std::string_view v;
    if (piece.source < 0) {
      v = piece.literal;
    } else {
      const int r = t + piece.row;
      if (r < 0) {
        v = impl.before_markers[-r - 1];
      } else if (r >= n) {
        v = impl.after_markers[r - n];
      } else {
        v = values[static_cast<size_t>(piece.source) * n + r];
      }
    }
    dst = CopyBytes(dst, v.data(), v.size());
  }
  return dst;
}

// Appends the attribute string of `tmpl` at position t to *key.
inline void BuildAttribute(const FeatureSpec::Impl& impl, const features::UnigramTemplate& tmpl,
                           const std::string_view* values, int n, int t, std::string* key) {
  for (const features::TemplatePiece& piece : tmpl.pieces) {
    if (piece.source < 0) {
      key->append(piece.literal);
      continue;
    }
    const int r = t + piece.row;
    if (r < 0) {
      key->append(impl.before_markers[-r - 1]);
    } else if (r >= n) {
      key->append(impl.after_markers[r - n]);
    } else {
      key->append(values[static_cast<size_t>(piece.source) * n + r]);
    }
  }
}

// Looks up keys[0..num_keys) (ends[i] = end offset of key i) and writes each id to ids[i]. Cache
// misses in the table dominate; a two-stage software pipeline (slot, then entry) keeps several
// lookups in flight.
void LookupKeys(const AttributeDictionary& dict, const char* keys, const uint32_t* ends,
                size_t num_keys, std::vector<uint64_t>* hash_buffer, int32_t* ids) {
  auto key = [&](size_t i) {
    const uint32_t begin = i == 0 ? 0 : ends[i - 1];
    return std::string_view(keys + begin, ends[i] - begin);
  };
  hash_buffer->resize(num_keys);
  uint64_t* hashes = hash_buffer->data();
  for (size_t i = 0; i < num_keys; ++i) hashes[i] = AttributeDictionary::Hash(key(i));
  constexpr size_t kDistance = 8;
  for (size_t i = 0; i < std::min(num_keys, 2 * kDistance); ++i) dict.PrefetchSlot(hashes[i]);
  for (size_t i = 0; i < std::min(num_keys, kDistance); ++i) dict.PrefetchEntry(hashes[i]);
  for (size_t i = 0; i < num_keys; ++i) {
    if (i + 2 * kDistance < num_keys) dict.PrefetchSlot(hashes[i + 2 * kDistance]);
    if (i + kDistance < num_keys) dict.PrefetchEntry(hashes[i + kDistance]);
    ids[i] = dict.FindHashed(key(i), hashes[i]);
  }
}

}  // namespace

// Sizes the sentence's attribute-string buffer from a bound linear in the sentence's bytes (each
// cell piece reads each source value at most once, plus markers), so writing needs no checks.
void Featurizer::SizeKeyBuffer(const FeatureSpec::Impl& impl, int num_sources, int num_templates,
                               int begin, int end, Scratch* scratch) {
  Scratch& s = *scratch;
  const int n = s.n;
  // A piece at row offset r reads values of positions [begin + r, end + r); every one of them
  // lies in the window [begin - max_row, end + max_row), clamped to the sentence.
  int max_row = 0;
  for (const features::UnigramTemplate& tmpl : impl.templates) {
    for (const features::TemplatePiece& piece : tmpl.pieces)
      max_row = std::max(max_row, std::abs(piece.row));
  }
  const int lo = std::max(0, begin - max_row);
  const int hi = std::min(n, end + max_row);
  s.source_bytes.assign(num_sources, 0);
  for (int src = 0; src < num_sources; ++src) {
    const std::string_view* v = s.values.data() + static_cast<size_t>(src) * n;
    for (int t = lo; t < hi; ++t) s.source_bytes[src] += v[t].size();
  }
  size_t bound = static_cast<size_t>(end - begin) * impl.literal_bytes;
  for (const features::UnigramTemplate& tmpl : impl.templates) {
    for (const features::TemplatePiece& piece : tmpl.pieces) {
      if (piece.source < 0) continue;
      bound += s.source_bytes[piece.source] +
               static_cast<size_t>(std::abs(piece.row)) * impl.longest_marker;
    }
  }
  if (s.keys.size() < bound) s.keys.resize(bound);
  s.key_ends.resize(static_cast<size_t>(end - begin) * num_templates);
}

void Featurizer::EnableValueCache(const AttributeDictionary* dict, int max_values) {
  Scratch& s = *scratch_;
  s.cache_dict = dict;
  s.caches.clear();
  if (dict == nullptr) return;
  const FeatureSpec::Impl& impl = spec_.impl();
  s.cache_dict_size = dict->size();
  s.cache_max_values = std::max(max_values, 1);
  const int num_sources = static_cast<int>(impl.sources.size());
  s.source_cache.assign(num_sources, -1);
  s.source_slot.assign(num_sources, -1);
  for (int src = 0; src < num_sources; ++src) {
    const int column = impl.sources[src].column;
    int c = 0;
    while (c < static_cast<int>(s.caches.size()) && s.caches[c].column != column) ++c;
    if (c == static_cast<int>(s.caches.size())) {
      s.caches.emplace_back();
      s.caches.back().column = column;
    }
    s.source_cache[src] = c;
    s.source_slot[src] = static_cast<int>(s.caches[c].sources.size());
    s.caches[c].sources.push_back(src);
  }
  const int num_templates = static_cast<int>(impl.templates.size());
  s.template_cache.assign(num_templates, -1);
  s.template_slot.assign(num_templates, -1);
  s.template_row.assign(num_templates, 0);
  for (int j = 0; j < num_templates; ++j) {
    int cache = -1, row = 0;
    bool single = true, any = false;
    for (const features::TemplatePiece& piece : impl.templates[j].pieces) {
      if (piece.source < 0) continue;
      const int c = s.source_cache[piece.source];
      if (any && (c != cache || piece.row != row)) single = false;
      cache = c;
      row = piece.row;
      any = true;
    }
    if (!any || !single) continue;
    s.template_cache[j] = cache;
    s.template_row[j] = row;
    s.template_slot[j] = static_cast<int>(s.caches[cache].templates.size());
    s.caches[cache].templates.push_back(j);
  }
  s.combo_cache.assign(num_templates, -1);
  s.combo_ids.assign(num_templates, {});
  for (int j = 0; j < num_templates; ++j) {
    if (s.template_cache[j] >= 0) continue;
    int cache = -1, pieces = 0;
    bool ok = true;
    for (const features::TemplatePiece& piece : impl.templates[j].pieces) {
      if (piece.source < 0) continue;
      const int c = s.source_cache[piece.source];
      if ((cache >= 0 && c != cache) || std::abs(piece.row) > kComboMaxRow) ok = false;
      cache = c;
      ++pieces;
    }
    if (ok && cache >= 0 && pieces <= kComboMaxPieces) s.combo_cache[j] = cache;
  }
}

bool Featurizer::FeaturizeCached(const Sentence& sentence, const AttributeDictionary& dict,
                                 FeaturizedSentence* out) {
  const FeatureSpec::Impl& impl = spec_.impl();
  Scratch& s = *scratch_;
  const int n = sentence.size();
  for (const Scratch::ColumnCache& cache : s.caches) {
    if (cache.column >= sentence.num_columns() ||
        static_cast<int>(sentence.columns[cache.column].size()) < n) {
      return false;
    }
  }
  if (dict.size() != s.cache_dict_size) {  // defensive: the dictionary grew after enabling
    for (Scratch::ColumnCache& cache : s.caches) cache.Clear();
    for (auto& ids : s.combo_ids) ids.clear();
    s.cache_dict_size = dict.size();
  }
  // Entries of every token; a full cache is reset between sentences so memory stays bounded.
  for (size_t c = 0; c < s.caches.size(); ++c) {
    Scratch::ColumnCache& cache = s.caches[c];
    if (static_cast<int>(cache.index.size()) + n > s.cache_max_values) {
      cache.Clear();
      s.ClearCombos(static_cast<int>(c));  // entries are renumbered from here on
    }
    const std::vector<std::string>& column = sentence.columns[cache.column];
    cache.entries.resize(n);
    const size_t num_slots = cache.templates.size();
    const size_t num_cache_sources = cache.sources.size();
    // The new entries' ids are looked up together at the end, so the misses overlap.
    s.new_keys.clear();
    s.new_key_ends.clear();
    // (in pieces of about 1 MB of strings, so the 32-bit offsets never overflow)
    auto look_up_new = [&] {
      const size_t ids_begin = cache.ids.size();
      cache.ids.resize(ids_begin + s.new_key_ends.size());
      LookupKeys(dict, s.new_keys.data(), s.new_key_ends.data(), s.new_key_ends.size(), &s.hashes,
                 cache.ids.data() + ids_begin);
      s.new_keys.clear();
      s.new_key_ends.clear();
    };
    constexpr int kIndexAhead = 4;  // the index is probed at random: its slots are fetched ahead
    for (int t = 0; t < std::min(n, kIndexAhead); ++t) cache.index.prefetch(ToAbsl(column[t]));
    for (int t = 0; t < n; ++t) {
      if (t + kIndexAhead < n) cache.index.prefetch(ToAbsl(column[t + kIndexAhead]));
      const std::string& value = column[t];
      auto [it, inserted] = cache.index.try_emplace(ToAbsl(value), 0);
      if (!inserted) {
        cache.entries[t] = it->second;
        continue;
      }
      const auto entry = static_cast<int32_t>(cache.index.size() - 1);
      it->second = entry;
      cache.entries[t] = entry;
      // Derived values of the cell, as Prepare computes them.
      for (int src : cache.sources) {
        const features::CellSource& source = impl.sources[src];
        std::string_view v = value;
        for (size_t f = 0; f + 1 < source.functions.size(); ++f) {
          s.tmp_b.clear();
          features::ApplyCellFunction(source.functions[f], v, &s.tmp_b, &impl.resources);
          std::swap(s.tmp_a, s.tmp_b);
          v = s.tmp_a;
        }
        const auto begin = static_cast<uint32_t>(cache.arena.size());
        if (source.functions.empty()) {
          cache.arena.append(v);
        } else {
          features::ApplyCellFunction(source.functions.back(), v, &cache.arena, &impl.resources);
        }
        cache.spans.emplace_back(begin, static_cast<uint32_t>(cache.arena.size()));
      }
      // Ids of the one-cell templates for this value.
      const size_t span_base = static_cast<size_t>(entry) * num_cache_sources;
      for (size_t slot = 0; slot < num_slots; ++slot) {
        for (const features::TemplatePiece& piece : impl.templates[cache.templates[slot]].pieces) {
          if (piece.source < 0) {
            s.new_keys.append(piece.literal);
            continue;
          }
          const auto [b, e] = cache.spans[span_base + s.source_slot[piece.source]];
          s.new_keys.append(cache.arena, b, e - b);
        }
        s.new_key_ends.push_back(static_cast<uint32_t>(s.new_keys.size()));
      }
      if (s.new_keys.size() > (size_t{1} << 20)) look_up_new();
    }
    look_up_new();
  }
  // Views of the source values (made now: the arenas may have moved while growing).
  const int num_sources = static_cast<int>(impl.sources.size());
  s.n = n;
  s.values.resize(static_cast<size_t>(num_sources) * n);
  for (int src = 0; src < num_sources; ++src) {
    const Scratch::ColumnCache& cache = s.caches[s.source_cache[src]];
    const size_t k = s.source_slot[src];
    const size_t stride = cache.sources.size();
    std::string_view* values = s.values.data() + static_cast<size_t>(src) * n;
    for (int t = 0; t < n; ++t) {
      const auto [b, e] = cache.spans[static_cast<size_t>(cache.entries[t]) * stride + k];
      values[t] = std::string_view(cache.arena.data() + b, e - b);
    }
  }
  // Ids in (position, template) order: cached ones directly, the rest as pending strings. Blocks
  // of positions keep the scratch bounded whatever the sentence length.
  const int num_templates = static_cast<int>(impl.templates.size());
  // The combo templates served this sentence, and the key of one at a position.
  s.active_combos.clear();
  for (int j = 0; j < num_templates; ++j) {
    const int cc = s.combo_cache[j];
    if (s.template_cache[j] < 0 && cc >= 0 &&
        static_cast<int>(s.caches[cc].index.size()) <= kComboMaxValues) {
      s.active_combos.push_back(j);
    }
  }
  auto combo_key = [&](int j, int t) {
    const int32_t* entries = s.caches[s.combo_cache[j]].entries.data();
    uint64_t key = 0;
    for (const features::TemplatePiece& piece : impl.templates[j].pieces) {
      if (piece.source < 0) continue;
      const int row = t + piece.row;
      // Out-of-sentence rows read markers, which depend on the row offset only.
      const uint64_t code = row < 0    ? kComboMaxValues + (-row)
                            : row >= n ? kComboMaxValues + kComboMaxRow + 1 + (row - n)
                                       : static_cast<uint64_t>(entries[row]);
      key = (key << kComboBits) | code;
    }
    return key;
  };
  out->offsets.resize(n + 1);
  out->offsets[0] = 0;
  out->attributes.clear();
  for (int begin = 0; begin < n; begin += kBlockPositions) {
    const int end = std::min(n, begin + kBlockPositions);
    SizeKeyBuffer(impl, num_sources, num_templates, begin, end, &s);
    s.cell_ids.resize(static_cast<size_t>(end - begin) * num_templates);
    char* const key_begin = s.keys.data();
    char* dst = key_begin;
    size_t pending = 0;
    int32_t* cell = s.cell_ids.data();
    s.pending_combos.clear();
    // The combo tables are large and probed at random: their slots are fetched positions ahead.
    constexpr int kComboAhead = 2;
    constexpr int kIdsAhead = 4;
    for (int t = begin; t < std::min(end, begin + kComboAhead); ++t) {
      for (int j : s.active_combos) s.combo_ids[j].prefetch(combo_key(j, t));
    }
    for (int t = begin; t < end; ++t) {
      if (t + kComboAhead < end) {
        for (int j : s.active_combos) s.combo_ids[j].prefetch(combo_key(j, t + kComboAhead));
      }
      // Each cache's ids of the value a few rows ahead, before templates reading that row need it.
      if (t + kIdsAhead < n) {
        for (const Scratch::ColumnCache& cache : s.caches) {
          const size_t slots = cache.templates.size();
          if (slots == 0) continue;
          const char* row = reinterpret_cast<const char*>(
              cache.ids.data() + static_cast<size_t>(cache.entries[t + kIdsAhead]) * slots);
          for (size_t b = 0; b < slots * sizeof(int32_t); b += 64) __builtin_prefetch(row + b);
          __builtin_prefetch(row + slots * sizeof(int32_t) - 1);
        }
      }
      for (int j = 0; j < num_templates; ++j, ++cell) {
        const int c = s.template_cache[j];
        const int r = t + s.template_row[j];
        if (c >= 0 && r >= 0 && r < n) {
          const Scratch::ColumnCache& cache = s.caches[c];
          *cell = cache.ids[static_cast<size_t>(cache.entries[r]) * cache.templates.size() +
                            s.template_slot[j]];
          continue;
        }
        const int cc = s.combo_cache[j];
        if (cc >= 0 && static_cast<int>(s.caches[cc].index.size()) <= kComboMaxValues) {
          const uint64_t key = combo_key(j, t);
          auto& ids = s.combo_ids[j];
          if (auto it = ids.find(key); it != ids.end()) {
            *cell = it->second;
            continue;
          }
          s.pending_combos.push_back({j, key, pending});
        }
        dst = WriteAttribute(impl, impl.templates[j], s.values.data(), n, t, dst);
        s.key_ends[pending] = static_cast<uint32_t>(dst - key_begin);
        *cell = -2 - static_cast<int32_t>(pending++);
      }
    }
    s.pending_ids.resize(pending);
    int32_t* pending_ids = s.pending_ids.data();
    LookupKeys(dict, s.keys.data(), s.key_ends.data(), pending, &s.hashes, pending_ids);
    for (const Scratch::PendingCombo& p : s.pending_combos) {
      auto& ids = s.combo_ids[p.template_index];
      if (ids.size() >= kComboMaxIds) ids.clear();  // bounded memory
      ids.emplace(p.key, pending_ids[p.pending]);
    }
    cell = s.cell_ids.data();
    size_t found = out->attributes.size();
    out->attributes.resize(found + s.cell_ids.size());
    int32_t* ids = out->attributes.data();
    for (int t = begin; t < end; ++t) {
      for (int j = 0; j < num_templates; ++j, ++cell) {
        const int32_t id = *cell >= -1 ? *cell : pending_ids[-2 - *cell];
        ids[found] = id;
        found += id >= 0;
      }
      out->offsets[t + 1] = static_cast<int32_t>(found);
    }
    out->attributes.resize(found);
  }
  return true;
}

void Featurizer::GeneratePosition(int t, std::vector<std::string>* out) {
  const FeatureSpec::Impl& impl = spec_.impl();
  const Scratch& s = *scratch_;
  out->resize(impl.templates.size());
  for (size_t i = 0; i < impl.templates.size(); ++i) {
    std::string& key = (*out)[i];
    key.clear();
    BuildAttribute(impl, impl.templates[i], s.values.data(), s.n, t, &key);
  }
}

void Featurizer::Featurize(const Sentence& sentence, const AttributeDictionary& dict,
                           FeaturizedSentence* out) {
  out->values.clear();
  if (spec_.reads_attributes()) {
    FeaturizeAttributes(sentence, dict, out);
    return;
  }
  if (scratch_->cache_dict == &dict && FeaturizeCached(sentence, dict, out)) return;
  Prepare(sentence);
  const FeatureSpec::Impl& impl = spec_.impl();
  Scratch& s = *scratch_;
  const int n = s.n;
  const int num_templates = static_cast<int>(impl.templates.size());
  // The attribute strings of a block of positions first, so lookups can be prefetched ahead. The
  // buffer is sized per block from a bound linear in the block's bytes (each cell piece reads each
  // source value at most once, plus markers), so writing needs no checks.
  const int num_sources = static_cast<int>(impl.sources.size());
  const std::string_view* values = s.values.data();
  out->offsets.resize(n + 1);
  out->offsets[0] = 0;
  out->attributes.clear();
  for (int begin = 0; begin < n; begin += kBlockPositions) {
    const int end = std::min(n, begin + kBlockPositions);
    SizeKeyBuffer(impl, num_sources, num_templates, begin, end, &s);
    char* const key_begin = s.keys.data();
    char* dst = key_begin;
    size_t k = 0;
    for (int t = begin; t < end; ++t) {
      for (const features::UnigramTemplate& tmpl : impl.templates) {
        dst = WriteAttribute(impl, tmpl, values, n, t, dst);
        s.key_ends[k++] = static_cast<uint32_t>(dst - key_begin);
      }
    }
    s.pending_ids.resize(k);
    LookupKeys(dict, s.keys.data(), s.key_ends.data(), k, &s.hashes, s.pending_ids.data());
    const int32_t* looked_up = s.pending_ids.data();
    size_t found = out->attributes.size();
    out->attributes.resize(found + k);
    int32_t* ids = out->attributes.data();
    for (int t = begin; t < end; ++t) {
      for (int j = 0; j < num_templates; ++j, ++looked_up) {
        ids[found] = *looked_up;
        found += *looked_up >= 0;
      }
      out->offsets[t + 1] = static_cast<int32_t>(found);
    }
    out->attributes.resize(found);
  }
}

void Featurizer::FeaturizeAttributes(const Sentence& sentence, const AttributeDictionary& dict,
                                     FeaturizedSentence* out) {
  const int n = sentence.size();
  out->offsets.resize(n + 1);
  out->offsets[0] = 0;
  out->attributes.clear();
  if (!sentence.has_attributes()) {  // CheckColumns refuses this; featurize as no attributes
    std::fill(out->offsets.begin(), out->offsets.end(), 0);
    return;
  }
  bool weighted = false;
  for (int t = 0; t < n; ++t) {
    for (int32_t k = sentence.attribute_offsets[t]; k < sentence.attribute_offsets[t + 1]; ++k) {
      const int id = dict.Find(sentence.attribute_names[k]);
      if (id < 0) continue;
      const float value = sentence.attribute_values[k];
      if (value != 1.0f && !weighted) {
        weighted = true;
        out->values.assign(out->attributes.size(), 1.0f);
      }
      out->attributes.push_back(id);
      if (weighted) out->values.push_back(value);
    }
    out->offsets[t + 1] = static_cast<int32_t>(out->attributes.size());
  }
}

std::vector<std::string> Featurizer::Attributes(const Sentence& sentence, int t) {
  if (spec_.reads_attributes()) {
    std::vector<std::string> fields;
    if (!sentence.has_attributes()) return fields;
    for (int32_t k = sentence.attribute_offsets[t]; k < sentence.attribute_offsets[t + 1]; ++k) {
      fields.push_back(
          FormatAttributeField(sentence.attribute_names[k], sentence.attribute_values[k]));
    }
    return fields;
  }
  Prepare(sentence);
  GeneratePosition(t, &scratch_->position);
  return scratch_->position;
}

}  // namespace chaintag
