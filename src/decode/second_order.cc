// Viterbi and forward-backward on second-order lattices (trigram label scores): dynamic
// programming over label pairs (y_{t-1}, y_t), O(M N^3) (Thede and Harper, ACL 1999, for HMM
// taggers; the same recursions with CRF scores). Constrained and k-best decoding on second-order
// lattices run in the AuxDp engine, which carries the label before the previous one as a state.
#include "decode/second_order.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace chaintag {
namespace decode_internal {
namespace {

// Pair tables hold (N+1) x N cells per position: row b = y_{t-1} (b = N: before the sentence,
// used at t = 0 only), column c = y_t.
size_t PairCells(int n) { return static_cast<size_t>(n + 1) * n; }

}  // namespace

__attribute__((target_clones("avx2", "default"))) double PairForwardStep(int n, const double* prev,
                                                                         const double* tri,
                                                                         const double* trans,
                                                                         const double* u,
                                                                         double* tmp, double* cur) {
  double sum = 0;
  for (int b = 0; b < n; ++b) {
    std::fill(tmp, tmp + n, 0.0);
    for (int a = 0; a <= n; ++a) {
      const double x = prev[static_cast<size_t>(a) * n + b];
      if (x == 0.0) continue;
      const double* row = tri + (static_cast<size_t>(a) * n + b) * n;
      for (int c = 0; c < n; ++c) tmp[c] += x * row[c];
    }
    const double* trow = trans + static_cast<size_t>(b) * n;
    double* out = cur + static_cast<size_t>(b) * n;
    for (int c = 0; c < n; ++c) sum += out[c] = tmp[c] * trow[c] * u[c];
  }
  return sum;
}

namespace {

// The largest finite value of v[0..n), or 0 if none is finite.
double FiniteMax(const double* v, size_t n) {
  double mx = kNegInf;
  for (size_t i = 0; i < n; ++i) {
    if (std::isfinite(v[i])) mx = std::max(mx, v[i]);
  }
  return mx == kNegInf ? 0.0 : mx;
}

// log Z in probability space with the layer sums normalised at every position (as the trainer's
// kernel), so exp runs once per score of the sentence instead of once per (a, b, c) and position.
// Returns NaN when a factor underflows (a layer sums to 0 or is not finite); the caller then
// falls back to log space, which also tells an infeasible lattice apart.
double ScaledLogPartition(const Lattice& lattice) {
  const int m = lattice.size();
  const int n = lattice.num_labels();
  const size_t layer = PairCells(n);
  std::vector<double> trans(static_cast<size_t>(n) * n), start(n), end(n);
  std::vector<double> u(n), tmp(n), prev(layer, 0.0), cur(layer, 0.0);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  double log_z = ExpShifted(lattice.start_data().data(), n, start.data()) +
                 ExpShifted(lattice.end_data().data(), n, end.data());
  // A model's exponentiated trigram scores are shared; owned scores are exponentiated here.
  const Lattice::SharedTrigram& shared = lattice.shared_trigram();
  std::vector<double> owned_exp;
  const double* tri = shared.exp;
  double tri_shift = shared.exp_shift;
  if (m > 1 && tri == nullptr) {
    owned_exp.resize(layer * n);
    tri_shift = ExpShifted(lattice.trigram_data().data(), owned_exp.size(), owned_exp.data());
    tri = owned_exp.data();
  }
  if (m > 1) {
    log_z += (m - 1) *
             (ExpShifted(lattice.transition_data().data(), trans.size(), trans.data()) + tri_shift);
  }
  auto normalise = [&](std::vector<double>& v, double sum) {
    if (!(sum > 0) || !std::isfinite(sum)) return false;
    const double inv = 1.0 / sum;
    for (double& x : v) x *= inv;
    log_z += std::log(sum);
    return true;
  };
  log_z += ExpShifted(lattice.unary_row(0).data(), n, u.data());
  double sum = 0;
  for (int c = 0; c < n; ++c) sum += prev[static_cast<size_t>(n) * n + c] = start[c] * u[c];
  if (!normalise(prev, sum)) return nan;
  for (int t = 1; t < m; ++t) {
    log_z += ExpShifted(lattice.unary_row(t).data(), n, u.data());
    // Row N (before the sentence) is used at t = 0 only.
    std::fill(cur.begin() + static_cast<size_t>(n) * n, cur.end(), 0.0);
    sum = PairForwardStep(n, prev.data(), tri, trans.data(), u.data(), tmp.data(), cur.data());
    if (!normalise(cur, sum)) return nan;
    prev.swap(cur);
  }
  double final_sum = 0;
  for (size_t i = 0; i < layer; ++i) final_sum += prev[i] * end[i % n];
  if (!(final_sum > 0) || !std::isfinite(final_sum)) return nan;
  return log_z + std::log(final_sum);
}

}  // namespace

double ExpShifted(const double* v, size_t n, double* out) {
  const double shift = FiniteMax(v, n);
  for (size_t i = 0; i < n; ++i) out[i] = std::exp(v[i] - shift);
  return shift;
}

std::vector<double> TrigramBounds(const double* trigram, int n) {
  std::vector<double> bounds(2 * static_cast<size_t>(n));
  std::fill(bounds.begin(), bounds.begin() + n, HUGE_VAL);
  std::fill(bounds.begin() + n, bounds.end(), -HUGE_VAL);
  for (int a = 0; a <= n; ++a) {
    for (int b = 0; b < n; ++b) {
      const double* row = trigram + (static_cast<size_t>(a) * n + b) * n;
      for (int c = 0; c < n; ++c) {
        bounds[b] = std::min(bounds[b], row[c]);
        bounds[n + b] = std::max(bounds[n + b], row[c]);
      }
    }
  }
  return bounds;
}

absl::StatusOr<Labeling> SecondOrderViterbi(const Lattice& lattice, ViterbiScratch* scratch) {
  const int m = lattice.size();
  const int n = lattice.num_labels();
  Labeling result;
  if (m == 0) return result;
  if (n <= 0) {
    return absl::InvalidArgumentError("ViterbiDecode: lattice has positions but no labels");
  }
  ViterbiScratch local;
  ViterbiScratch& s = scratch != nullptr ? *scratch : local;
  const size_t layer = PairCells(n);
  s.score.assign(layer * m, kNegInf);
  s.back.assign(layer * m, -1);
  s.stride = n;
  double* delta = s.score.data();
  int* back = s.back.data();
  const int bos = n;
  for (int c = 0; c < n; ++c) {
    delta[static_cast<size_t>(bos) * n + c] = lattice.start(c) + lattice.unary(0, c);
  }
  std::vector<double> acc(n);
  std::vector<int> arg(n);
  // Exact pruning: per middle label b the spread of its trigram scores bounds how far behind the
  // best delta_{t-1}(a*, b) another a may start and still win (or tie) for some c:
  // delta(a, b) + max_b < delta(a*, b) + min_b means a loses to a* for every c.
  std::vector<double> bounds;
  const double* tri_min = lattice.shared_trigram().bounds;
  if (tri_min == nullptr) {
    bounds = TrigramBounds(lattice.trigram_data().data(), n);
    tri_min = bounds.data();
  }
  const double* tri_max = tri_min + n;
  std::vector<int> live(n + 1);
  for (int t = 1; t < m; ++t) {
    const double* prev = delta + layer * (t - 1);
    double* cur = delta + layer * t;
    int* back_row = back + layer * t;
    const double* u = lattice.unary_row(t).data();
    for (int b = 0; b < n; ++b) {
      std::fill(acc.begin(), acc.end(), kNegInf);
      std::fill(arg.begin(), arg.end(), -1);
      double top = kNegInf;
      for (int a = 0; a <= n; ++a) top = std::max(top, prev[static_cast<size_t>(a) * n + b]);
      if (top == kNegInf) continue;
      // NaN-free: with a -inf trigram score min_b is -inf and nothing is pruned.
      // A margin keeps rounding in the sums below from turning a pruned a into a winner.
      const double floor = top + tri_min[b] - tri_max[b] -
                           1e-9 * (std::abs(top) + std::abs(tri_min[b]) + std::abs(tri_max[b]));
      int num_live = 0;
      for (int a = 0; a <= n; ++a) {
        const double v = prev[static_cast<size_t>(a) * n + b];
        if (v != kNegInf && !(v < floor)) live[num_live++] = a;
      }
      // max over a of delta_{t-1}(a, b) + trigram(a, b, c); smallest a on ties.
      for (int k = 0; k < num_live; ++k) {
        const int a = live[k];
        const double v = prev[static_cast<size_t>(a) * n + b];
        const double* tri = &lattice.trigram_data()[(static_cast<size_t>(a) * n + b) * n];
        for (int c = 0; c < n; ++c) {
          const double x = v + tri[c];
          if (x > acc[c]) {
            acc[c] = x;
            arg[c] = a;
          }
        }
      }
      double* row = cur + static_cast<size_t>(b) * n;
      int* brow = back_row + static_cast<size_t>(b) * n;
      for (int c = 0; c < n; ++c) {
        if (arg[c] < 0) continue;
        row[c] = (acc[c] + lattice.transition(b, c)) + u[c];
        brow[c] = arg[c];
      }
    }
  }
  // Ties: the smallest last label, then the smallest label before it, and so on backwards.
  const double* last = delta + layer * (m - 1);
  double best = kNegInf;
  int best_b = -1, best_c = -1;
  for (int c = 0; c < n; ++c) {
    for (int b = 0; b <= n; ++b) {
      const double v = last[static_cast<size_t>(b) * n + c] + lattice.end(c);
      if (v > best) {
        best = v;
        best_b = b;
        best_c = c;
      }
    }
  }
  if (best_c < 0 || std::isnan(best)) {
    return absl::NotFoundError("infeasible: every labeling of the lattice has score -inf");
  }
  result.labels.resize(m);
  result.score = best;
  int b = best_b, c = best_c;
  for (int t = m - 1; t >= 0; --t) {
    result.labels[t] = c;
    if (t == 0) break;
    const int a = back[layer * t + static_cast<size_t>(b) * n + c];
    c = b;
    b = a;
  }
  return result;
}

absl::StatusOr<Marginals> SecondOrderForwardBackward(const Lattice& lattice, bool log_z_only) {
  const int m = lattice.size();
  const int n = lattice.num_labels();
  Marginals out;
  if (m == 0) return out;
  if (n <= 0) {
    return absl::InvalidArgumentError("ForwardBackward: lattice has positions but no labels");
  }
  if (log_z_only) {
    out.log_z = ScaledLogPartition(lattice);
    if (std::isfinite(out.log_z)) return out;
  }
  const size_t layer = PairCells(n);
  const int bos = n;
  std::vector<double> alpha(layer * m, kNegInf);
  std::vector<double> tmp(n + 1);
  for (int c = 0; c < n; ++c) {
    alpha[static_cast<size_t>(bos) * n + c] = lattice.start(c) + lattice.unary(0, c);
  }
  for (int t = 1; t < m; ++t) {
    const double* prev = alpha.data() + layer * (t - 1);
    double* cur = alpha.data() + layer * t;
    for (int b = 0; b < n; ++b) {
      for (int c = 0; c < n; ++c) {
        for (int a = 0; a <= n; ++a) {
          tmp[a] = prev[static_cast<size_t>(a) * n + b] + lattice.trigram(a, b, c);
        }
        cur[static_cast<size_t>(b) * n + c] =
            LogSumExp(tmp.data(), n + 1) + lattice.transition(b, c) + lattice.unary(t, c);
      }
    }
  }
  std::vector<double> finals(layer);
  const double* last = alpha.data() + layer * (m - 1);
  for (size_t i = 0; i < layer; ++i) finals[i] = last[i] + lattice.end(static_cast<int>(i % n));
  out.log_z = LogSumExp(finals.data(), static_cast<int>(layer));
  if (!(out.log_z > kNegInf) || std::isnan(out.log_z)) {
    return absl::NotFoundError("infeasible: every labeling of the lattice has score -inf");
  }
  if (log_z_only) return out;

  std::vector<double> beta(layer * m, kNegInf);
  double* beta_last = beta.data() + layer * (m - 1);
  for (int b = 0; b <= n; ++b) {
    for (int c = 0; c < n; ++c) beta_last[static_cast<size_t>(b) * n + c] = lattice.end(c);
  }
  for (int t = m - 2; t >= 0; --t) {
    const double* next = beta.data() + layer * (t + 1);
    double* cur = beta.data() + layer * t;
    for (int b = 0; b <= n; ++b) {
      for (int c = 0; c < n; ++c) {
        for (int d = 0; d < n; ++d) {
          tmp[d] = lattice.transition(c, d) + lattice.trigram(b, c, d) + lattice.unary(t + 1, d) +
                   next[static_cast<size_t>(c) * n + d];
        }
        cur[static_cast<size_t>(b) * n + c] = LogSumExp(tmp.data(), n);
      }
    }
  }
  out.unary.assign(static_cast<size_t>(m) * n, 0.0);
  out.transition.assign(static_cast<size_t>(n) * n, 0.0);
  out.trigram.assign(static_cast<size_t>(n + 1) * n * n, 0.0);
  out.start.assign(n, 0.0);
  out.end.assign(n, 0.0);
  for (int t = 0; t < m; ++t) {
    const double* a_t = alpha.data() + layer * t;
    const double* b_t = beta.data() + layer * t;
    for (int b = 0; b <= n; ++b) {
      for (int c = 0; c < n; ++c) {
        const size_t i = static_cast<size_t>(b) * n + c;
        const double v = a_t[i] + b_t[i] - out.log_z;
        if (v == kNegInf) continue;
        out.unary[static_cast<size_t>(t) * n + c] += std::exp(v);
      }
    }
    if (t == 0) continue;
    // Trigram (a, b, c) ending at t: alpha_{t-1}(a, b) + scores of c + beta_t(b, c).
    const double* a_prev = alpha.data() + layer * (t - 1);
    for (int a = 0; a <= n; ++a) {
      for (int b = 0; b < n; ++b) {
        const double x = a_prev[static_cast<size_t>(a) * n + b];
        if (x == kNegInf) continue;
        for (int c = 0; c < n; ++c) {
          const double v = x + lattice.trigram(a, b, c) + lattice.transition(b, c) +
                           lattice.unary(t, c) + b_t[static_cast<size_t>(b) * n + c] - out.log_z;
          if (v == kNegInf) continue;
          const double p = std::exp(v);
          out.trigram[(static_cast<size_t>(a) * n + b) * n + c] += p;
          out.transition[static_cast<size_t>(b) * n + c] += p;
        }
      }
    }
  }
  for (int y = 0; y < n; ++y) {
    out.start[y] = out.unary[y];
    out.end[y] = out.unary[static_cast<size_t>(m - 1) * n + y];
  }
  return out;
}

}  // namespace decode_internal
}  // namespace chaintag
