#include "train/distributed.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <string>

#include "absl/numeric/int128.h"

namespace chaintag::train_internal {
namespace {

constexpr uint64_t kPositiveHuge = 1, kNegativeHuge = 2, kNan = 4;

}  // namespace

double ExactTotal(absl::Span<const double> values, Communicator* ranks) {
  constexpr double kLimit = 0x1.0p47;
  // |x| < 2^47 in units of 2^-48 is below 2^95: 2^31 of them cannot overflow 128 bits.
  absl::int128 sum = 0;
  uint64_t flags = 0;
  for (const double x : values) {
    if (std::isnan(x)) {
      flags |= kNan;
    } else if (x >= kLimit) {
      flags |= kPositiveHuge;
    } else if (x <= -kLimit) {
      flags |= kNegativeHuge;
    } else {
      // The integer part and the fraction are both exact; only the fraction is rounded.
      const double whole = std::trunc(x);
      sum += absl::int128(static_cast<int64_t>(whole)) * (absl::int128(1) << kExactSumBits) +
             std::llround(std::ldexp(x - whole, kExactSumBits));
    }
  }
  if (IsDistributed(ranks)) {
    char bytes[3 * sizeof(uint64_t)];
    const uint64_t words[3] = {absl::Uint128High64(static_cast<absl::uint128>(sum)),
                               absl::Uint128Low64(static_cast<absl::uint128>(sum)), flags};
    std::memcpy(bytes, words, sizeof(bytes));
    sum = 0;
    flags = 0;
    for (const std::string& part : ranks->AllGather(std::string_view(bytes, sizeof(bytes)))) {
      uint64_t w[3];
      std::memcpy(w, part.data(), sizeof(w));
      sum += static_cast<absl::int128>(absl::MakeUint128(w[0], w[1]));
      flags |= w[2];
    }
  }
  if ((flags & kNan) != 0 ||
      (flags & (kPositiveHuge | kNegativeHuge)) == (kPositiveHuge | kNegativeHuge)) {
    return std::numeric_limits<double>::quiet_NaN();
  }
  if (flags != 0) {
    return (flags & kPositiveHuge) != 0 ? std::numeric_limits<double>::infinity()
                                        : -std::numeric_limits<double>::infinity();
  }
  return std::ldexp(static_cast<double>(sum), -kExactSumBits);
}

void SumOverRanks(Communicator* ranks, absl::Span<int64_t> values) {
  if (IsDistributed(ranks)) ranks->SumInt64(values);
}

void SumOverRanks(Communicator* ranks, absl::Span<int32_t> values) {
  if (!IsDistributed(ranks)) return;
  std::vector<int64_t> wide(values.begin(), values.end());
  ranks->SumInt64(absl::MakeSpan(wide));
  for (size_t i = 0; i < wide.size(); ++i) values[i] = static_cast<int32_t>(wide[i]);
}

void OrOverRanks(Communicator* ranks, absl::Span<char> flags) {
  if (!IsDistributed(ranks)) return;
  std::vector<uint64_t> bits((flags.size() + 63) / 64, 0);
  for (size_t i = 0; i < flags.size(); ++i) {
    if (flags[i] != 0) bits[i / 64] |= uint64_t{1} << (i % 64);
  }
  ranks->OrBits(absl::MakeSpan(bits));
  for (size_t i = 0; i < flags.size(); ++i) flags[i] = (bits[i / 64] >> (i % 64)) & 1;
}

}  // namespace chaintag::train_internal
