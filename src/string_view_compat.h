// Debian's Abseil is built with its own absl::string_view (not an alias of std::string_view), so
// std::string_view values passed to Abseil APIs (StrCat, SimpleAtoi, hash lookups) are converted
// explicitly. Internal to the library; one definition for every module.
#ifndef CHAINTAG_STRING_VIEW_COMPAT_H_
#define CHAINTAG_STRING_VIEW_COMPAT_H_

#include <string_view>

#include "absl/strings/string_view.h"

namespace chaintag {

inline absl::string_view ToAbsl(std::string_view s) { return {s.data(), s.size()}; }

}  // namespace chaintag

#endif  // CHAINTAG_STRING_VIEW_COMPAT_H_
