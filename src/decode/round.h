// Internal: std::nearbyint in the default rounding mode without the library call (the score-range
// search rounds one increment per predecessor block; x86-64's baseline has no rounding
// instruction).
#ifndef CHAINTAG_SRC_DECODE_ROUND_H_
#define CHAINTAG_SRC_DECODE_ROUND_H_

#include <cmath>

namespace chaintag {

// x rounded to the nearest integer, ties to even: equal to std::nearbyint(x) under the default
// round-to-nearest mode, including -0.0, infinities and NaN. Adding 2^52 to |x| < 2^52 leaves no
// fraction bits, so the hardware rounds it; subtracting 2^52 again is exact.
inline double RoundToNearestEven(double x) {
  constexpr double kTwo52 = 4503599627370496.0;
  const double a = std::fabs(x);
  if (!(a < kTwo52)) return x;  // already integral, infinite or NaN
  return std::copysign((a + kTwo52) - kTwo52, x);
}

}  // namespace chaintag

#endif  // CHAINTAG_SRC_DECODE_ROUND_H_
