// Internal: gzip wrapping of model file images (Model::Save with kGzip, detected by FromBytes).
#ifndef CHAINTAG_SRC_MODEL_COMPRESSION_H_
#define CHAINTAG_SRC_MODEL_COMPRESSION_H_

#include <cstddef>
#include <cstdint>
#include <functional>
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

// Supplies compressed input: copies at most `n` bytes to `buffer` and returns how many (0 at the
// end of the input), or an error.
using ByteSource = std::function<absl::StatusOr<size_t>(char* buffer, size_t n)>;
// What a HeaderCheck allows: the size the output may reach, and (when larger than the prefix it
// saw) how many bytes it wants to see next before anything more is decompressed.
struct HeaderVerdict {
  uint64_t max_bytes = 0;
  uint64_t check_again_at = 0;
};
// Sees the first `header_bytes` of the decompressed output (fewer only when the whole output is
// shorter) before anything else is decompressed, then the first check_again_at bytes if it asks;
// returns its verdict, or an error that stops decompression.
using HeaderCheck = std::function<absl::StatusOr<HeaderVerdict>(std::string_view prefix)>;

// Decompresses a gzip stream incrementally: `check` runs as soon as the first `header_bytes` are
// out (and again as it asks), and decompression stops with an error as soon as the output exceeds
// the smaller of `max_bytes` and the size `check` allows. The output grows with the bytes actually
// decompressed, never to a declared size. So a bomb costs at most that much memory, and a stream
// of something else fails after a few bytes. Errors name `name` and never an exception's name.
absl::StatusOr<std::string> GunzipStream(const ByteSource& source, const std::string& name,
                                         size_t header_bytes, const HeaderCheck& check,
                                         uint64_t max_bytes);

// Decompresses a gzip image. Fails (naming `name`) on a corrupt or truncated stream, a CRC or
// length mismatch, or when the output would exceed `max_bytes`.
absl::StatusOr<std::string> Gunzip(std::string_view bytes, const std::string& name,
                                   uint64_t max_bytes);

}  // namespace chaintag::model_file

#endif  // CHAINTAG_SRC_MODEL_COMPRESSION_H_
