// Chunk label schemes (IOB1, IOB2, IOBES) and phrase extraction, shared by decoding statistics,
// losses and evaluation.
#ifndef CHAINTAG_CHUNKS_H_
#define CHAINTAG_CHUNKS_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace chaintag {

enum class ChunkScheme { kIob1, kIob2, kIobes };

absl::StatusOr<ChunkScheme> ParseChunkScheme(std::string_view name);  // "iob1", "iob2", "iobes"
std::string_view ChunkSchemeName(ChunkScheme scheme);

// A label split into its prefix and phrase type: "B-NP" -> ('B', "NP"); "O" -> ('O', "").
// Labels without a recognised prefix count as their own type with prefix 'I' (conlleval does the
// same).
struct ChunkTag {
  char prefix = 'O';  // one of B I O E S
  std::string type;
  bool in_scheme = true;  // "O" or a B-/I-/E-/S- prefix with a type; false for "NN", "B-"
};
ChunkTag ParseChunkTag(std::string_view label);
// Whether `label` is a chunk tag of some scheme ("O", "B-NP", "I-NP", "E-NP", "S-NP"): the one
// definition that masks, evaluation and the chunk tables share.
inline bool IsChunkTag(std::string_view label) { return ParseChunkTag(label).in_scheme; }

// A phrase [begin, end) of a type.
struct Chunk {
  int begin = 0;
  int end = 0;
  std::string type;
  bool operator==(const Chunk&) const = default;
};

// Chunk boundaries exactly as the conlleval script computes them (startOfChunk/endOfChunk), which
// handles IOB1, IOB2 and IOBES alike. `prev`/`cur` are tags of consecutive tokens; use "O" beyond
// the sentence ends.
bool ChunkStarts(const ChunkTag& prev, const ChunkTag& cur);
bool ChunkEnds(const ChunkTag& prev, const ChunkTag& cur);
// The same rules on prefixes alone, for callers that compare phrase types themselves
// (`same_type`: both tags have the same type, where "O" has the empty type).
bool ChunkStarts(char prev_prefix, char cur_prefix, bool same_type);
bool ChunkEnds(char prev_prefix, char cur_prefix, bool same_type);
std::vector<Chunk> ExtractChunks(const std::vector<std::string>& labels);

// The labels of `length` tokens carrying `chunks` (sorted, non-overlapping, inside [0, length))
// written in `scheme`; tokens outside every chunk get "O". IOB1 writes B- only where a chunk
// directly follows one of the same type.
std::vector<std::string> EncodeChunks(const std::vector<Chunk>& chunks, int length,
                                      ChunkScheme scheme);

// Per-label-id tables for a label inventory, so decoders and losses test chunk boundaries on
// integer label ids without string work in inner loops.
class ChunkTable {
 public:
  explicit ChunkTable(const std::vector<std::string>& labels);
  int num_labels() const { return static_cast<int>(tags_.size()); }
  // Label id -1 stands for "outside the sentence" (acts as "O").
  bool Starts(int prev, int cur) const;
  bool Ends(int prev, int cur) const;
  // Phrase type id of a label (-1 for O); types are numbered in order of first appearance.
  int TypeOf(int label) const { return label < 0 ? -1 : type_of_[label]; }
  int num_types() const { return static_cast<int>(types_.size()); }
  const std::string& type_name(int type) const { return types_[type]; }

 private:
  std::vector<ChunkTag> tags_;
  std::vector<int> type_of_;
  std::vector<std::string> types_;
  std::vector<char> starts_;  // (num_labels+1)^2, index (prev+1)*(N+1)+(cur+1)
  std::vector<char> ends_;
};

}  // namespace chaintag

#endif  // CHAINTAG_CHUNKS_H_
