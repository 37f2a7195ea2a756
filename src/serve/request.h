// The service's POST /tag request: a JSON body (text or token lists plus the fields of the decode
// request, named as the Python keywords) parsed and checked against the server's limits, and the
// answer: the objects `chaintag tag --output-format jsonl` writes, in one JSON array.
#ifndef CHAINTAG_SERVE_REQUEST_H_
#define CHAINTAG_SERVE_REQUEST_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "chaintag/model.h"
#include "chaintag/tagging.h"

namespace chaintag::serve {

// What one request may ask (each a `chaintag serve` option; docs/serve.md).
struct RequestLimits {
  int64_t max_tokens = 20000;      // tokens in one request (--max-tokens)
  int max_sentence_tokens = 1000;  // raw text: longer sentences are split; token lists: refused
  int max_kbest = 100;             // kbest and diverse (--max-kbest)
  // A request's max_memory_mb may lower the decoding memory of its sentences, never raise it
  // above this (--decode-memory-mb).
  int64_t max_decode_memory_bytes = DecodeRequest::kDefaultMaxMemoryBytes;
};

// A parsed POST /tag body.
struct TagRequest {
  DecodeRequest decode;
  std::vector<TagResult> inputs;  // sentences in order, with their forced labels and exclusions
  int64_t tokens = 0;
};

// Parses a POST /tag body for the pipeline `models`. Errors name the field and what was expected:
// InvalidArgument for a malformed request, ResourceExhausted for one beyond a limit.
absl::StatusOr<TagRequest> ParseTagRequest(std::string_view body,
                                           const std::vector<const Model*>& models,
                                           const RequestLimits& limits);

// Tags a parsed request on the calling thread: a JSON array of the jsonl objects of `tag`, one per
// sentence ("[{...},\n{...}]\n"). A data error of a sentence (an unknown forced label, a bad
// exclusion) is InvalidArgument.
absl::StatusOr<std::string> RunTagRequest(TagRequest request,
                                          const std::vector<const Model*>& models);

// The request fields POST /tag accepts, in the order the documentation lists them.
const std::vector<std::string>& TagRequestFields();

}  // namespace chaintag::serve

#endif  // CHAINTAG_SERVE_REQUEST_H_
