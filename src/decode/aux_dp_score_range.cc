// Score-range decoding: the chain score quantised as an auxiliary statistic (Bauer, Nakajima,
// Mueller 2023, Sec. 4.3), with states pruned by backward max/min completion bounds and merged
// into one "free" state once every completion is guaranteed to land in range.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "decode/aux_dp.h"
#include "decode/round.h"

namespace chaintag {
namespace {

absl::Status CheckRangeArguments(double lower, double upper, double resolution) {
  if (!(lower <= upper)) {
    return absl::InvalidArgumentError(
        absl::StrCat("score range ", lower, "..", upper, ": expected lower <= upper"));
  }
  if (!(resolution > 0)) {
    return absl::InvalidArgumentError(
        absl::StrCat("score resolution ", resolution, ": expected a positive number"));
  }
  return absl::OkStatus();
}

constexpr int64_t kNoIncrement = std::numeric_limits<int64_t>::min();
constexpr double kPosInf = std::numeric_limits<double>::infinity();

// Clamps a real quantisation index into a range where int64 arithmetic cannot overflow.
int64_t ClampIndex(double v) {
  constexpr double kLimit = 4.0e18;
  if (std::isnan(v)) return 0;
  return static_cast<int64_t>(std::clamp(v, -kLimit, kLimit));
}

// The quantisation index of v at resolution r (v finite).
int64_t Quantise(double v, double r) { return ClampIndex(RoundToNearestEven(v / r)); }

int64_t SaturatingAdd(int64_t a, int64_t b) {
  int64_t out;
  if (__builtin_add_overflow(a, b, &out)) return b > 0 ? INT64_MAX : INT64_MIN;
  return out;
}
int64_t SaturatingMul(int64_t a, int64_t b) {
  int64_t out;
  if (__builtin_mul_overflow(a, b, &out)) return (a > 0) == (b > 0) ? INT64_MAX : INT64_MIN;
  return out;
}

struct Interval {
  int64_t lo;
  int64_t hi;
};

// The exact score the label y adds at t after prev (and, at second order, after `before`; bos at
// t = 1): start or transition, trigram, unary, and the end score folded into the last position.
double ExactIncrement(const Lattice& lattice, int t, int before, int prev, int y) {
  double v = t == 0 ? lattice.start(y) : lattice.transition(prev, y);
  if (lattice.order() == 2 && t > 0) {
    v += lattice.trigram(t == 1 ? lattice.bos() : before, prev, y);
  }
  v += lattice.unary(t, y);
  if (t == lattice.size() - 1) v += lattice.end(y);
  return v;
}

// Second order: per (t, y) the max / min score of the rest of the chain after t and of the prefix
// up to t, by Viterbi both ways over label pairs (prev, y) (prev = N before the sentence), reduced
// over prev (sound bounds, looser than per pair). `increments(t, before, prev)` points to the exact
// scores each label adds at t after (before, prev).
template <typename Increments>
void SecondOrderBounds(int m, int n, const Increments& increments, std::vector<double>* best_rest,
                       std::vector<double>* worst_rest, std::vector<double>* best_prefix,
                       std::vector<double>* worst_prefix) {
  const size_t pairs = static_cast<size_t>(n + 1) * n;  // (prev, y); prev = n only at t = 0
  auto prevs = [n](int t) { return t == 0 ? std::pair{n, n + 1} : std::pair{0, n}; };
  auto at = [n](int p, int y) { return static_cast<size_t>(p) * n + y; };
  // Backward: hi / lo[(p, y)] = max / min score of the rest after (t - 1, t) = (p, y).
  std::vector<double> hi(pairs, 0.0), lo(pairs, 0.0), next_hi(pairs), next_lo(pairs);
  for (int t = m - 1; t >= 0; --t) {
    const auto [p0, p1] = prevs(t);
    if (t < m - 1) {
      std::fill(next_hi.begin(), next_hi.end(), kNegInf);
      std::fill(next_lo.begin(), next_lo.end(), kPosInf);
      for (int p = p0; p < p1; ++p) {
        for (int y = 0; y < n; ++y) {
          const double* row = increments(t + 1, p, y);
          const double* rest_hi = hi.data() + at(y, 0);
          const double* rest_lo = lo.data() + at(y, 0);
          double best = kNegInf, worst = kPosInf;  // in registers: no store per label
          for (int z = 0; z < n; ++z) {
            const double inc = row[z];
            if (!std::isfinite(inc) || rest_hi[z] == kNegInf) continue;
            best = std::max(best, inc + rest_hi[z]);
            worst = std::min(worst, inc + rest_lo[z]);
          }
          next_hi[at(p, y)] = best;
          next_lo[at(p, y)] = worst;
        }
      }
      hi.swap(next_hi);
      lo.swap(next_lo);
    }
    for (int y = 0; y < n; ++y) {
      for (int p = p0; p < p1; ++p) {
        if (hi[at(p, y)] == kNegInf) continue;
        double& h = (*best_rest)[static_cast<size_t>(t) * n + y];
        double& l = (*worst_rest)[static_cast<size_t>(t) * n + y];
        h = std::max(h, hi[at(p, y)]);
        l = std::min(l, lo[at(p, y)]);
      }
    }
  }
  // Forward: hi / lo[(p, y)] = max / min prefix score ending in (t - 1, t) = (p, y).
  std::fill(hi.begin(), hi.end(), kNegInf);
  std::fill(lo.begin(), lo.end(), kPosInf);
  const double* first = increments(0, n, -1);
  for (int y = 0; y < n; ++y) {
    const double inc = first[y];
    if (std::isfinite(inc)) hi[at(n, y)] = lo[at(n, y)] = inc;
  }
  for (int t = 0; t < m; ++t) {
    const auto [p0, p1] = prevs(t);
    if (t > 0) {
      std::fill(next_hi.begin(), next_hi.end(), kNegInf);
      std::fill(next_lo.begin(), next_lo.end(), kPosInf);
      const auto [b0, b1] = prevs(t - 1);
      for (int b = b0; b < b1; ++b) {
        for (int p = 0; p < n; ++p) {
          if (hi[at(b, p)] == kNegInf) continue;
          const double* row = increments(t, b, p);
          for (int y = 0; y < n; ++y) {
            const double inc = row[y];
            if (!std::isfinite(inc)) continue;
            next_hi[at(p, y)] = std::max(next_hi[at(p, y)], hi[at(b, p)] + inc);
            next_lo[at(p, y)] = std::min(next_lo[at(p, y)], lo[at(b, p)] + inc);
          }
        }
      }
      hi.swap(next_hi);
      lo.swap(next_lo);
    }
    for (int y = 0; y < n; ++y) {
      for (int p = p0; p < p1; ++p) {
        double& h = (*best_prefix)[static_cast<size_t>(t) * n + y];
        double& l = (*worst_prefix)[static_cast<size_t>(t) * n + y];
        h = std::max(h, hi[at(p, y)]);
        l = std::min(l, lo[at(p, y)]);
      }
    }
  }
}

// Per (t, y): the max / min score of the rest of the chain after t (end included; 0 at the last
// position) and of the prefix up to t (best_* -inf when none is finite). Exact at first order
// (Viterbi both ways); at second order reduced over the previous label (sound, looser).
void ChainBounds(const Lattice& lattice, std::vector<double>* best_rest,
                 std::vector<double>* worst_rest, std::vector<double>* best_prefix,
                 std::vector<double>* worst_prefix) {
  const int m = lattice.size();
  const int n = lattice.num_labels();
  const size_t cells = static_cast<size_t>(m) * n;
  best_rest->assign(cells, kNegInf);
  worst_rest->assign(cells, kPosInf);
  best_prefix->assign(cells, kNegInf);
  worst_prefix->assign(cells, kPosInf);
  if (m == 0 || n == 0) return;
  auto increment = [&](int t, int before, int prev, int y) {
    return ExactIncrement(lattice, t, before, prev, y);
  };
  if (lattice.order() == 2) {
    // Rows of ExactIncrement (the same sums in the same order), filled without a call per label.
    std::vector<double> scratch(n);
    auto increments = [&](int t, int before, int prev) {
      const double* unary = lattice.unary_row(t).data();
      if (t == 0) {
        for (int y = 0; y < n; ++y) scratch[y] = lattice.start(y) + unary[y];
      } else {
        const double* trans = lattice.transition_data().data() + static_cast<size_t>(prev) * n;
        const double* tri = lattice.trigram_data().data() +
                            (static_cast<size_t>(t == 1 ? lattice.bos() : before) * n + prev) * n;
        for (int y = 0; y < n; ++y) scratch[y] = (trans[y] + tri[y]) + unary[y];
      }
      if (t == m - 1) {
        for (int y = 0; y < n; ++y) scratch[y] += lattice.end(y);
      }
      return static_cast<const double*>(scratch.data());
    };
    SecondOrderBounds(m, n, increments, best_rest, worst_rest, best_prefix, worst_prefix);
    return;
  }
  // Exact max / min score of the rest of the chain after (t, y) (backward Viterbi both ways).
  for (int y = 0; y < n; ++y) {
    (*best_rest)[static_cast<size_t>(m - 1) * n + y] = 0.0;
    (*worst_rest)[static_cast<size_t>(m - 1) * n + y] = 0.0;
  }
  for (int t = m - 2; t >= 0; --t) {
    for (int y = 0; y < n; ++y) {
      double best = kNegInf, worst = kPosInf;
      for (int z = 0; z < n; ++z) {
        const double inc = increment(t + 1, 0, y, z);
        const double b = (*best_rest)[static_cast<size_t>(t + 1) * n + z];
        if (!std::isfinite(inc) || b == kNegInf) continue;
        best = std::max(best, inc + b);
        worst = std::min(worst, inc + (*worst_rest)[static_cast<size_t>(t + 1) * n + z]);
      }
      (*best_rest)[static_cast<size_t>(t) * n + y] = best;
      (*worst_rest)[static_cast<size_t>(t) * n + y] = worst;
    }
  }
  // Exact max / min prefix score up to (t, y) (forward Viterbi both ways) bounds reachable
  // partials.
  for (int y = 0; y < n; ++y) {
    const double inc = increment(0, 0, -1, y);
    if (std::isfinite(inc)) (*best_prefix)[y] = (*worst_prefix)[y] = inc;
  }
  for (int t = 1; t < m; ++t) {
    for (int y = 0; y < n; ++y) {
      double best = kNegInf, worst = kPosInf;
      for (int p = 0; p < n; ++p) {
        const double inc = increment(t, 0, p, y);
        const double b = (*best_prefix)[static_cast<size_t>(t - 1) * n + p];
        if (!std::isfinite(inc) || b == kNegInf) continue;
        best = std::max(best, b + inc);
        worst = std::min(worst, (*worst_prefix)[static_cast<size_t>(t - 1) * n + p] + inc);
      }
      (*best_prefix)[static_cast<size_t>(t) * n + y] = best;
      (*worst_prefix)[static_cast<size_t>(t) * n + y] = worst;
    }
  }
}

}  // namespace

// Per-position live intervals of quantised partials and the id of each interval's first value.
struct ScoreRangeLayout {
  std::vector<std::vector<Interval>> intervals;  // M, sorted, disjoint
  std::vector<std::vector<int>> first_id;        // M, parallel to intervals
  std::vector<int64_t> klo, khi, flo, fhi;       // M x N live and free bounds per cell
  std::vector<char> dead;                        // M x N: no finite completion
};

absl::StatusOr<std::unique_ptr<ScoreRangeStatistic>> ScoreRangeStatistic::Create(
    const Lattice& lattice, double lower, double upper, double resolution, int max_states,
    bool refine_narrow) {
  if (absl::Status st = CheckRangeArguments(lower, upper, resolution); !st.ok()) return st;
  std::unique_ptr<ScoreRangeStatistic> s(new ScoreRangeStatistic());
  const int m = lattice.size();
  const int n = lattice.num_labels();
  s->m_ = m;
  s->n_ = n;
  s->lower_ = lower;
  s->upper_ = upper;
  auto layout_ptr = std::make_shared<ScoreRangeLayout>();
  s->layout_ = layout_ptr;
  double r = resolution;
  // The guarantee needs upper - lower >= M * r (see aux_dp.h), so narrow ranges refine r.
  if (refine_narrow && m > 0 && upper - lower < m * r * (1 + 1e-9)) {
    r = (upper - lower) / (m * (1 + 1e-6));
    if (!(r > 0)) {
      return absl::InvalidArgumentError(absl::StrCat("score range ", lower, "..", upper,
                                                     ": expected upper > lower (zero width)"));
    }
  }
  s->resolution_ = r;
  if (m == 0 || n == 0) {
    s->num_states_ = 2;
    return s;
  }

  const bool second_order = lattice.order() == 2;
  auto increment = [&](int t, int before, int prev, int y) {
    return ExactIncrement(lattice, t, before, prev, y);
  };
  const size_t cells = static_cast<size_t>(m) * n;
  std::vector<double> best_prefix, worst_prefix;
  ChainBounds(lattice, &s->best_rest_, &s->worst_rest_, &best_prefix, &worst_prefix);
  if (second_order) {
    // Increments are rounded as the engine asks for them (SecondOrderIncrement).
    s->lattice_ = std::make_shared<const Lattice>(lattice);
  } else {
    const size_t per_t = static_cast<size_t>(n + 1) * n;
    s->increment_.assign(per_t * m, kNoIncrement);
    for (int t = 0; t < m; ++t) {
      for (int prev = (t == 0 ? -1 : 0); prev < (t == 0 ? 0 : n); ++prev) {
        for (int y = 0; y < n; ++y) {
          const double v = increment(t, 0, prev, y);
          if (std::isfinite(v)) {
            s->increment_[per_t * t + static_cast<size_t>(prev + 1) * n + y] = Quantise(v, r);
          }
        }
      }
    }
  }
  ScoreRangeLayout& layout = *layout_ptr;
  layout.klo.assign(cells, 0);
  layout.khi.assign(cells, -1);
  layout.flo.assign(cells, 1);
  layout.fhi.assign(cells, 0);
  layout.dead.assign(cells, 1);
  layout.intervals.assign(m, {});
  layout.first_id.assign(m, {});
  int max_width = 1;
  for (int t = 0; t < m; ++t) {
    const double err = s->ErrorBound(t);
    std::vector<Interval> live;
    for (int y = 0; y < n; ++y) {
      const size_t i = static_cast<size_t>(t) * n + y;
      const double best = s->best_rest_[i], worst = s->worst_rest_[i];
      if (best == kNegInf || best_prefix[i] == kNegInf) continue;
      layout.dead[i] = 0;
      // Partial P lies within err of k*r; the final score is P + rest, rest in [worst, best].
      layout.klo[i] = ClampIndex(std::ceil((lower - err - best) / r));
      layout.khi[i] = ClampIndex(std::floor((upper + err - worst) / r));
      layout.flo[i] = ClampIndex(std::ceil((lower + err - worst) / r));
      layout.fhi[i] = ClampIndex(std::floor((upper - err - best) / r));
      // Quantised partials of reachable prefixes lie within err of an exact prefix score.
      layout.klo[i] = std::max(layout.klo[i], ClampIndex(std::ceil((worst_prefix[i] - err) / r)));
      layout.khi[i] = std::min(layout.khi[i], ClampIndex(std::floor((best_prefix[i] + err) / r)));
      const int64_t lo = layout.klo[i], hi = layout.khi[i];
      if (lo > hi) continue;
      if (layout.flo[i] <= layout.fhi[i]) {
        if (lo <= layout.flo[i] - 1) live.push_back({lo, std::min(hi, layout.flo[i] - 1)});
        if (layout.fhi[i] + 1 <= hi) live.push_back({std::max(lo, layout.fhi[i] + 1), hi});
      } else {
        live.push_back({lo, hi});
      }
    }
    std::sort(live.begin(), live.end(),
              [](const Interval& a, const Interval& b) { return a.lo < b.lo; });
    std::vector<Interval>& merged = layout.intervals[t];
    for (const Interval& iv : live) {
      if (!merged.empty() && iv.lo <= merged.back().hi + 1) {
        merged.back().hi = std::max(merged.back().hi, iv.hi);
      } else {
        merged.push_back(iv);
      }
    }
    int64_t width = 0;
    for (const Interval& iv : merged) {
      layout.first_id[t].push_back(static_cast<int>(1 + width));
      width += iv.hi - iv.lo + 1;
      if (width > max_states) {
        return absl::ResourceExhaustedError(absl::StrCat(
            "score range ", lower, "..", upper, " at resolution ", r, " needs more than ",
            max_states, " states at position ", t, " (--score-max-states)"));
      }
    }
    max_width = std::max<int>(max_width, static_cast<int>(width));
  }
  s->num_states_ = 1 + max_width;
  return s;
}

double ScoreRangeStatistic::ErrorBound(int position) const {
  // One rounding of at most r/2 per position so far; the factor absorbs floating-point noise.
  return (position + 1) * resolution_ * 0.5 * (1 + 1e-9);
}

int ScoreRangeStatistic::Classify(int position, int label, int64_t k) const {
  const ScoreRangeLayout& layout = *layout_;
  const size_t i = static_cast<size_t>(position) * n_ + label;
  if (layout.dead[i] || k < layout.klo[i] || k > layout.khi[i]) return kInfeasible;
  if (k >= layout.flo[i] && k <= layout.fhi[i]) return kFree;
  const std::vector<Interval>& ivs = layout.intervals[position];
  // k is live here, so inside the union of the position's intervals: one interval holds it.
  if (ivs.size() == 1) return layout.first_id[position][0] + static_cast<int>(k - ivs[0].lo);
  auto it = std::upper_bound(ivs.begin(), ivs.end(), k,
                             [](int64_t v, const Interval& iv) { return v < iv.lo; });
  if (it == ivs.begin()) return kInfeasible;
  --it;
  if (k > it->hi) return kInfeasible;
  return layout.first_id[position][it - ivs.begin()] + static_cast<int>(k - it->lo);
}

int ScoreRangeStatistic::Next(int state, int position, int prev_label, int label) const {
  if (m_ == 0) return kFree;
  if (lattice_ != nullptr) return kInfeasible;  // second order: the engine asks NextAfter
  return Advance(state, position, label,
                 increment_[static_cast<size_t>(n_ + 1) * n_ * position +
                            static_cast<size_t>(prev_label + 1) * n_ + label]);
}

int ScoreRangeStatistic::NextAfter(int state, int position, int before, int prev_label,
                                   int label) const {
  if (m_ == 0 || lattice_ == nullptr) return Next(state, position, prev_label, label);
  return Advance(state, position, label, SecondOrderIncrement(position, before, prev_label, label));
}

int64_t ScoreRangeStatistic::SecondOrderIncrement(int position, int before, int prev_label,
                                                  int label) const {
  const double v = ExactIncrement(*lattice_, position, before, prev_label, label);
  return std::isfinite(v) ? Quantise(v, resolution_) : kNoIncrement;
}

int ScoreRangeStatistic::Advance(int state, int position, int label, int64_t inc) const {
  if (inc == kNoIncrement) return kInfeasible;
  if (position == 0) return Classify(0, label, inc);  // the state before position 0 means k = 0
  if (state == kFree) {
    return layout_->dead[static_cast<size_t>(position) * n_ + label] ? kInfeasible : kFree;
  }
  int64_t k_prev;
  if (!Partial(state, position, &k_prev)) return kInfeasible;
  return Classify(position, label, k_prev + inc);
}

bool ScoreRangeStatistic::Partial(int state, int position, int64_t* k) const {
  const std::vector<Interval>& ivs = layout_->intervals[position - 1];
  const std::vector<int>& first = layout_->first_id[position - 1];
  auto it = std::upper_bound(first.begin(), first.end(), state);
  if (it == first.begin()) return false;
  const size_t j = (it - first.begin()) - 1;
  *k = ivs[j].lo + (state - first[j]);
  return *k <= ivs[j].hi;
}

absl::Status ScoreRangeStatistic::Validate(const Lattice& lattice) const {
  if (lattice.size() != m_ || lattice.num_labels() != n_) {
    return absl::InvalidArgumentError(absl::StrCat("ScoreRangeStatistic: built for a ", m_, " x ",
                                                   n_, " lattice; got ", lattice.size(), " x ",
                                                   lattice.num_labels()));
  }
  if (m_ > 0 && n_ > 0 && (lattice.order() == 2) != (lattice_ != nullptr)) {
    return absl::InvalidArgumentError(
        absl::StrCat("ScoreRangeStatistic: built for a lattice of order ",
                     lattice_ != nullptr ? 2 : 1, "; got order ", lattice.order()));
  }
  return absl::OkStatus();
}

void ScoreRangeStatistic::FillRow(int position, int prev_label, int state, int num_labels,
                                  int* row) const {
  if (m_ == 0 || lattice_ != nullptr) {
    Statistic::FillRow(position, prev_label, state, num_labels, row);
    return;
  }
  const int64_t* inc = increment_.data() + static_cast<size_t>(n_ + 1) * n_ * position +
                       static_cast<size_t>(prev_label + 1) * n_;
  // The partial before `position` is found once per row (the state before position 0 means 0).
  int64_t k = 0;
  const bool live = position == 0 || state == kFree || Partial(state, position, &k);
  const char* dead = layout_->dead.data() + static_cast<size_t>(position) * n_;
  for (int y = 0; y < num_labels; ++y) {
    if (!live || inc[y] == kNoIncrement) {
      row[y] = kInfeasible;
    } else if (position > 0 && state == kFree) {
      row[y] = dead[y] ? kInfeasible : kFree;
    } else {
      row[y] = Classify(position, y, k + inc[y]);
    }
  }
}

namespace {

// The score-range DP without other constraints, in one pass: cells (position t, label y, at second
// order the label before y, quantised partial k) over per-label windows of k, each cell keeping the
// highest and the lowest exact partial score with their back-pointers (what the generic engine
// needs two runs for). The exact extremes decide, after each position, whether a whole cell can be
// dropped (no completion reaches the range) or is "free" (no completion overshoots the range, so
// the highest partial has the best in-range completion if any has one; one free cell per label and
// history keeps the best of those, and partials the rounding bound already shows free skip the
// window). A cell's predecessor lies at k minus the rounded increment, so each (label,
// predecessor label) pair is one shifted pass over a window.
class RangeDp {
 public:
  RangeDp(const Lattice& lattice, double lower, double upper)
      : lattice_(lattice),
        m_(lattice.size()),
        n_(lattice.num_labels()),
        second_order_(lattice.order() == 2),
        lower_(lower),
        upper_(upper) {
    ChainBounds(lattice, &best_rest_, &worst_rest_, &best_prefix_, &worst_prefix_);
    // Per position a bound on |increment| by the triangle inequality over its terms: rounding an
    // increment to a multiple of r errs by at most min(r/2, |increment|), so at coarse r the
    // windows stop widening with the position (they grew by one partial per position).
    auto max_abs = [](const double* v, size_t count) {
      double out = 0;
      for (size_t i = 0; i < count; ++i) {
        if (std::isfinite(v[i])) out = std::max(out, std::fabs(v[i]));
      }
      return out;
    };
    const size_t nn = static_cast<size_t>(n_);
    std::vector<double> starts(nn), ends(nn);
    for (int y = 0; y < n_; ++y) {
      starts[y] = lattice.start(y);
      ends[y] = lattice.end(y);
    }
    double between = max_abs(lattice.transition_data().data(), nn * nn);
    if (second_order_) {
      between += max_abs(lattice.trigram_data().data(), lattice.trigram_data().size());
    }
    const double end = max_abs(ends.data(), nn);
    abs_increment_.assign(m_, 0.0);
    for (int t = 0; t < m_; ++t) {
      abs_increment_[t] = (t == 0 ? max_abs(starts.data(), nn) : between) +
                          max_abs(lattice.unary_row(t).data(), nn) + (t == m_ - 1 ? end : 0.0);
    }
  }

