// Forward-backward in log space for a linear-chain CRF (Lafferty, McCallum, Pereira, ICML 2001;
// Sutton & McCallum, "An Introduction to Conditional Random Fields", 2012, Sec. 4.1).
#include <algorithm>
#include <cmath>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "chaintag/decode.h"
#include "chaintag/lattice.h"
#include "decode/second_order.h"

namespace chaintag {
namespace {

using decode_internal::LogSumExp;

// Fills alpha (M x N, including unary and start) and returns log Z; tmp needs N entries.
double Forward(const Lattice& lattice, double* alpha, double* tmp) {
  const int m = lattice.size();
  const int n = lattice.num_labels();
  const double* trans = lattice.transition_data().data();
  for (int y = 0; y < n; ++y) alpha[y] = lattice.start(y) + lattice.unary(0, y);
  for (int t = 1; t < m; ++t) {
    const double* prev = alpha + static_cast<size_t>(t - 1) * n;
    double* cur = alpha + static_cast<size_t>(t) * n;
    const double* unary = lattice.unary_row(t).data();
    for (int y = 0; y < n; ++y) {
      for (int p = 0; p < n; ++p) tmp[p] = prev[p] + trans[static_cast<size_t>(p) * n + y];
      cur[y] = LogSumExp(tmp, n) + unary[y];
    }
  }
  const double* last = alpha + static_cast<size_t>(m - 1) * n;
  for (int y = 0; y < n; ++y) tmp[y] = last[y] + lattice.end(y);
  return LogSumExp(tmp, n);
}

absl::Status Infeasible() {
  return absl::NotFoundError("infeasible: every labeling of the lattice has score -inf");
}

}  // namespace

absl::StatusOr<double> LogPartition(const Lattice& lattice, ForwardBackwardScratch* scratch) {
  const int m = lattice.size();
  const int n = lattice.num_labels();
  if (m == 0) return 0.0;
  if (n <= 0)
    return absl::InvalidArgumentError("LogPartition: lattice has positions but no labels");
  if (lattice.order() == 2) {
    absl::StatusOr<Marginals> z = decode_internal::SecondOrderForwardBackward(lattice, true);
    if (!z.ok()) return z.status();
    return z->log_z;
  }
  ForwardBackwardScratch local;
  ForwardBackwardScratch& s = scratch != nullptr ? *scratch : local;
  const size_t cells = static_cast<size_t>(m) * n;
  if (s.alpha.size() < cells) s.alpha.resize(cells);
  if (s.tmp.size() < static_cast<size_t>(n)) s.tmp.resize(n);
  const double log_z = Forward(lattice, s.alpha.data(), s.tmp.data());
  if (!(log_z > kNegInf)) return Infeasible();
  return log_z;
}

absl::StatusOr<Marginals> ForwardBackward(const Lattice& lattice, ForwardBackwardScratch* scratch) {
  const int m = lattice.size();
  const int n = lattice.num_labels();
  Marginals out;
  if (m == 0) return out;
  if (n <= 0) {
    return absl::InvalidArgumentError("ForwardBackward: lattice has positions but no labels");
  }
  if (lattice.order() == 2) return decode_internal::SecondOrderForwardBackward(lattice, false);
  ForwardBackwardScratch local;
  ForwardBackwardScratch& s = scratch != nullptr ? *scratch : local;
  const size_t cells = static_cast<size_t>(m) * n;
  if (s.alpha.size() < cells) s.alpha.resize(cells);
  if (s.beta.size() < cells) s.beta.resize(cells);
  if (s.tmp.size() < static_cast<size_t>(n)) s.tmp.resize(n);
  double* alpha = s.alpha.data();
  double* beta = s.beta.data();
  double* tmp = s.tmp.data();
  const double log_z = Forward(lattice, alpha, tmp);
  if (!(log_z > kNegInf)) return Infeasible();

  // beta[t][y]: log-sum of scores after position t given y_t = y (excludes unary(t, y)).
  const double* trans = lattice.transition_data().data();
  double* last_beta = beta + static_cast<size_t>(m - 1) * n;
  for (int y = 0; y < n; ++y) last_beta[y] = lattice.end(y);
  for (int t = m - 2; t >= 0; --t) {
    const double* next = beta + static_cast<size_t>(t + 1) * n;
    const double* unary = lattice.unary_row(t + 1).data();
    double* cur = beta + static_cast<size_t>(t) * n;
    for (int p = 0; p < n; ++p) {
      const double* trow = trans + static_cast<size_t>(p) * n;
      for (int y = 0; y < n; ++y) tmp[y] = trow[y] + unary[y] + next[y];
      cur[p] = LogSumExp(tmp, n);
    }
  }

  out.log_z = log_z;
  out.unary.assign(cells, 0.0);
  out.transition.assign(static_cast<size_t>(n) * n, 0.0);
  out.start.assign(n, 0.0);
  out.end.assign(n, 0.0);
  for (int t = 0; t < m; ++t) {
    for (int y = 0; y < n; ++y) {
      const size_t i = static_cast<size_t>(t) * n + y;
      const double v = alpha[i] + beta[i] - log_z;
      out.unary[i] = v > kNegInf ? std::exp(v) : 0.0;
    }
  }
  for (int y = 0; y < n; ++y) {
    out.start[y] = out.unary[y];
    out.end[y] = out.unary[static_cast<size_t>(m - 1) * n + y];
  }
  for (int t = 1; t < m; ++t) {
    const double* a = alpha + static_cast<size_t>(t - 1) * n;
    const double* b = beta + static_cast<size_t>(t) * n;
    const double* unary = lattice.unary_row(t).data();
    for (int p = 0; p < n; ++p) {
      if (a[p] == kNegInf) continue;
      const double* trow = trans + static_cast<size_t>(p) * n;
      double* mrow = out.transition.data() + static_cast<size_t>(p) * n;
      for (int y = 0; y < n; ++y) {
        const double v = a[p] + trow[y] + unary[y] + b[y] - log_z;
        if (v > kNegInf) mrow[y] += std::exp(v);
      }
    }
  }
  return out;
}

}  // namespace chaintag
