// Internal: the binary model file layout (see docs/model-format.md). Public users go through
// Model::Load / Model::Save; tests use these to inspect and tamper with images.
#ifndef CHAINTAG_SRC_MODEL_MODEL_FILE_H_
#define CHAINTAG_SRC_MODEL_MODEL_FILE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "chaintag/model.h"
#include "model/parameters.h"

namespace chaintag::model_file {

inline constexpr std::string_view kMagic = "CHAINTAG";
// 5: sections start at multiples of 64 bytes; the attributes section is the dictionary's hash
// table and the parameters section the tagging layout, both copied in without parsing. Files of
// versions 2-4 are refused with a request to retrain (tools/train-models.sh makes version 5).
// The second-order and neural sections (versions 3 and 4 before) are known to every version-5
// reader, so one version serves every model.
inline constexpr uint32_t kFormatVersion = 5;
inline constexpr uint32_t kMaxFormatVersion = kFormatVersion;
// Every section's offset is a multiple of this, so arrays can be used where they lie.
inline constexpr uint64_t kSectionAlignment = 64;
// magic(8) + version(4) + section count(4) + file size(8).
inline constexpr uint64_t kFixedHeaderBytes = 24;
// id(4) + checksum(4) + offset(8) + length(8).
inline constexpr uint64_t kSectionEntryBytes = 24;
// Upper bound on the section count, so a corrupt count cannot request a huge table.
inline constexpr uint32_t kMaxSections = 64;
// Upper bound on a model image, plain or inside a gzip-compressed file: a header declaring more
// is refused before anything else is read, and a decompression bomb fails here at the latest.
inline constexpr uint64_t kMaxModelBytes = uint64_t{4} << 30;

enum SectionId : uint32_t {
  kLabels = 1,
  kTemplates = 2,
  kAttributes = 3,
  kParameters = 4,
  kTransitionMask = 5,
  kMetadata = 6,
  kSelfTests = 7,
  kLexicon = 8,        // optional: the word-class lexicon of templates that call lex()
  kInputOptions = 9,   // since version 2: format, label column, CoNLL-U label field, NP chunks
  kLatentStates = 10,  // optional: latent models' hidden state -> label (parameters are over them)
  kFamily = 11,        // optional: the model family's name ("lmsbn"); absent for linear chains
  kClusters = 13,      // optional: the word clusters (paths file) of templates that call cluster()
  kLexicon2 = 14,      // optional: the second word-class lexicon, of templates that call lex2()
  kSecondOrder = 15,   // optional: second-order chains' (N+1)*N*N trigram weights, float32
  kNeural = 16,        // optional: the neural encoder (neural/serialize.h), since version 4
};
// Ids above it are skipped by this reader (sections added later).
inline constexpr uint32_t kMaxSectionId = 31;
const char* SectionName(uint32_t id);

struct SectionEntry {
  uint32_t id = 0;
  uint32_t checksum = 0;
  uint64_t offset = 0;
  uint64_t length = 0;
};

// CRC-32C (Castagnoli, reflected polynomial 0x82F63B78), as in iSCSI / RFC 3720.
uint32_t Crc32c(std::string_view data);
// The table-driven CRC (portable) or Crc32c's own choice (hardware where the CPU has it).
uint32_t Crc32cForTesting(std::string_view data, bool portable);

// Checks the magic and format version of the first bytes of an image (at least 24 unless the
// image is shorter); errors read like ReadSectionTable's.
absl::Status CheckMagicAndVersion(std::string_view bytes, const std::string& name);
// CheckMagicAndVersion on the first kFixedHeaderBytes of an image, then returns the size the
// header declares (refused above kMaxModelBytes), so a loader can stop reading there.
absl::StatusOr<uint64_t> CheckHeader(std::string_view prefix, const std::string& name);
// "NAME: expected D bytes (size recorded in the header), found S".
absl::Status SizeMismatch(const std::string& name, uint64_t declared_size, uint64_t size);

// What a string stored in a model may contain besides valid UTF-8 without NUL, control
// characters (C0, DEL, C1) or the characters below being refused.
enum class StringRule {
  kName,  // non-empty, no whitespace at all: labels, metadata keys
  kCell,  // spaces, no tab or line break: self-test cells (tab-separated fields keep spaces)
  kLine,  // spaces and tabs, no line break: attribute names, metadata values
  kText,  // spaces, tabs and line feeds: the template text
};
// Checks `text` against `rule`; the error reads "NAME: expected WHAT to be ..., found ...".
absl::Status CheckModelString(std::string_view text, StringRule rule, std::string_view what,
                              const std::string& name);

// Consistency of trainer-layout parameters for `num_labels` labels and `num_attributes`
// attributes: offsets from 0 to F and non-decreasing, label ids in range, F + N*N + 2N finite
// weights. Model construction (loader, ModelBuilder) requires it.
absl::Status CheckParameters(const ModelParameters& p, int num_labels, int num_attributes,
                             const std::string& name);

// Checks magic, version, declared size, header checksum, and that every section lies inside the
// file and the last one ends where the file does; returns the section table. Does not verify
// section checksums. With `size`, `bytes` may be a prefix of an image of that many bytes (at
// least its header and table: a loader checks the table before reading the rest).
absl::StatusOr<std::vector<SectionEntry>> ReadSectionTable(
    std::string_view bytes, const std::string& name, std::optional<uint64_t> size = std::nullopt);
// Bytes of the header, section table and header checksum of an image whose first
// kFixedHeaderBytes are `prefix` (0 when the section count is out of range).
uint64_t HeaderAndTableBytes(std::string_view prefix);
// `offset` rounded up to a multiple of kSectionAlignment: where a section after it starts.
uint64_t AlignedOffset(uint64_t offset);
// Recomputes every section checksum and the header checksum in place (tests use it to tamper
// with content while keeping checksums valid). Requires a structurally valid image.
absl::Status RecomputeChecksums(std::string* bytes);

}  // namespace chaintag::model_file

#endif  // CHAINTAG_SRC_MODEL_MODEL_FILE_H_
