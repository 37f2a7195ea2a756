// Chunk schemes and conlleval-compatible chunk boundaries.
#include "chaintag/chunks.h"

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"

namespace chaintag {
namespace {

// The conlleval script's endOfChunk (Tjong Kim Sang & Buchholz, CoNLL-2000), with the IOBES
// extension most copies carry: after E or S every phrase ends; B and S always close the phrase.
bool EndsImpl(char prev, char cur, bool same_type) {
  if (prev == 'O') return false;
  if (!same_type) return true;
  if (prev == 'E' || prev == 'S') return true;
  // prev is B or I: only B, S or O close the phrase.
  return cur == 'B' || cur == 'S' || cur == 'O';
}

// The conlleval script's startOfChunk with the same IOBES extension.
bool StartsImpl(char prev, char cur, bool same_type) {
  if (cur == 'O') return false;
  if (cur == 'B' || cur == 'S') return true;
  if (!same_type) return true;
  // cur is I or E of the same type: it starts a phrase only when nothing open can continue.
  return prev == 'O' || prev == 'E' || prev == 'S';
}

bool IsChunkPrefix(char c) { return c == 'B' || c == 'I' || c == 'E' || c == 'S'; }

}  // namespace

absl::StatusOr<ChunkScheme> ParseChunkScheme(std::string_view name) {
  std::string lower(name);
  absl::AsciiStrToLower(&lower);
  if (lower == "iob1") return ChunkScheme::kIob1;
  if (lower == "iob2" || lower == "bio") return ChunkScheme::kIob2;
  if (lower == "iobes" || lower == "bioes") return ChunkScheme::kIobes;
  return absl::InvalidArgumentError(absl::StrCat(
      "unknown chunk scheme: expected iob1, iob2 or iobes, found '", std::string(name), "'"));
}

std::string_view ChunkSchemeName(ChunkScheme scheme) {
  switch (scheme) {
    case ChunkScheme::kIob1:
      return "iob1";
    case ChunkScheme::kIob2:
      return "iob2";
    case ChunkScheme::kIobes:
      return "iobes";
  }
  return "unknown";
}

ChunkTag ParseChunkTag(std::string_view label) {
  ChunkTag tag;
  if (label == "O") return tag;
  // conlleval splits at the first hyphen, so types may contain hyphens ("B-NP-SBJ").
  if (label.size() > 2 && label[1] == '-' && IsChunkPrefix(label[0])) {
    tag.prefix = label[0];
    tag.type = std::string(label.substr(2));
    return tag;
  }
  tag.prefix = 'I';
  tag.type = std::string(label);
  tag.in_scheme = false;
  return tag;
}

bool ChunkStarts(const ChunkTag& prev, const ChunkTag& cur) {
  return StartsImpl(prev.prefix, cur.prefix, prev.type == cur.type);
}

bool ChunkEnds(const ChunkTag& prev, const ChunkTag& cur) {
  return EndsImpl(prev.prefix, cur.prefix, prev.type == cur.type);
}

bool ChunkStarts(char prev_prefix, char cur_prefix, bool same_type) {
  return StartsImpl(prev_prefix, cur_prefix, same_type);
}

bool ChunkEnds(char prev_prefix, char cur_prefix, bool same_type) {
  return EndsImpl(prev_prefix, cur_prefix, same_type);
}

std::vector<Chunk> ExtractChunks(const std::vector<std::string>& labels) {
  std::vector<Chunk> chunks;
  const int n = static_cast<int>(labels.size());
  ChunkTag prev;  // "O" before the sentence
  int open_begin = -1;
  for (int t = 0; t <= n; ++t) {
    const ChunkTag cur = t < n ? ParseChunkTag(labels[t]) : ChunkTag();
    if (open_begin >= 0 && (ChunkEnds(prev, cur) || ChunkStarts(prev, cur))) {
      chunks.push_back(Chunk{open_begin, t, prev.type});
      open_begin = -1;
    }
    if (ChunkStarts(prev, cur)) open_begin = t;
    prev = cur;
  }
  return chunks;
}

std::vector<std::string> EncodeChunks(const std::vector<Chunk>& chunks, int length,
                                      ChunkScheme scheme) {
  std::vector<std::string> labels(length > 0 ? length : 0, "O");
  int prev_end = -1;
  const std::string* prev_type = nullptr;
  for (const Chunk& chunk : chunks) {
    if (chunk.begin < 0 || chunk.end > length || chunk.begin >= chunk.end) continue;
    for (int t = chunk.begin; t < chunk.end; ++t) {
      char prefix = 'I';
      switch (scheme) {
        case ChunkScheme::kIob1:
          // IOB1 marks B only to separate two adjacent phrases of one type.
          if (t == chunk.begin && prev_end == chunk.begin && prev_type != nullptr &&
              *prev_type == chunk.type) {
            prefix = 'B';
          }
          break;
        case ChunkScheme::kIob2:
          if (t == chunk.begin) prefix = 'B';
          break;
        case ChunkScheme::kIobes:
          if (chunk.end - chunk.begin == 1) {
            prefix = 'S';
          } else if (t == chunk.begin) {
            prefix = 'B';
          } else if (t == chunk.end - 1) {
            prefix = 'E';
          }
          break;
      }
      std::string label(1, prefix);
      label += '-';
      label += chunk.type;
      labels[t] = std::move(label);
    }
    prev_end = chunk.end;
    prev_type = &chunk.type;
  }
  return labels;
}

ChunkTable::ChunkTable(const std::vector<std::string>& labels) {
  const int n = static_cast<int>(labels.size());
  tags_.reserve(n);
  type_of_.assign(n, -1);
  for (int i = 0; i < n; ++i) {
    tags_.push_back(ParseChunkTag(labels[i]));
    if (tags_[i].prefix == 'O') continue;
    int type = -1;
    for (int k = 0; k < static_cast<int>(types_.size()); ++k) {
      if (types_[k] == tags_[i].type) type = k;
    }
    if (type < 0) {
      type = static_cast<int>(types_.size());
      types_.push_back(tags_[i].type);
    }
    type_of_[i] = type;
  }
  const int w = n + 1;
  starts_.assign(static_cast<size_t>(w) * w, 0);
  ends_.assign(static_cast<size_t>(w) * w, 0);
  const ChunkTag outside;
  for (int p = -1; p < n; ++p) {
    const ChunkTag& prev = p < 0 ? outside : tags_[p];
    for (int c = -1; c < n; ++c) {
      const ChunkTag& cur = c < 0 ? outside : tags_[c];
      starts_[(p + 1) * w + (c + 1)] = ChunkStarts(prev, cur);
      ends_[(p + 1) * w + (c + 1)] = ChunkEnds(prev, cur);
    }
  }
}

bool ChunkTable::Starts(int prev, int cur) const {
  return starts_[(prev + 1) * (num_labels() + 1) + (cur + 1)] != 0;
}

bool ChunkTable::Ends(int prev, int cur) const {
  return ends_[(prev + 1) * (num_labels() + 1) + (cur + 1)] != 0;
}

}  // namespace chaintag
