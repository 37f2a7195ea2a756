#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

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
  std::string keys;                // all attribute strings of the sentence, concatenated
  std::vector<uint32_t> key_ends;  // end offset of each in `keys`
  std::vector<uint64_t> hashes;    // AttributeDictionary::Hash of each
  std::vector<size_t> source_bytes;  // total bytes of each source's values in the sentence
  std::vector<std::string> position;  // for Attributes()
};

Featurizer::Featurizer(FeatureSpec spec) : spec_(std::move(spec)), scratch_(new Scratch) {}
Featurizer::~Featurizer() = default;
Featurizer::Featurizer(Featurizer&&) noexcept = default;
Featurizer& Featurizer::operator=(Featurizer&&) noexcept = default;

absl::Status Featurizer::CheckColumns(const Sentence& sentence) const {
  const int needed = spec_.num_input_columns();
  const std::string where = absl::StrCat(
      sentence.file.empty() ? "<input>" : sentence.file, ":",
      sentence.token_lines.empty() ? int64_t{0} : sentence.token_lines[0]);
  if (sentence.num_columns() < needed) {
    return absl::InvalidArgumentError(absl::StrCat(
        where, ": expected at least ", needed, " input column", needed == 1 ? "" : "s",
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
        features::ApplyCellFunction(source.functions[f], value, &s.tmp_b);
        std::swap(s.tmp_a, s.tmp_b);
        value = s.tmp_a;
      }
      const auto begin = static_cast<uint32_t>(s.arena.size());
      features::ApplyCellFunction(source.functions.back(), value, &s.arena);
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

}  // namespace

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
  Prepare(sentence);
  const FeatureSpec::Impl& impl = spec_.impl();
  Scratch& s = *scratch_;
  const int n = s.n;
  const int num_templates = static_cast<int>(impl.templates.size());
  // All attribute strings of the sentence first, so lookups can be prefetched ahead. The buffer
  // is sized once per sentence from a bound that is linear in the sentence's bytes (each cell
  // piece reads each source value at most once, plus markers), so writing needs no checks.
  const int num_sources = static_cast<int>(impl.sources.size());
  s.source_bytes.assign(num_sources, 0);
  for (int src = 0; src < num_sources; ++src) {
    const std::string_view* v = s.values.data() + static_cast<size_t>(src) * n;
    for (int t = 0; t < n; ++t) s.source_bytes[src] += v[t].size();
  }
  size_t bound = static_cast<size_t>(n) * impl.literal_bytes;
  for (const features::UnigramTemplate& tmpl : impl.templates) {
    for (const features::TemplatePiece& piece : tmpl.pieces) {
      if (piece.source < 0) continue;
      bound += s.source_bytes[piece.source] +
               static_cast<size_t>(std::abs(piece.row)) * impl.longest_marker;
    }
  }
  if (s.keys.size() < bound) s.keys.resize(bound);
  s.key_ends.resize(static_cast<size_t>(n) * num_templates);
  const std::string_view* values = s.values.data();
  char* const key_begin = s.keys.data();
  char* dst = key_begin;
  size_t k = 0;
  for (int t = 0; t < n; ++t) {
    for (const features::UnigramTemplate& tmpl : impl.templates) {
      dst = WriteAttribute(impl, tmpl, values, n, t, dst);
      s.key_ends[k++] = static_cast<uint32_t>(dst - key_begin);
    }
  }
  const char* keys = s.keys.data();
  const uint32_t* ends = s.key_ends.data();
  auto key = [&](size_t i) {
    const uint32_t begin = i == 0 ? 0 : ends[i - 1];
    return std::string_view(keys + begin, ends[i] - begin);
  };
  const size_t num_keys = k;
  s.hashes.resize(num_keys);
  uint64_t* hashes = s.hashes.data();
  for (size_t i = 0; i < num_keys; ++i) hashes[i] = AttributeDictionary::Hash(key(i));
  // Cache misses in the table dominate; a two-stage software pipeline (slot, then entry) keeps
  // several lookups in flight.
  constexpr size_t kDistance = 8;
  for (size_t i = 0; i < std::min(num_keys, 2 * kDistance); ++i) dict.PrefetchSlot(hashes[i]);
  for (size_t i = 0; i < std::min(num_keys, kDistance); ++i) dict.PrefetchEntry(hashes[i]);
  out->offsets.resize(n + 1);
  out->attributes.resize(num_keys);
  int32_t* ids = out->attributes.data();
  int32_t found = 0;
  out->offsets[0] = 0;
  size_t i = 0;
  for (int t = 0; t < n; ++t) {
    for (int j = 0; j < num_templates; ++j, ++i) {
      if (i + 2 * kDistance < num_keys) dict.PrefetchSlot(hashes[i + 2 * kDistance]);
      if (i + kDistance < num_keys) dict.PrefetchEntry(hashes[i + kDistance]);
      const int id = dict.FindHashed(key(i), hashes[i]);
      ids[found] = id;
      found += id >= 0;
    }
    out->offsets[t + 1] = found;
  }
  out->attributes.resize(found);
}

std::vector<std::string> Featurizer::Attributes(const Sentence& sentence, int t) {
  Prepare(sentence);
  GeneratePosition(t, &scratch_->position);
  return scratch_->position;
}

}  // namespace chaintag
