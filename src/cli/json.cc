#include "cli/json.h"

#include <cmath>
#include <cstdio>

namespace chaintag::cli {

std::string JsonNumber(double v) {
  if (!std::isfinite(v)) return "null";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.10g", v);
  return buf;
}

}  // namespace chaintag::cli
