// Fuzzes the exclusion-line parser (ParseExclusionLine) and decodes a tiny model's best labeling
// that avoids every accepted labeling: the result must differ from each of them.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "chaintag/tagging.h"
#include "fuzz_model.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view line(reinterpret_cast<const char*>(data), size);
  auto labelings = chaintag::ParseExclusionLine(line);
  if (!labelings.ok()) return 0;
  for (const auto& labeling : *labelings) {
    for (const std::string& label : labeling) {
      if (label.empty() || label.find_first_of(" \t|\r\n") != std::string::npos) std::abort();
    }
  }
  const chaintag::Model& model = chaintag::fuzz::TinyChunkModel();
  chaintag::DecodeRequest request;
  request.exclusions = true;
  chaintag::Pipeline pipeline({&model}, request, "<fuzz-exclusions>");
  chaintag::TagResult r;
  r.sentence = chaintag::fuzz::FourTokenSentence();
  r.excluded = *labelings;
  r.exclude_line = 1;
  pipeline.Run(&r);
  if (!r.error.ok() || r.status != chaintag::SentenceStatus::kOk) return 0;
  if (r.solutions.empty()) std::abort();
  std::vector<std::string> best;
  for (int y : r.solutions[0].labels) best.push_back(model.labels()[y]);
  for (const auto& labeling : *labelings) {
    if (labeling == best) std::abort();  // returned an excluded labeling
  }
  return 0;
}