  RangeDp(const RangeDp&) = delete;
  RangeDp& operator=(const RangeDp&) = delete;
  ~RangeDp() {
    // The cells of a huge sentence are not kept for the thread's lifetime.
    constexpr size_t kKeptBytes = size_t{64} << 20;
    const size_t bytes = (hi_.capacity() + lo_.capacity()) * sizeof(double) +
                         (hi_back_.capacity() + lo_back_.capacity()) * sizeof(int32_t) +
                         blocks_.capacity() * sizeof(Block);
    if (bytes > kKeptBytes) cells_ = Cells();
  }

  // The cost of a run at resolution r, from the windows alone (an upper bound on what Run does):
  // cell updates, cells, and the widest window of one label at one position.
  struct Estimate {
    int64_t work = 0;
    int64_t cells = 0;
    int64_t widest = 0;
  };
  Estimate EstimateAt(double r) const {
    Estimate e;
    const std::vector<double> err = ErrorBounds(r);
    for (int t = 0; t < m_; ++t) {
      for (int y = 0; y < n_; ++y) {
        int64_t lo, hi;
        if (!Window(t, y, r, err[t], &lo, &hi)) continue;
        // Saturating: windows at a tiny resolution can be ~1e19 partials wide.
        const int64_t width = std::max<int64_t>(0, SaturatingAdd(hi - lo, 1));
        const int64_t slots = SaturatingMul(SaturatingAdd(width, 1), Histories(t));
        e.cells = SaturatingAdd(e.cells, slots);
        e.work = SaturatingAdd(e.work, SaturatingMul(slots, t == 0 ? 1 : n_));
        e.widest = std::max(e.widest, width);
      }
    }
    return e;
  }

