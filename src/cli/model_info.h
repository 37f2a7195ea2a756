// A model's description as one JSON object (`chaintag info --json`, the service's GET /models).
#ifndef CHAINTAG_CLI_MODEL_INFO_H_
#define CHAINTAG_CLI_MODEL_INFO_H_

#include <string>

#include "chaintag/model.h"

namespace chaintag::cli {

// `path` is the file the model was loaded from (its size and compression are read from it);
// `top`: how many top-weighted state features to list.
std::string ModelInfoJson(const Model& model, const std::string& path, int top);

// Whether the model file at `path` starts with gzip's magic. Regular files only: a FIFO or
// device is not opened a second time (that would wait for a writer forever).
bool IsGzipModelFile(const std::string& path);

}  // namespace chaintag::cli

#endif  // CHAINTAG_CLI_MODEL_INFO_H_
