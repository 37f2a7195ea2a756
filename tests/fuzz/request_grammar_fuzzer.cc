// Fuzzes the --count and --score-range grammar (ParseCountConstraint, ParseScoreRange) and decodes
// every accepted request with a tiny model: a count solution must satisfy its bounds.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "chaintag/tagging.h"
#include "fuzz_model.h"

namespace {

chaintag::TagResult Decode(const chaintag::DecodeRequest& request) {
  const chaintag::Model& model = chaintag::fuzz::TinyChunkModel();
  chaintag::Pipeline pipeline({&model}, request);
  chaintag::TagResult r;
  r.sentence = chaintag::fuzz::FourTokenSentence();
  pipeline.Run(&r);
  return r;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  const chaintag::Model& model = chaintag::fuzz::TinyChunkModel();

  if (auto count = chaintag::ParseCountConstraint(text, model.labels()); count.ok()) {
    if (count->ids.empty() || count->lower < 0) std::abort();
    if (count->upper >= 0 && count->upper < count->lower) std::abort();
    chaintag::DecodeRequest request;
    request.counts = {*count};
    if (!request.Validate().ok()) std::abort();  // the parser's output must be a valid request
    chaintag::TagResult r = Decode(request);
    if (r.status == chaintag::SentenceStatus::kOk && r.error.ok() && !count->chunks) {
      if (r.solutions.empty()) std::abort();
      int n = 0;
      for (int y : r.solutions[0].labels) {  // ids may repeat ('B-NP,B-*'): a set
        n += std::find(count->ids.begin(), count->ids.end(), y) != count->ids.end();
      }
      if (n < count->lower || (count->upper >= 0 && n > count->upper)) std::abort();
    }
    if (count->lower == 0 && count->upper < 0 &&
        (!r.error.ok() || r.status != chaintag::SentenceStatus::kOk)) {
      std::abort();  // '..' with no bounds at all holds for every labeling
    }
  }

  double lower = 0, upper = 0;
  if (chaintag::ParseScoreRange(text, &lower, &upper).ok()) {
    if (std::isnan(lower) || std::isnan(upper) || lower >= upper) std::abort();
    chaintag::DecodeRequest request;
    request.score_range = true;
    request.score_lower = lower;
    request.score_upper = upper;
    if (!request.Validate().ok()) std::abort();
    (void)Decode(request);
  }
  return 0;
}
