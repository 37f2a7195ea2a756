// Fuzzes the clique JSON-lines reader; small accepted cliques are solved by every algorithm and
// checked: alpha-pass and ICM never above brute force, alpha-pass equal to it on MAX potentials
// and two labels, majority-exact equal to it on MAJORITY potentials, each up to double rounding of
// the clique's terms and (majority-exact) its documented cost quantisation.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <sstream>
#include <string>

#include "collective/collective.h"

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
  // Largest |term| of a score, to allow for double rounding in sums of terms up to 1e12.
  const int n = clique.num_nodes(), m = clique.num_labels();
  const auto family = clique.potential().family();
  double phi_sum = 0, entry = 0, psi_top = -INFINITY, psi_bottom = INFINITY;
  for (int u = 0; u < n; ++u) {
    double row = 0;
    for (int y = 0; y < m; ++y) row = std::max(row, std::abs(clique.phi(u, y)));
    phi_sum += row;
  }
  for (int y = 0; y < m; ++y) {
    for (int k = 0; k <= (family == chaintag::CliquePotentialFamily::kMajority ? m - 1 : n); ++k) {
      entry = std::max(entry, std::abs(family == chaintag::CliquePotentialFamily::kMajority
                                           ? clique.potential().w(y, k)
                                           : clique.potential().f(y, k)));
    }
  }
  const double magnitude =
      phi_sum + entry * (family == chaintag::CliquePotentialFamily::kMax ? 1 : std::max(n, m));
  const double tolerance = 1e-6 * (1 + std::abs(exact->score)) + 1e-9 * magnitude;
  Check(alpha->score <= exact->score + tolerance);
  Check(icm->score <= exact->score + tolerance);
  if (family == chaintag::CliquePotentialFamily::kMax || clique.num_labels() == 2) {
    Check(std::abs(alpha->score - exact->score) <= tolerance);
  }
  if (family == chaintag::CliquePotentialFamily::kMajority) {
    // docs/clique.md: edge costs are quantised to 2^-36 of the spread of phi + W[a], so the
    // labeling found is within n * spread / 2^36 of the best (bounded here over every a).
    for (int a = 0; a < m; ++a) {
      for (int u = 0; u < n; ++u) {
        for (int y = 0; y < m; ++y) {
          const double psi = clique.phi(u, y) + clique.potential().w(a, y);
          psi_top = std::max(psi_top, psi);
          psi_bottom = std::min(psi_bottom, psi);
        }
      }
    }
    const double quantum = n * (psi_top - psi_bottom) / 68719476736.0;
    auto flow = chaintag::MajorityExactMap(clique);
    Check(flow.ok() && std::abs(flow->score - exact->score) <= tolerance + quantum);
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
