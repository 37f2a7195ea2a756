// Internal: the binary model file layout (see docs/model-format.md). Public users go through
// Model::Load / Model::Save; tests use these to inspect and tamper with images.
#ifndef CHAINTAG_SRC_MODEL_MODEL_FILE_H_
#define CHAINTAG_SRC_MODEL_MODEL_FILE_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace chaintag::model_file {

inline constexpr std::string_view kMagic = "CHAINTAG";
inline constexpr uint32_t kFormatVersion = 1;
// magic(8) + version(4) + section count(4) + file size(8).
inline constexpr uint64_t kFixedHeaderBytes = 24;
// id(4) + checksum(4) + offset(8) + length(8).
inline constexpr uint64_t kSectionEntryBytes = 24;
// Upper bound on the section count, so a corrupt count cannot request a huge table.
inline constexpr uint32_t kMaxSections = 64;
// Upper bound on the image inside a gzip-compressed model file (a decompression bomb fails here).
inline constexpr uint64_t kMaxInflatedBytes = uint64_t{4} << 30;

enum SectionId : uint32_t {
  kLabels = 1,
  kTemplates = 2,
  kAttributes = 3,
  kParameters = 4,
  kTransitionMask = 5,
  kMetadata = 6,
  kSelfTests = 7,
  kLexicon = 8,  // optional: the word-class lexicon of templates that call lex()
};
const char* SectionName(uint32_t id);

struct SectionEntry {
  uint32_t id = 0;
  uint32_t checksum = 0;
  uint64_t offset = 0;
  uint64_t length = 0;
};

// CRC-32C (Castagnoli, reflected polynomial 0x82F63B78), as in iSCSI / RFC 3720.
uint32_t Crc32c(std::string_view data);

// Checks magic, version, declared size, header checksum, and that every section lies inside the
// file; returns the section table. Does not verify section checksums.
absl::StatusOr<std::vector<SectionEntry>> ReadSectionTable(std::string_view bytes,
                                                           const std::string& name);
// Recomputes every section checksum and the header checksum in place (tests use it to tamper
// with content while keeping checksums valid). Requires a structurally valid image.
absl::Status RecomputeChecksums(std::string* bytes);

}  // namespace chaintag::model_file

#endif  // CHAINTAG_SRC_MODEL_MODEL_FILE_H_
