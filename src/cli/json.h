// Minimal JSON output helpers for the CLI (strings and numbers).
#ifndef CHAINTAG_CLI_JSON_H_
#define CHAINTAG_CLI_JSON_H_

#include <string>
#include <string_view>

#include "json_string.h"

namespace chaintag::cli {

using ::chaintag::JsonString;  // the one escaper (src/json_string.h)
// A JSON number; non-finite values become null.
std::string JsonNumber(double v);

}  // namespace chaintag::cli

#endif  // CHAINTAG_CLI_JSON_H_
