// Fuzzes the model loader (Model::FromBytes): the raw input (plain or gzip image), the input with
// its size field and checksums repaired (so mutations reach the section parsers and the
// self-tests), and that image wrapped in valid gzip (the decompressing path).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "chaintag/model.h"
#include "model/compression.h"
#include "model/model_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  namespace mf = chaintag::model_file;
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  (void)chaintag::Model::FromBytes(bytes, "<fuzz>");
  if (mf::IsGzip(bytes)) return 0;
  std::string image(bytes);
  if (image.size() >= mf::kFixedHeaderBytes) {
    // The declared file size: 8 little-endian bytes after magic, version and section count.
    uint64_t n = image.size();
    for (int i = 0; i < 8; ++i, n >>= 8) image[16 + i] = static_cast<char>(n & 0xff);
  }
  if (mf::RecomputeChecksums(&image).ok()) {
    (void)chaintag::Model::FromBytes(image, "<fuzz-repaired>");
  }
  (void)chaintag::Model::FromBytes(mf::Gzip(image), "<fuzz.gz>");
  return 0;
}
