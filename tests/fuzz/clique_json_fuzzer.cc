// Fuzzes the clique JSON-lines reader; small accepted cliques are solved by every algorithm and
// checked: alpha-pass and ICM never above brute force, alpha-pass equal to it on MAX potentials
// and two labels, majority-exact equal to it on MAJORITY potentials.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <sstream>
#include <string>

#include "chaintag/collective.h"

namespace {

void Check(bool ok) {
  if (!ok) std::abort();
}

void Solve(const chaintag::Clique& clique) {
  using chaintag::CliqueAlgorithm;
  if (static_cast<int64_t>(clique.num_nodes()) * clique.num_labels() > 64) return;
  auto alpha = chaintag::AlphaPass(clique);
  auto icm = chaintag::Icm(clique);
  Check(alpha.ok() && icm.ok());
  auto exact = chaintag::BruteForceMap(clique);
  if (!exact.ok() || std::pow(clique.num_labels(), clique.num_nodes()) > 5000) return;
  const double tolerance = 1e-6 * (1 + std::abs(exact->score));
  Check(alpha->score <= exact->score + tolerance);
  Check(icm->score <= exact->score + tolerance);
  const auto family = clique.potential().family();
  if (family == chaintag::CliquePotentialFamily::kMax || clique.num_labels() == 2) {
    Check(std::abs(alpha->score - exact->score) <= tolerance);
  }
  if (family == chaintag::CliquePotentialFamily::kMajority) {
    auto flow = chaintag::MajorityExactMap(clique);
    Check(flow.ok() && std::abs(flow->score - exact->score) <= tolerance);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
  chaintag::CliqueReader reader(in, "fuzz");
  for (int i = 0; i < 16; ++i) {
    auto clique = reader.Next();
    if (!clique.ok() || !clique->has_value()) break;
    Solve(**clique);
  }
  return 0;
}