  // The work of the coarsest windows (one partial and the free cell per live label and position).
  int64_t LeastWork() const {
    int64_t work = 0;
    for (int t = 0; t < m_; ++t) {
      for (int y = 0; y < n_; ++y) {
        const size_t i = static_cast<size_t>(t) * n_ + y;
        if (best_rest_[i] == kNegInf || best_prefix_[i] == kNegInf) continue;
        work += 2 * Histories(t) * (t == 0 ? 1 : n_);
      }
    }
    return work;
  }

  enum class Outcome { kFound, kInfeasible, kUndecided };
  // One pass at resolution r; `work` receives the cell updates done.
  Outcome Run(double r, Labeling* out, int64_t* work);

 private:
  // The cells of one (t, y, history): a window of `width` partials from klo(t, y), and the free
  // cell. Backs are the predecessor's label (first order) or its history (second order).
  struct Block {
    int64_t offset = 0;  // into hi_, lo_, hi_back_, lo_back_
    int32_t first = 0;   // live cells [first, last)
    int32_t last = 0;
    double free_hi = kNegInf;  // the free cell's best partial (-inf: none)
    int32_t free_back = -1;
    int64_t free_back_k = 0;  // the free cell's predecessor: its partial, or kFreeSlot
  };
  static constexpr int64_t kFreeSlot = std::numeric_limits<int64_t>::min();  // never a partial

