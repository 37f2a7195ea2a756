// First-order Viterbi over a Lattice (Viterbi 1967; Rabiner 1989, Sec. III-B).
#include <cmath>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "chaintag/decode.h"
#include "chaintag/lattice.h"

namespace chaintag {

absl::StatusOr<Labeling> ViterbiDecode(const Lattice& lattice, ViterbiScratch* scratch) {
  const int m = lattice.size();
  const int n = lattice.num_labels();
  Labeling result;
  if (m == 0) return result;
  if (n <= 0) {
    return absl::InvalidArgumentError("ViterbiDecode: lattice has positions but no labels");
  }
  ViterbiScratch local;
  ViterbiScratch& s = scratch != nullptr ? *scratch : local;
  const size_t cells = static_cast<size_t>(m) * n;
  if (s.score.size() < cells) s.score.resize(cells);
  if (s.back.size() < cells) s.back.resize(cells);
  double* score = s.score.data();
  int* back = s.back.data();
  const double* trans = lattice.transition_data().data();

  for (int y = 0; y < n; ++y) {
    score[y] = lattice.start(y) + lattice.unary(0, y);
    back[y] = -1;
  }
  for (int t = 1; t < m; ++t) {
    const double* prev_row = score + static_cast<size_t>(t - 1) * n;
    double* row = score + static_cast<size_t>(t) * n;
    int* back_row = back + static_cast<size_t>(t) * n;
    const double* unary = lattice.unary_row(t).data();
    for (int y = 0; y < n; ++y) {
      // Strict '>' keeps the smallest predecessor among equal scores.
      double best = kNegInf;
      int arg = -1;
      for (int p = 0; p < n; ++p) {
        const double v = prev_row[p] + trans[static_cast<size_t>(p) * n + y];
        if (v > best) {
          best = v;
          arg = p;
        }
      }
      row[y] = best + unary[y];
      back_row[y] = arg;
    }
  }
  const double* last = score + static_cast<size_t>(m - 1) * n;
  double best = kNegInf;
  int arg = -1;
  for (int y = 0; y < n; ++y) {
    const double v = last[y] + lattice.end(y);
    if (v > best) {
      best = v;
      arg = y;
    }
  }
  if (arg < 0 || std::isnan(best)) {
    return absl::NotFoundError("infeasible: every labeling of the lattice has score -inf");
  }
  result.labels.resize(m);
  result.score = best;
  for (int t = m - 1; t >= 0; --t) {
    result.labels[t] = arg;
    arg = back[static_cast<size_t>(t) * n + arg];
  }
  return result;
}

}  // namespace chaintag
