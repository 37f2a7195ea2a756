// Internal: gzip wrapping of model file images (Model::Save with kGzip, detected by FromBytes).
#ifndef CHAINTAG_SRC_MODEL_COMPRESSION_H_
#define CHAINTAG_SRC_MODEL_COMPRESSION_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace chaintag::model_file {

// Whether `bytes` starts with the gzip magic (RFC 1952: 1f 8b).
inline bool IsGzip(std::string_view bytes) {
  return bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1f &&
         static_cast<unsigned char>(bytes[1]) == 0x8b;
}

// Compresses `bytes` as one gzip member with a zero timestamp and no file name, so equal inputs
// give equal files (reproducible models).
std::string Gzip(std::string_view bytes);

// Decompresses a gzip image. Fails (naming `name`) on a corrupt or truncated stream, a CRC or
// length mismatch, or when the output would exceed `max_bytes`.
absl::StatusOr<std::string> Gunzip(std::string_view bytes, const std::string& name, uint64_t max_bytes);

}  // namespace chaintag::model_file

#endif  // CHAINTAG_SRC_MODEL_COMPRESSION_H_