  int Histories(int t) const { return second_order_ && t > 0 ? n_ : 1; }
  // Rounding noise of a sum a + b of partial scores summed in another order than Lattice::Score:
  // comparisons of such sums with the range decide nothing within it (cells are kept, not freed).
  static double Slack(double a, double b) { return 1e-9 * (1 + std::fabs(a) + std::fabs(b)); }
  // Per position t, a bound on |quantised partial - exact partial| after t: the sum of each
  // position's rounding error, min(r/2, |increment|); the factor absorbs floating-point noise.
  std::vector<double> ErrorBounds(double r) const {
    std::vector<double> err(m_);
    double sum = 0;
    for (int t = 0; t < m_; ++t) {
      sum += std::min(r * 0.5, abs_increment_[t]);
      err[t] = sum * (1 + 1e-9);
    }
    return err;
  }
  // The quantised partials [lo, hi] (lo > hi: none) that (t, y) keeps in its window, for error
  // bound `err`: those of a labeling that can end in range (the bounds of
  // ScoreRangeStatistic::Create) whose best completion may overshoot the range; partials below lo
  // go to the free cell (every completion scores at most `upper`). False if (t, y) is dead.
  bool Window(int t, int y, double r, double err, int64_t* lo, int64_t* hi) const {
    const size_t i = static_cast<size_t>(t) * n_ + y;
    if (best_rest_[i] == kNegInf || best_prefix_[i] == kNegInf) return false;
    *lo = std::max(ClampIndex(std::ceil((lower_ - err - best_rest_[i]) / r)),
                   ClampIndex(std::ceil((worst_prefix_[i] - err) / r)));
    *hi = std::min(ClampIndex(std::floor((upper_ + err - worst_rest_[i]) / r)),
                   ClampIndex(std::floor((best_prefix_[i] + err) / r)));
    if (*lo > *hi) return false;
    *lo = std::max(*lo, SaturatingAdd(FreeTop(i, r, err), 1));
    return true;
  }
  // The highest quantised partial of cell i = (t, y) whose labelings all have every completion
  // scoring at most `upper` (with rounding slack, as Settle's exact test).
  int64_t FreeTop(size_t i, double r, double err) const {
    const double best = best_rest_[i];
    return ClampIndex(std::floor((upper_ - err - best - Slack(upper_, best)) / r));
  }
  Block& BlockAt(int t, int y, int h) { return blocks_[block_begin_[t] + y * Histories(t) + h]; }
  // The label before (t, y, h) and that label's history, for a back-pointer `back`.
  int PrevLabel(int h, int back) const { return second_order_ ? h : back; }
  int PrevHistory(int back) const { return second_order_ ? back : 0; }
  // The exact increment into (t, y, h) from its predecessor named by `back`: ExactIncrement's
  // sum in its order, inline (the search asks for one per predecessor block and cell).
  double Increment(int t, int y, int h, int back) const {
    if (t == 0) return ExactIncrement(lattice_, 0, 0, -1, y);
    const size_t nn = static_cast<size_t>(n_);
    const int prev = PrevLabel(h, back);
    double v = transition_[prev * nn + y];
    if (second_order_) v += trigram_[((t == 1 ? lattice_.bos() : back) * nn + prev) * nn + y];
    v += unary_[t * nn + y];
    if (t == m_ - 1) v += end_[y];
    return v;
  }
  // Drops the cells of a block no completion brings into range, moves those no completion
  // overshoots into its free cell (r: to name their predecessors), and sets first / last.
  void Settle(int t, int y, int h, double r);

