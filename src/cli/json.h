// Minimal JSON output helpers for the CLI (strings and numbers).
#ifndef CHAINTAG_CLI_JSON_H_
#define CHAINTAG_CLI_JSON_H_

#include <string>
#include <string_view>

namespace chaintag::cli {

// A JSON string literal with quotes and escapes (UTF-8 passes through).
std::string JsonString(std::string_view s);
// A JSON number; non-finite values become null.
std::string JsonNumber(double v);

}  // namespace chaintag::cli

#endif  // CHAINTAG_CLI_JSON_H_
