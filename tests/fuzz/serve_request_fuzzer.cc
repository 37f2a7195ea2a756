// Fuzzes the service's POST /tag body parser (serve/request.h) with the shipped pipeline: every
// input is accepted or refused with InvalidArgument / ResourceExhausted (never another error, a
// crash or a hang), and every accepted request is tagged: the answer must be a JSON array with one
// object per sentence, each with a status.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "chaintag/model.h"
#include "nlohmann/json.hpp"
#include "serve/request.h"

namespace {

const std::vector<const chaintag::Model*>& Pipeline() {
  static const auto* models = [] {
    auto* out = new std::vector<const chaintag::Model*>;
    for (const char* name : {"/models/en-pos.model", "/models/en-chunk.model"}) {
      auto m = chaintag::Model::Load(std::string(CHAINTAG_SOURCE_DIR) + name);
      if (!m.ok()) {
        std::fprintf(stderr, "fuzz: %s\n", m.status().ToString().c_str());
        std::abort();
      }
      out->push_back(new chaintag::Model(*std::move(m)));
    }
    return out;
  }();
  return *models;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view body(reinterpret_cast<const char*>(data), size);
  chaintag::serve::RequestLimits limits;  // small, so that accepted requests tag quickly
  limits.max_tokens = 64;
  limits.max_sentence_tokens = 32;
  limits.max_kbest = 4;
  limits.max_decode_memory_bytes = int64_t{16} << 20;
  auto request = chaintag::serve::ParseTagRequest(body, Pipeline(), limits);
  if (!request.ok()) {
    if (!absl::IsInvalidArgument(request.status()) &&
        !absl::IsResourceExhausted(request.status())) {
      std::abort();
    }
    return 0;
  }
  const size_t sentences = request->inputs.size();
  if (sentences == 0 || request->tokens > limits.max_tokens) std::abort();
  if (request->decode.kbest > limits.max_kbest || request->decode.diverse > limits.max_kbest)
    std::abort();
  auto answer = chaintag::serve::RunTagRequest(*std::move(request), Pipeline());
  if (!answer.ok()) {
    if (!absl::IsInvalidArgument(answer.status())) std::abort();
    return 0;
  }
  const nlohmann::json parsed = nlohmann::json::parse(*answer, nullptr, /*allow_exceptions=*/false);
  if (!parsed.is_array() || parsed.size() != sentences) std::abort();
  for (const auto& s : parsed) {
    if (!s.is_object() || !s.contains("status")) std::abort();
  }
  return 0;
}