  const Lattice& lattice_;
  const double* transition_ = lattice_.transition_data().data();
  const double* trigram_ = lattice_.trigram_data().data();  // null at first order
  const double* unary_ = lattice_.unary_data().data();
  const double* end_ = lattice_.end_data().data();
  const int m_, n_;
  const bool second_order_;
  const double lower_, upper_;
  std::vector<double> best_rest_, worst_rest_, best_prefix_, worst_prefix_;
  std::vector<double> abs_increment_;  // M: a bound on |increment| at each position
  std::vector<char> live_;             // M x N: Window found (t, y) alive (its free cell may be)
  std::vector<int64_t> klo_, width_;   // M x N windows (width 0: all partials dead or free)
  std::vector<int64_t> free_top_;      // M x N: partials <= this one are free
  std::vector<size_t> block_begin_;    // M + 1
  // The cells, reused by the thread's next search: fresh pages for every sentence cost more in
  // page faults and zeroing than the search's own work on short sentences.
  struct Cells {
    std::vector<Block> blocks;
    std::vector<double> hi, lo;
    std::vector<int32_t> hi_back, lo_back;
    std::vector<int32_t> live_backs, live_count;  // Run's per-position predecessor lists
  };
  static Cells& ThreadCells() {
    thread_local Cells cells;
    return cells;
  }
  Cells& cells_ = ThreadCells();
  std::vector<Block>& blocks_ = cells_.blocks;
  std::vector<double>& hi_ = cells_.hi;
  std::vector<double>& lo_ = cells_.lo;
  std::vector<int32_t>& hi_back_ = cells_.hi_back;
  std::vector<int32_t>& lo_back_ = cells_.lo_back;
  std::vector<int32_t>& live_backs_ = cells_.live_backs;
  std::vector<int32_t>& live_count_ = cells_.live_count;
};

void RangeDp::Settle(int t, int y, int h, double r) {
  Block& b = BlockAt(t, y, h);
  const size_t i = static_cast<size_t>(t) * n_ + y;
  const double best = best_rest_[i], worst = worst_rest_[i];
  double* hi = hi_.data() + b.offset;
  double* lo = lo_.data() + b.offset;
  const int32_t width = static_cast<int32_t>(width_[i]);
  b.first = width;
  b.last = 0;
  for (int32_t j = 0; j < width; ++j) {
    if (hi[j] == kNegInf) continue;
    const double top = hi[j] + best, bottom = lo[j] + worst;
    const double top_slack = Slack(hi[j], best), bottom_slack = Slack(lo[j], worst);
    const bool reaches = top >= lower_ - top_slack && bottom <= upper_ + bottom_slack;
    // A cell whose best completion cannot overshoot needs only its highest partial (its best
    // completion is then the best in-range one through it, or none is in range).
    if (reaches && top > upper_ - top_slack) {
      b.first = std::min(b.first, j);
      b.last = j + 1;
      continue;
    }
    if (reaches && hi[j] > b.free_hi) {  // no completion overshoots
      b.free_hi = hi[j];
      b.free_back = hi_back_[b.offset + j];
      b.free_back_k = kFreeSlot;
      if (t > 0) {
        const double inc = Increment(t, y, h, b.free_back);
        b.free_back_k = klo_[i] + j - Quantise(inc, r);
      }
    }
    hi[j] = kNegInf;
    lo[j] = kPosInf;
  }
}

RangeDp::Outcome RangeDp::Run(double r, Labeling* out, int64_t* work) {
  *work = 0;
  // Lay out every position's windows and blocks.
  klo_.assign(static_cast<size_t>(m_) * n_, 0);
  width_.assign(static_cast<size_t>(m_) * n_, 0);
  free_top_.assign(static_cast<size_t>(m_) * n_, 0);
  live_.assign(static_cast<size_t>(m_) * n_, 0);
  block_begin_.assign(m_ + 1, 0);
  const std::vector<double> err = ErrorBounds(r);
  int64_t cells = 0;
  for (int t = 0; t < m_; ++t) {
    block_begin_[t + 1] = block_begin_[t] + static_cast<size_t>(n_) * Histories(t);
    for (int y = 0; y < n_; ++y) {
      int64_t lo, hi;
      const size_t i = static_cast<size_t>(t) * n_ + y;
      if (!Window(t, y, r, err[t], &lo, &hi)) continue;
      live_[i] = 1;
      klo_[i] = lo;
      width_[i] = std::max<int64_t>(0, hi - lo + 1);
      // Partials up to here hold only labelings whose every completion scores at most upper.
      free_top_[i] = FreeTop(i, r, err[t]);
      cells += width_[i] * Histories(t);
    }
  }
  blocks_.assign(block_begin_[m_], Block());
  hi_.assign(cells, kNegInf);
  lo_.assign(cells, kPosInf);
  hi_back_.assign(cells, -1);
  lo_back_.assign(cells, -1);
  int64_t offset = 0;
  for (int t = 0; t < m_; ++t) {
    for (int y = 0; y < n_; ++y) {
      for (int h = 0; h < Histories(t); ++h) {
        BlockAt(t, y, h).offset = offset;
        offset += width_[static_cast<size_t>(t) * n_ + y];
      }
    }
  }

  for (int y = 0; y < n_; ++y) {
    const size_t i = y;
    if (!live_[i]) continue;
    const double inc = Increment(0, y, 0, -1);
    if (!std::isfinite(inc)) continue;
    const int64_t k = Quantise(inc, r);
    if (k <= free_top_[i]) {
      Block& b = BlockAt(0, y, 0);
      b.free_hi = inc;
      b.free_back_k = kFreeSlot;
      continue;
    }
    const int64_t j = k - klo_[i];
    if (j < 0 || j >= width_[i]) continue;
    const int64_t c = BlockAt(0, y, 0).offset + j;
    hi_[c] = lo_[c] = inc;
    ++*work;
    Settle(0, y, 0, r);
  }
  for (int t = 1; t < m_; ++t) {
    // Predecessors: (t - 1, p) at first order (back = p); (t - 1, p = h, history b) at second
    // order (back = b). Listed once per position, per h at second order, are the predecessor
    // blocks holding a live or a free partial (the others add nothing), in increasing order.
    const int backs = second_order_ ? Histories(t - 1) : n_;
    const int groups = second_order_ ? n_ : 1;
    live_backs_.resize(static_cast<size_t>(groups) * backs);
    live_count_.assign(groups, 0);
    for (int g = 0; g < groups; ++g) {
      for (int back = 0; back < backs; ++back) {
        const Block& parent = BlockAt(t - 1, PrevLabel(g, back), PrevHistory(back));
        if (parent.first < parent.last || parent.free_hi != kNegInf) {
          live_backs_[static_cast<size_t>(g) * backs + live_count_[g]++] = back;
        }
      }
    }
    for (int y = 0; y < n_; ++y) {
      const size_t i = static_cast<size_t>(t) * n_ + y;
      const int64_t width = width_[i];
      if (!live_[i]) continue;
      // Window indices at most this one go to the free cell (<= -1, see Window).
      const int64_t free_last = free_top_[i] - klo_[i];
      for (int h = 0; h < Histories(t); ++h) {
        Block& child = BlockAt(t, y, h);
        double* chi = hi_.data() + child.offset;
        double* clo = lo_.data() + child.offset;
        int32_t* chb = hi_back_.data() + child.offset;
        int32_t* clb = lo_back_.data() + child.offset;
        *work += backs + width;  // looking at each predecessor block, settling this one
        const int g = second_order_ ? h : 0;
        const int32_t* live_backs = live_backs_.data() + static_cast<size_t>(g) * backs;
        for (int c = 0; c < live_count_[g]; ++c) {
          const int back = live_backs[c];
          const int p = PrevLabel(h, back);
          const Block& parent = BlockAt(t - 1, p, PrevHistory(back));
          const bool any = parent.first < parent.last;
          if (!any && parent.free_hi == kNegInf) continue;
          const double inc = Increment(t, y, h, back);
          if (!std::isfinite(inc)) continue;
          if (parent.free_hi != kNegInf && parent.free_hi + inc > child.free_hi) {
            child.free_hi = parent.free_hi + inc;
            child.free_back = back;
            child.free_back_k = kFreeSlot;
          }
          if (!any) continue;
          // Child cell j holds k = klo + j; its predecessor k - q lies at parent index
          // j + shift.
          const int64_t shift =
              klo_[i] - Quantise(inc, r) - klo_[static_cast<size_t>(t - 1) * n_ + p];
          const double* phi = hi_.data() + parent.offset;
          const double* plo = lo_.data() + parent.offset;
          // Predecessors landing at or below free_last: into the free cell, the highest kept.
          const int64_t f1 =
              std::min<int64_t>(parent.last, SaturatingAdd(SaturatingAdd(free_last, 1), shift));
          if (parent.first < f1) {
            *work += f1 - parent.first;
            for (int64_t pj = parent.first; pj < f1; ++pj) {
              if (phi[pj] + inc > child.free_hi) {
                child.free_hi = phi[pj] + inc;
                child.free_back = back;
                child.free_back_k = klo_[static_cast<size_t>(t - 1) * n_ + p] + pj;
              }
            }
          }
          const int64_t j0 = std::max<int64_t>(0, parent.first - shift);
          const int64_t j1 = std::min<int64_t>(width, parent.last - shift);
          if (j0 >= j1) continue;
          *work += j1 - j0;
          for (int64_t j = j0; j < j1; ++j) {
            const double a = phi[j + shift] + inc;
            const double b = plo[j + shift] + inc;
            const bool up = a > chi[j];
            const bool down = b < clo[j];
            chi[j] = up ? a : chi[j];
            chb[j] = up ? back : chb[j];
            clo[j] = down ? b : clo[j];
            clb[j] = down ? back : clb[j];
          }
        }
        Settle(t, y, h, r);
      }
    }
  }

  struct Candidate {
    double score;
    int y, h;
    int64_t j;  // window index, or kFreeSlot
    bool from_hi;
  };
  std::vector<Candidate> candidates;
  bool straddles = false;
  const int last = m_ - 1;
  for (int y = 0; y < n_; ++y) {
    for (int h = 0; h < Histories(last); ++h) {
      const Block& b = BlockAt(last, y, h);
      if (b.free_hi != kNegInf) candidates.push_back({b.free_hi, y, h, kFreeSlot, true});
      for (int32_t j = b.first; j < b.last; ++j) {
        const double hi = hi_[b.offset + j], lo = lo_[b.offset + j];
        if (hi == kNegInf) continue;
        const double hi_slack = Slack(hi, 0), lo_slack = Slack(lo, 0);
        if (hi <= upper_ + hi_slack) candidates.push_back({hi, y, h, j, true});
        if (lo >= lower_ - lo_slack && lo <= upper_ + lo_slack && hi > upper_ - hi_slack) {
          candidates.push_back({lo, y, h, j, false});
        }
        // Highest above the range and lowest below it (as far as rounding tells): a labeling in
        // between may be in range.
        if (hi > upper_ - hi_slack && lo < lower_ + lo_slack) straddles = true;
      }
    }
  }
  std::stable_sort(candidates.begin(), candidates.end(),
                   [](const Candidate& a, const Candidate& b) { return a.score > b.score; });
  for (const Candidate& c : candidates) {
    out->labels.assign(m_, 0);
    int y = c.y, h = c.h;
    int64_t j = c.j;
    bool from_hi = c.from_hi;
    for (int t = last; t >= 0; --t) {
      out->labels[t] = y;
      if (t == 0) break;
      const Block& b = BlockAt(t, y, h);
      int back;
      int64_t k_prev;
      if (j == kFreeSlot) {
        back = b.free_back;
        k_prev = b.free_back_k;
        from_hi = true;
      } else {
        back = from_hi ? hi_back_[b.offset + j] : lo_back_[b.offset + j];
        const double inc = Increment(t, y, h, back);
        k_prev = klo_[static_cast<size_t>(t) * n_ + y] + j - Quantise(inc, r);
      }
      const int p = PrevLabel(h, back);
      h = PrevHistory(back);
      y = p;
      j = k_prev == kFreeSlot ? kFreeSlot : k_prev - klo_[static_cast<size_t>(t - 1) * n_ + y];
    }
    const double exact = lattice_.Score(out->labels);
    if (exact >= lower_ && exact <= upper_) {  // checked on the exact score, never trusted
      out->score = exact;
      return Outcome::kFound;
    }
  }
  return straddles ? Outcome::kUndecided : Outcome::kInfeasible;
}

// Cell updates a score-range search may do per sentence before its resolution coarsens: the
// state budget is set by time (about 2 ms on one core of this machine class) rather than by a
// fixed number of states, and it is counted in work, not measured, so the answer never depends on
// the machine's load.
constexpr int64_t kRangeWorkBudget = int64_t{1} << 20;

// ScoreRangeDecode without other constraints (RangeDp): the finest resolution from `resolution`
// up whose windows fit the work budget, `max_states` per label and position, and `max_bytes`;
// refined while the answer is undecided and the work done so far leaves room.
absl::StatusOr<Labeling> RangeSearch(const Lattice& lattice, double lower, double upper,
                                     double resolution, double* used_resolution, int max_states,
                                     int64_t max_bytes) {
  const int m = lattice.size();
  double finest = resolution;
  // The guarantee needs upper - lower >= M * r (see aux_dp.h), so narrow ranges refine r.
  if (upper - lower < m * resolution * (1 + 1e-9)) {
    finest = (upper - lower) / (m * (1 + 1e-6));
    if (!(finest > 0)) {
      return absl::InvalidArgumentError(absl::StrCat("score range ", lower, "..", upper,
                                                     ": expected upper > lower (zero width)"));
    }
  }
  RangeDp dp(lattice, lower, upper);
  constexpr int64_t kBytesPerCell = 64;  // a live cell, its layer slot and its touch
  // Even the coarsest windows visit every live (position, label, history) once.
  const int64_t budget = std::max(kRangeWorkBudget, 4 * dp.LeastWork());
  auto fits = [&](const RangeDp::Estimate& e) {
    return e.widest <= max_states && e.cells <= max_bytes / kBytesPerCell;
  };
  double r = finest;
  RangeDp::Estimate e = dp.EstimateAt(r);
  for (int attempt = 0; attempt < 200 && !(fits(e) && e.work <= budget); ++attempt) {
    r *= 2;
    e = dp.EstimateAt(r);
  }
  if (!fits(e)) {
    return absl::ResourceExhaustedError(
        absl::StrCat("score range ", lower, "..", upper, " needs more than ", max_bytes >> 20,
                     " MB at every resolution (--decode-memory-mb)"));
  }
  int64_t total = 0;
  while (true) {
    Labeling out;
    int64_t work = 0;
    const RangeDp::Outcome outcome = dp.Run(r, &out, &work);
    total += work;
    if (used_resolution != nullptr) *used_resolution = r;
    if (outcome == RangeDp::Outcome::kFound) return out;
    if (outcome == RangeDp::Outcome::kInfeasible) {
      return absl::NotFoundError(
          absl::StrCat("infeasible: no labeling scores within ", lower, "..", upper));
    }
    // Undecided: half the step costs about twice the work; go on while the budget allows it.
    const double finer = r / 2;
    if (finer < finest || total + 3 * std::max<int64_t>(work, 1) > 2 * budget ||
        !fits(dp.EstimateAt(finer))) {
      return absl::ResourceExhaustedError(absl::StrCat(
          "score range ", lower, "..", upper, " is undecided at resolution ", r,
          ", the finest that fits the time budget and ", max_states,
          " states per label and position; raise --score-max-states or narrow the range"));
    }
    // Each halving about doubles the work: go on to the finest step the budget still covers (the
    // steps in between were mostly undecided again; CoNLL-2000 dev, order 2, 0..100: 3 runs a
    // sentence -> 2.2, 5 too_large -> 0).
    r = finer;
    int64_t predicted = 3 * std::max<int64_t>(work, 1);
    while (r / 2 >= finest && total + 2 * predicted <= 2 * budget && fits(dp.EstimateAt(r / 2))) {
      r /= 2;
      predicted *= 2;
    }
  }
}

}  // namespace

absl::StatusOr<Labeling> ScoreRangeDecode(const Lattice& lattice, double lower, double upper,
                                          double resolution,
                                          absl::Span<const Statistic* const> constraints,
                                          double* used_resolution, int max_states,
                                          int64_t max_bytes) {
  if (absl::Status st = CheckRangeArguments(lower, upper, resolution); !st.ok()) return st;
  // When the best labeling (under the constraints) already scores in range, the range does not
  // bind and that labeling is the exact answer: one Viterbi instead of building
  // the quantised state space and running two range DPs.
  absl::StatusOr<Labeling> top =
      constraints.empty() ? ViterbiDecode(lattice) : ConstrainedDecode(lattice, constraints);
  if (top.ok()) {
    const double exact = lattice.Score(top->labels);
    if (exact >= lower && exact <= upper) {
      top->score = exact;
      if (used_resolution != nullptr) *used_resolution = resolution;  // exact at any resolution
      return top;
    }
  } else if (IsInfeasible(top.status())) {
    return top.status();  // no labeling satisfies the constraints at all
  }
  if (constraints.empty() && lattice.size() > 0 && lattice.num_labels() > 0) {
    return RangeSearch(lattice, lower, upper, resolution, used_resolution, max_states, max_bytes);
  }
  // Keep the successor tables (M x R x (N+1) x N) and cells within the engine's limits.
  const int64_t per_state =
      std::max<int64_t>(1, int64_t{std::max(lattice.size(), 1)} * (lattice.num_labels() + 1) *
                               std::max(lattice.num_labels(), 1));
  int64_t other_states = 1;
  for (const Statistic* c : constraints) other_states *= std::max(c->NumStates(), 1);
  if (lattice.order() == 2) other_states *= lattice.num_labels() + 1;  // the engine's history
  // Two engines (max and min per state), 8 bytes a cell each.
  const int64_t cells = std::min<int64_t>(AuxDpDecoder::kMaxCells, max_bytes / 16);
  const int64_t fit = cells / per_state / std::max<int64_t>(other_states, 1);
  const int requested_states = max_states;
  max_states = static_cast<int>(std::min<int64_t>(max_states, std::max<int64_t>(fit, 2)));
  // A reason quoting the state limit says where a limit below --score-max-states comes from.
  auto explain = [&](const absl::Status& status) {
    if (max_states >= requested_states) return status;
    return absl::Status(
        status.code(),
        absl::StrCat(status.message(), "; --score-max-states ", requested_states, " is capped at ",
                     max_states, " for this sentence, since ", lattice.size(), " tokens x ",
                     lattice.num_labels() + 1, " x ", lattice.num_labels(), " labels x ",
                     other_states, " constraint states x the range states must fit ", cells,
                     " decoder cells (--decode-memory-mb)"));
  };
  absl::StatusOr<std::unique_ptr<ScoreRangeStatistic>> range =
      ScoreRangeStatistic::Create(lattice, lower, upper, resolution, max_states);
  // Coarsen until the state space fits: the guarantee then holds at the coarser resolution. The
  // first attempt may have refined r for a narrow range; doubling starts from the r it used. The
  // finest fitting r * 2^k is found by galloping over k, then bisecting, so a resolution far too
  // fine (1e-20, 1e-300) costs a few dozen attempts instead of thousands.
  double tried = resolution;
  if (lattice.size() > 0 && upper - lower < lattice.size() * resolution * (1 + 1e-9)) {
    tried = (upper - lower) / (lattice.size() * (1 + 1e-6));
  }
  const absl::Status first_failure = range.ok() ? absl::OkStatus() : range.status();
  auto too_many = [](const absl::StatusOr<std::unique_ptr<ScoreRangeStatistic>>& r) {
    return !r.ok() && r.status().code() == absl::StatusCode::kResourceExhausted;
  };
  if (too_many(range)) {
    auto at = [&](int k) {
      return ScoreRangeStatistic::Create(lattice, lower, upper, std::ldexp(tried, k), max_states,
                                         /*refine_narrow=*/false);
    };
    int fails = 0, fits = 0;  // doublings known to fail; the fewest known to fit (0: none yet)
    for (int k = 1; std::isfinite(std::ldexp(tried, k)); k = 2 * k) {
      range = at(k);
      if (!too_many(range)) {
        fits = k;
        break;
      }
      fails = k;
    }
    while (fits > 0 && fits - fails > 1) {
      const int mid = fails + (fits - fails) / 2;
      absl::StatusOr<std::unique_ptr<ScoreRangeStatistic>> candidate = at(mid);
      if (too_many(candidate)) {
        fails = mid;
      } else {
        fits = mid;
        range = std::move(candidate);
      }
    }
  }
  if (!range.ok()) {
    if (range.status().code() == absl::StatusCode::kResourceExhausted) {
      return explain(first_failure);
    }
    return range.status();
  }
  if (used_resolution != nullptr) *used_resolution = (*range)->resolution();
  if (lattice.size() == 0) {
    if (!(lower <= 0.0 && 0.0 <= upper)) {
      return absl::NotFoundError("infeasible: the empty labeling scores 0, outside the range");
    }
    return ConstrainedDecode(lattice, constraints);
  }
  std::vector<const Statistic*> stats(constraints.begin(), constraints.end());
  stats.push_back(range->get());
  AuxDpDecoder best;
  best.set_max_bytes(max_bytes / 2);
  if (absl::Status st = best.Run(lattice, stats); !st.ok()) return st;
  // Max per state by the DP above; min per state by the same DP on negated scores.
  Lattice negated = lattice;
  const int m = lattice.size(), n = lattice.num_labels();
  auto neg = [](double v) { return v == kNegInf ? kNegInf : -v; };
  for (int t = 0; t < m; ++t)
    for (int y = 0; y < n; ++y) negated.unary(t, y) = neg(lattice.unary(t, y));
  for (int p = 0; p < n; ++p)
    for (int y = 0; y < n; ++y) negated.transition(p, y) = neg(lattice.transition(p, y));
  for (int y = 0; y < n; ++y) {
    negated.start(y) = neg(lattice.start(y));
    negated.end(y) = neg(lattice.end(y));
  }
  if (lattice.order() == 2) {
    for (double& v : negated.trigram_data()) v = neg(v);  // an owned copy of shared tables
  }
  AuxDpDecoder worst;
  worst.set_max_bytes(max_bytes / 2);
  if (absl::Status st = worst.Run(negated, stats); !st.ok()) return st;

  struct Candidate {
    double score;
    int label;
    int state;
    bool from_max;
  };
  std::vector<Candidate> candidates;
  bool straddles = false;  // some state's labelings reach both above and below the range
  for (int y = 0; y < n; ++y) {
    for (int s = 0; s < best.num_states(); ++s) {
      if (!best.AllAccept(s)) continue;
      const double hi = best.CellScore(y, s);
      if (hi == kNegInf) continue;
      if (hi >= lower && hi <= upper) {
        candidates.push_back({hi, y, s, true});
      } else if (hi > upper) {
        // All labelings of a state lie within M*r of each other, so its minimum is then in
        // range whenever any of them is (the guarantee in aux_dp.h).
        const double g = worst.CellScore(y, s);
        if (g != kNegInf && -g >= lower && -g <= upper) {
          candidates.push_back({-g, y, s, false});
        } else if (g != kNegInf && -g < lower) {
          straddles = true;
        }
      }
    }
  }
  std::stable_sort(candidates.begin(), candidates.end(),
                   [](const Candidate& a, const Candidate& b) { return a.score > b.score; });
  for (const Candidate& c : candidates) {
    absl::StatusOr<Labeling> l =
        c.from_max ? best.BestInCell(c.label, c.state) : worst.BestInCell(c.label, c.state);
    if (!l.ok()) return l.status();
    const double exact = lattice.Score(l->labels);
    if (exact >= lower && exact <= upper) {  // checked on the exact score, never trusted
      l->score = exact;
      return l;
    }
  }
  if (straddles) {
    return explain(absl::ResourceExhaustedError(
        absl::StrCat("score range ", lower, "..", upper, " is undecided at resolution ",
                     (*range)->resolution(), ", the finest that fits in ", max_states,
                     " states per position; raise --score-max-states")));
  }
  return absl::NotFoundError(
      absl::StrCat("infeasible: no labeling scores within ", lower, "..", upper));
}

}  // namespace chaintag
