// Errors in an option's value that only the data can reveal (a --positives label the training
// data lacks): marked so that the command line exits with the usage code 2, as for every other
// bad option value, although the data had to be read to find them.
#ifndef CHAINTAG_OPTION_ERROR_H_
#define CHAINTAG_OPTION_ERROR_H_

#include <string>

#include "absl/status/status.h"
#include "absl/strings/cord.h"
#include "absl/strings/string_view.h"

namespace chaintag {

inline constexpr absl::string_view kOptionErrorPayload = "chaintag/option-error";

inline absl::Status OptionError(const std::string& message) {
  absl::Status status = absl::InvalidArgumentError(message);
  status.SetPayload(kOptionErrorPayload, absl::Cord("1"));
  return status;
}

inline bool IsOptionError(const absl::Status& status) {
  return status.GetPayload(kOptionErrorPayload).has_value();
}

}  // namespace chaintag

#endif  // CHAINTAG_OPTION_ERROR_H_
