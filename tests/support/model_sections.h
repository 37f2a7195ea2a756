// Test helper: rewriting one section of a model file image (a well-formed, hostile file).
#ifndef CHAINTAG_TESTS_SUPPORT_MODEL_SECTIONS_H_
#define CHAINTAG_TESTS_SUPPORT_MODEL_SECTIONS_H_

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "gtest/gtest.h"
#include "model/model_file.h"

namespace chaintag::testing_model {

// The image with section `id`'s bytes replaced by `content`: sections keep their order, offsets
// and sizes follow, checksums are recomputed (a well-formed file a hostile writer could make).
inline std::string ReplaceSection(const std::string& bytes, uint32_t id,
                                  const std::string& content) {
  absl::StatusOr<std::vector<model_file::SectionEntry>> table =
      model_file::ReadSectionTable(bytes, "x");
  EXPECT_TRUE(table.ok()) << table.status();
  std::vector<model_file::SectionEntry> sorted = *table;
  std::sort(sorted.begin(), sorted.end(),
            [](const model_file::SectionEntry& a, const model_file::SectionEntry& b) {
              return a.offset < b.offset;
            });
  const size_t body = sorted.front().offset;  // header, table and header checksum
  std::string image = bytes.substr(0, body);
  auto put64 = [&](size_t pos, uint64_t v) {
    for (int i = 0; i < 8; ++i) image[pos + i] = static_cast<char>((v >> (8 * i)) & 0xFF);
  };
  for (const model_file::SectionEntry& e : sorted) {
    const std::string data = e.id == id ? content : bytes.substr(e.offset, e.length);
    image.resize((image.size() + model_file::kSectionAlignment - 1) /
                     model_file::kSectionAlignment * model_file::kSectionAlignment,
                 '\0');
    for (size_t i = 0; i < table->size(); ++i) {
      if ((*table)[i].id != e.id) continue;
      const size_t entry = model_file::kFixedHeaderBytes + i * model_file::kSectionEntryBytes;
      put64(entry + 8, image.size());
      put64(entry + 16, data.size());
    }
    image += data;
  }
  put64(16, image.size());
  EXPECT_TRUE(model_file::RecomputeChecksums(&image).ok());
  return image;
}

}  // namespace chaintag::testing_model

#endif  // CHAINTAG_TESTS_SUPPORT_MODEL_SECTIONS_H_
