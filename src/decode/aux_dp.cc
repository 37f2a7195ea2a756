// The auxiliary-variable Viterbi engine: Bauer, Nakajima, Mueller, Mathematics 11(12):2628, 2023,
// Algorithm 1 / Section 4.3, on a chain: cells (position, label, product state).
#include "decode/aux_dp.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace chaintag {
namespace {

// Successor entries are pre-multiplied by the component stride; a dead entry makes any sum
// negative as long as R < 2^25 and there are fewer than 64 components.
constexpr int kDead = -(1 << 25);
constexpr int64_t kMaxStates = int64_t{1} << 25;

absl::Status InfeasibleError(const std::string& what) {
  return absl::NotFoundError(absl::StrCat("infeasible: ", what));
}

// Second-order lattices: the label before the previous one (kBos = N before position 1), as the
// engine's own last component, so a product state knows which trigram score a transition adds.
class HistoryStatistic : public Statistic {
 public:
  explicit HistoryStatistic(int num_labels) : n_(num_labels) {}
  int NumStates() const override { return n_ + 1; }
  int Initial() const override { return n_; }
  int Next(int /*state*/, int /*position*/, int prev_label, int /*label*/) const override {
    return prev_label < 0 ? n_ : prev_label;
  }
  bool PositionIndependent() const override { return true; }

 private:
  int n_;
};

}  // namespace

bool IsInfeasible(const absl::Status& status) {
  return status.code() == absl::StatusCode::kNotFound &&
         absl::StartsWith(status.message(), "infeasible");
}

void Statistic::FillSuccessors(int position, int num_labels, absl::Span<int> table) const {
  const int r = NumStates();
  for (int s = 0; s < r; ++s) {
    for (int prev = -1; prev < num_labels; ++prev) {
      int* row = table.data() + (static_cast<size_t>(s) * (num_labels + 1) + prev + 1) * num_labels;
      for (int y = 0; y < num_labels; ++y) row[y] = Next(s, position, prev, y);
    }
  }
}

void Statistic::FillRow(int position, int prev_label, int state, int num_labels, int* row) const {
  for (int y = 0; y < num_labels; ++y) row[y] = Next(state, position, prev_label, y);
}

absl::Status AuxDpDecoder::Run(const Lattice& lattice,
                               absl::Span<const Statistic* const> statistics) {
  lattice_ = &lattice;
  m_ = lattice.size();
  n_ = lattice.num_labels();
  statistics_.assign(statistics.begin(), statistics.end());
  if (lattice.order() == 2) {
    if (history_ == nullptr || history_->NumStates() != n_ + 1) {
      history_ = std::make_unique<HistoryStatistic>(n_);
    }
    statistics_.push_back(history_.get());
  }
  const int k = static_cast<int>(statistics_.size());
  if (k >= 64) {
    return absl::ResourceExhaustedError(
        absl::StrCat("the request needs ", k, " statistics; the decoder takes at most 63"));
  }
  sizes_.assign(k, 1);
  strides_.assign(k, 1);
  position_independent_.assign(k, 0);
  computes_rows_.assign(k, 0);
  reads_history_.assign(k, 0);
  int64_t r = 1;
  for (int c = 0; c < k; ++c) {
    const Statistic* s = statistics_[c];
    if (s == nullptr) return absl::InvalidArgumentError("AuxDpDecoder: null statistic");
    const int size = s->NumStates();
    if (size <= 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("AuxDpDecoder: statistic ", c, " has ", size, " states; expected >= 1"));
    }
    if (absl::Status st = s->Validate(lattice); !st.ok()) return st;
    sizes_[c] = size;
    strides_[c] = static_cast<int>(r);
    r *= size;
    if (r > kMaxStates) {
      return absl::ResourceExhaustedError(
          absl::StrCat("AuxDpDecoder: product of statistic state counts exceeds ", kMaxStates));
    }
    position_independent_[c] = s->PositionIndependent();
    reads_history_[c] = s->ReadsHistory();
    if (reads_history_[c] && lattice.order() != 2) {
      return absl::InvalidArgumentError(
          absl::StrCat("AuxDpDecoder: statistic ", c,
                       " reads the label two positions back; expected a "
                       "second-order lattice"));
    }
    computes_rows_[c] = s->ComputesRows() || reads_history_[c];
  }
  num_states_ = static_cast<int>(r);
  if (int64_t{m_} * n_ * r > max_cells_) {
    return absl::ResourceExhaustedError(absl::StrCat("AuxDpDecoder: M*N*R = ", m_, "*", n_, "*", r,
                                                     " cells exceeds the limit ", max_cells_));
  }
  // Forward scores (8 bytes a cell) and component states; checked before anything is allocated.
  if (const int64_t bytes = int64_t{m_} * n_ * r * 8 + r * k * 4; bytes > max_bytes_) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "constrained decoding needs about ", (bytes >> 20) + 1, " MB (", m_, " tokens x ", n_,
        " labels x ", r, " states), above the limit of ", max_bytes_ >> 20, " MB"));
  }
  zero_row_.assign(n_, 0);
  row_.assign(n_, 0);
  // Component states of every product state, so no division happens in the loops.
  if (int64_t{num_states_} * k > kMaxCells) {
    return absl::ResourceExhaustedError("AuxDpDecoder: too many product states x statistics");
  }
  components_.resize(static_cast<size_t>(num_states_) * k);
  for (int s = 0; s < num_states_; ++s) {
    for (int c = 0; c < k; ++c) {
      components_[static_cast<size_t>(s) * k + c] = (s / strides_[c]) % sizes_[c];
    }
  }
  // The history is the last component, so its state is the product state / its stride.
  history_stride_ = lattice.order() == 2 ? strides_[k - 1] : 0;
  if (m_ == 0 || n_ == 0) {
    forward_.clear();
    sparse_ = false;
    return absl::OkStatus();
  }

  // Successor tables, stride-scaled, built once per sentence (or per position) outside the DP.
  // When the per-position tables of every position would not fit, position-dependent components
  // keep one position's table and refill it on demand (forward and backtrace visit positions in
  // order, so each is filled about twice).
  tables_.resize(k);
  table_position_.assign(k, -1);
  table_status_ = absl::OkStatus();
  int64_t table_total = 0;
  for (int c = 0; c < k; ++c) {
    if (computes_rows_[c]) continue;
    const int64_t per = int64_t{sizes_[c]} * (n_ + 1) * n_;
    table_total += per * (position_independent_[c] ? 1 : m_);
  }
  stat_row_.assign(n_, 0);
  streaming_tables_ = table_total > max_table_entries_;
  for (int c = 0; c < k; ++c) {
    if (computes_rows_[c]) {
      tables_[c].clear();
      continue;
    }
    const size_t per = static_cast<size_t>(sizes_[c]) * (n_ + 1) * n_;
    if (static_cast<int64_t>(per) > kMaxCells) {
      return absl::ResourceExhaustedError(absl::StrCat("AuxDpDecoder: a successor table needs ",
                                                       per, " entries; limit ", kMaxCells));
    }
    const int copies = position_independent_[c] || streaming_tables_ ? 1 : m_;
    tables_[c].resize(per * copies);
    if (position_independent_[c] || !streaming_tables_) {
      for (int t = 0; t < copies; ++t) {
        if (absl::Status st = FillTable(c, t, tables_[c].data() + per * t); !st.ok()) return st;
      }
    }
  }

  const int rr = num_states_;
  const size_t layer = static_cast<size_t>(n_) * rr;
  int initial = 0;
  for (int c = 0; c < k; ++c) initial += statistics_[c]->Initial() * strides_[c];
  pruned_cells_ = 0;
  if (prune_suffix_ != nullptr) return RunSparse(initial);
  forward_.assign(layer * m_, kNegInf);
  sparse_ = false;
  {
    int* row = row_.data();
    ComputeSuccessorRow(0, -1, initial, row);
    for (int y = 0; y < n_; ++y) {
      if (row[y] >= 0)
        forward_[static_cast<size_t>(y) * rr + row[y]] = lattice.start(y) + lattice.unary(0, y);
    }
  }
  const double* trans = lattice.transition_data().data();
  bool label_only = true;
  for (const Statistic* st : statistics_) label_only = label_only && !st->DependsOnPreviousLabel();
  const double* trigram = lattice.order() == 2 ? lattice.trigram_data().data() : nullptr;
  acc_.assign(n_, kNegInf);
  for (int t = 1; t < m_; ++t) {
    const double* prev_layer = forward_.data() + layer * (t - 1);
    double* cur = forward_.data() + layer * t;
    if (label_only) {
      // Successors ignore the previous label: per state s the max over prev is a plain Viterbi
      // step (contiguous, vectorisable), then each (s, y) moves to one successor state.
      double* acc = acc_.data();
      for (int st = 0; st < rr; ++st) {
        bool any = false;
        for (int y = 0; y < n_; ++y) acc[y] = kNegInf;
        for (int prev = 0; prev < n_; ++prev) {
          const double v = prev_layer[static_cast<size_t>(prev) * rr + st];
          if (v == kNegInf) continue;
          any = true;
          const double* trow = trans + static_cast<size_t>(prev) * n_;
          for (int y = 0; y < n_; ++y) acc[y] = std::max(acc[y], v + trow[y]);
        }
        if (!any) continue;
        const int* next;
        if (k == 0) {
          next = zero_row_.data();
        } else {
          ComputeSuccessorRow(t, 0, st, row_.data());
          next = row_.data();
        }
        for (int y = 0; y < n_; ++y) {
          const int ns = next[y];
          if (ns < 0) continue;
          double& d = cur[static_cast<size_t>(y) * rr + ns];
          if (acc[y] > d) d = acc[y];
        }
      }
    } else {
      for (int prev = 0; prev < n_; ++prev) {
        const double* prow = prev_layer + static_cast<size_t>(prev) * rr;
        const double* trow = trans + static_cast<size_t>(prev) * n_;
        for (int st = 0; st < rr; ++st) {
          const double v = prow[st];
          if (v == kNegInf) continue;
          const int* next = SuccessorsOf(t, prev, st);
          if (trigram != nullptr) {
            const double* xrow =
                trigram + (static_cast<size_t>(st / history_stride_) * n_ + prev) * n_;
            for (int y = 0; y < n_; ++y) {
              const int ns = next[y];
              if (ns < 0) continue;
              const double c = v + (trow[y] + xrow[y]);
              double& d = cur[static_cast<size_t>(y) * rr + ns];
              if (c > d) d = c;
            }
            continue;
          }
          for (int y = 0; y < n_; ++y) {
            const int ns = next[y];
            if (ns < 0) continue;
            const double c = v + trow[y];
            double& d = cur[static_cast<size_t>(y) * rr + ns];
            if (c > d) d = c;
          }
        }
      }
    }
    const double* unary = lattice.unary_row(t).data();
    for (int y = 0; y < n_; ++y) {
      double* cell = cur + static_cast<size_t>(y) * rr;
      const double u = unary[y];
      for (int s = 0; s < rr; ++s) cell[s] += u;
    }
  }
  return table_status_;
}

// The pruned forward pass keeps live cells only, as per-position lists of (cell, score): when
// pruning keeps a few percent of the M x N x R cells (loss-augmented inference), a dense table
// would cost more to allocate, clear, scan and back-trace than the DP itself costs. One N x R
// layer (layer_, all -inf between uses) collects a position's maxima; final_ keeps the last
// position's for CellScore. The unary score is added per candidate instead of once per cell:
// rounding is monotone, so max(c + u) = max(c) + u exactly and the scores are bit-identical to
// the dense pass.
absl::Status AuxDpDecoder::RunSparse(int initial) {
  const int rr = num_states_;
  const size_t layer_size = static_cast<size_t>(n_) * rr;
  for (int32_t idx : final_cells_) final_[idx] = kNegInf;
  final_cells_.clear();
  for (std::vector<double>* v : {&layer_, &final_}) {
    if (v->size() < layer_size) {
      v->reserve(layer_size);  // exactly: resize alone may double the allocation
      v->resize(layer_size, kNegInf);
    }
  }
  sparse_ = true;
  live_cells_.clear();
  live_values_.clear();
  live_begin_.assign(m_ + 1, 0);
  const Lattice& lattice = *lattice_;
  double* cur = layer_.data();
  touched_.clear();
  {
    int* row = row_.data();
    ComputeSuccessorRow(0, -1, initial, row);
    for (int y = 0; y < n_; ++y) {
      if (row[y] < 0) continue;
      const double v = lattice.start(y) + lattice.unary(0, y);
      if (v == kNegInf) continue;
      const int32_t idx = y * rr + row[y];
      cur[idx] = v;
      touched_.push_back(idx);
    }
  }
  if (absl::Status st = CollectLayer(0); !st.ok()) return st;
  const double* trans = lattice.transition_data().data();
  const double* trigram = lattice.order() == 2 ? lattice.trigram_data().data() : nullptr;
  for (int t = 1; t < m_; ++t) {
    const double* unary = lattice.unary_row(t).data();
    touched_.clear();
    for (int i = live_begin_[t - 1]; i < live_begin_[t]; ++i) {
      const int prev = live_cells_[i] / rr;
      const int st = live_cells_[i] - prev * rr;
      const double v = live_values_[i];
      const int* next = SuccessorsOf(t, prev, st);
      const double* trow = trans + static_cast<size_t>(prev) * n_;
      const double* xrow =
          trigram != nullptr
              ? trigram + (static_cast<size_t>(st / history_stride_) * n_ + prev) * n_
              : nullptr;
      for (int y = 0; y < n_; ++y) {
        const int ns = next[y];
        if (ns < 0) continue;
        const double c = (xrow != nullptr ? v + (trow[y] + xrow[y]) : v + trow[y]) + unary[y];
        if (c == kNegInf) continue;
        const int32_t idx = y * rr + ns;
        double& d = cur[idx];
        if (d == kNegInf) {
          touched_.push_back(idx);
          d = c;
        } else if (c > d) {
          d = c;
        }
      }
    }
    if (absl::Status st = CollectLayer(t); !st.ok()) return st;
  }
  return table_status_;
}

absl::Status AuxDpDecoder::CollectLayer(int t) {
  const int rr = num_states_;
  double* cur = layer_.data();
  const double* suffix = prune_suffix_ + static_cast<size_t>(t) * n_;
  for (int32_t idx : touched_) {
    const double v = cur[idx];
    cur[idx] = kNegInf;
    const int y = idx / rr;
    if (v + suffix[y] < prune_threshold_[idx - y * rr]) {
      ++pruned_cells_;
      continue;
    }
    live_cells_.push_back(idx);
    live_values_.push_back(v);
    if (t == m_ - 1) {
      final_[idx] = v;
      final_cells_.push_back(idx);
    }
  }
  live_begin_[t + 1] = static_cast<int>(live_cells_.size());
  // 12 bytes a live cell: the same bound as Run's check of the whole table, cell by cell.
  if (static_cast<int64_t>(live_cells_.size()) * 12 > max_bytes_) {
    return absl::ResourceExhaustedError(
        absl::StrCat("constrained decoding keeps more than ", max_bytes_ >> 20,
                     " MB (the limit) of live cells at position ", t, " of ", m_));
  }
  return absl::OkStatus();
}

void AuxDpDecoder::DensifyForward() {
  const size_t layer_size = static_cast<size_t>(n_) * num_states_;
  forward_.assign(layer_size * m_, kNegInf);
  for (int t = 0; t < m_; ++t) {
    for (int i = live_begin_[t]; i < live_begin_[t + 1]; ++i) {
      forward_[layer_size * t + live_cells_[i]] = live_values_[i];
    }
  }
  sparse_ = false;
}

absl::Status AuxDpDecoder::FillTable(int component, int position, int* table) const {
  const size_t per = static_cast<size_t>(sizes_[component]) * (n_ + 1) * n_;
  statistics_[component]->FillSuccessors(position, n_, absl::MakeSpan(table, per));
  for (size_t i = 0; i < per; ++i) {
    int& v = table[i];
    if (v == Statistic::kInfeasible) {
      v = kDead;
    } else if (v < 0 || v >= sizes_[component]) {
      const int bad = v;
      v = kDead;
      return absl::InvalidArgumentError(absl::StrCat(
          "AuxDpDecoder: statistic ", component, " produced state ", bad, " at position ", position,
          "; expected 0..", sizes_[component] - 1, " or kInfeasible"));
    } else {
      v *= strides_[component];
    }
  }
  return absl::OkStatus();
}

const int* AuxDpDecoder::Table(int component, int position) const {
  const size_t per = static_cast<size_t>(sizes_[component]) * (n_ + 1) * n_;
  if (position_independent_[component]) return tables_[component].data();
  if (!streaming_tables_) return tables_[component].data() + per * position;
  if (table_position_[component] != position) {
    absl::Status st = FillTable(component, position, tables_[component].data());
    if (!st.ok() && table_status_.ok()) table_status_ = st;
    table_position_[component] = position;
  }
  return tables_[component].data();
}

const int* AuxDpDecoder::SuccessorsOf(int position, int prev_label, int state) {
  if (statistics_.size() == 1 && !computes_rows_[0]) {
    return Table(0, position) + (static_cast<size_t>(state) * (n_ + 1) + prev_label + 1) * n_;
  }
  ComputeSuccessorRow(position, prev_label, state, row_.data());
  return row_.data();
}

void AuxDpDecoder::ComputeSuccessorRow(int position, int prev_label, int state, int* row) const {
  const int k = static_cast<int>(statistics_.size());
  if (k == 0) {
    for (int y = 0; y < n_; ++y) row[y] = 0;
    return;
  }
  const int* comp = components_.data() + static_cast<size_t>(state) * k;
  for (int c = 0; c < k; ++c) {
    const int* t;
    if (reads_history_[c]) {
      int* fresh = stat_row_.data();
      const int before = state / history_stride_;
      for (int y = 0; y < n_; ++y) {
        fresh[y] = ConvertState(
            c, position, statistics_[c]->NextAfter(comp[c], position, before, prev_label, y));
      }
      t = fresh;
    } else if (computes_rows_[c]) {
      int* fresh = stat_row_.data();
      statistics_[c]->FillRow(position, prev_label, comp[c], n_, fresh);
      const unsigned size = sizes_[c];
      const int stride = strides_[c];
      for (int y = 0; y < n_; ++y) {
        const int v = fresh[y];  // in range: stride-scaled inline; otherwise ConvertState
        fresh[y] = static_cast<unsigned>(v) < size ? v * stride : ConvertState(c, position, v);
      }
      t = fresh;
    } else {
      t = Table(c, position) + (static_cast<size_t>(comp[c]) * (n_ + 1) + prev_label + 1) * n_;
    }
    if (c == 0) {
      for (int y = 0; y < n_; ++y) row[y] = t[y];
    } else {
      for (int y = 0; y < n_; ++y) row[y] += t[y];
    }
  }
}

int AuxDpDecoder::ConvertState(int component, int position, int v) const {
  if (v == Statistic::kInfeasible) return kDead;
  if (v < 0 || v >= sizes_[component]) {
    if (table_status_.ok()) {
      table_status_ = absl::InvalidArgumentError(absl::StrCat(
          "AuxDpDecoder: statistic ", component, " produced state ", v, " at position ", position,
          "; expected 0..", sizes_[component] - 1, " or kInfeasible"));
    }
    return kDead;
  }
  return v * strides_[component];
}

int AuxDpDecoder::Successor(int position, int prev_label, int state, int label) const {
  const size_t k = statistics_.size();
  const int* comp = components_.data() + state * k;
  int sum = 0;
  for (size_t c = 0; c < k; ++c) {
    if (reads_history_[c]) {
      sum += ConvertState(
          static_cast<int>(c), position,
          statistics_[c]->NextAfter(comp[c], position, state / history_stride_, prev_label, label));
    } else if (computes_rows_[c]) {
      sum += ConvertState(static_cast<int>(c), position,
                          statistics_[c]->Next(comp[c], position, prev_label, label));
    } else {
      sum += Table(
          c, position)[(static_cast<size_t>(comp[c]) * (n_ + 1) + prev_label + 1) * n_ + label];
    }
  }
  return sum;
}

bool AuxDpDecoder::AllAccept(int state) const {
  for (size_t c = 0; c < statistics_.size(); ++c) {
    if (!statistics_[c]->Accepts(ComponentState(state, c))) return false;
  }
  return true;
}

double AuxDpDecoder::CellScore(int last_label, int state) const {
  if (m_ == 0) return kNegInf;
  const double v =
      sparse_ ? final_[static_cast<size_t>(last_label) * num_states_ + state]
              : forward_[(static_cast<size_t>(m_ - 1) * n_ + last_label) * num_states_ + state];
  return v == kNegInf ? kNegInf : v + lattice_->end(last_label);
}

absl::Status AuxDpDecoder::Backtrace(int last_label, std::vector<char> states, Labeling* out) {
  const int rr = num_states_;
  out->labels.assign(m_, 0);
  out->labels[m_ - 1] = last_label;
  std::vector<char> next_states(rr, 0);
  for (int t = m_ - 1; t >= 1; --t) {
    const int y = out->labels[t];
    const double u = lattice_->unary(t, y);
    std::fill(next_states.begin(), next_states.end(), 0);
    if (sparse_) {
      // The same choice from the live cells of t - 1: the smallest previous label with a cell on
      // an optimal path, then every such cell of it. Layer t's cells of label y go to layer_.
      const int lo = y * rr, hi = lo + rr;
      auto place_layer = [&](bool set) {
        for (int i = live_begin_[t]; i < live_begin_[t + 1]; ++i) {
          if (live_cells_[i] >= lo && live_cells_[i] < hi) {
            layer_[live_cells_[i]] = set ? live_values_[i] : kNegInf;
          }
        }
      };
      place_layer(true);
      const double* cell = layer_.data() + lo;
      auto on_path = [&](int i, int prev, int s) {
        const int ns = Successor(t, prev, s, y);
        return ns >= 0 && states[ns] &&
               (live_values_[i] + TransitionScore(prev, s, y)) + u == cell[ns];
      };
      int best_prev = n_;
      for (int i = live_begin_[t - 1]; i < live_begin_[t]; ++i) {
        const int prev = live_cells_[i] / rr;
        if (prev < best_prev && on_path(i, prev, live_cells_[i] - prev * rr)) best_prev = prev;
      }
      for (int i = live_begin_[t - 1]; i < live_begin_[t] && best_prev < n_; ++i) {
        const int prev = live_cells_[i] / rr;
        const int s = live_cells_[i] - prev * rr;
        if (prev == best_prev && on_path(i, prev, s)) next_states[s] = 1;
      }
      place_layer(false);
      if (best_prev == n_) {
        return absl::InternalError("AuxDpDecoder: back-trace lost the optimal path");
      }
      out->labels[t - 1] = best_prev;
      states.swap(next_states);
      continue;
    }
    // Smallest previous label first: any state on an optimal path qualifies, so keep them all.
    const double* target = forward_.data() + (static_cast<size_t>(t) * n_ + y) * rr;
    bool found = false;
    for (int prev = 0; prev < n_ && !found; ++prev) {
      const double* prow = forward_.data() + (static_cast<size_t>(t - 1) * n_ + prev) * rr;
      for (int s = 0; s < rr; ++s) {
        const double v = prow[s];
        if (v == kNegInf) continue;
        const int ns = Successor(t, prev, s, y);
        if (ns < 0 || !states[ns]) continue;
        if ((v + TransitionScore(prev, s, y)) + u == target[ns]) {
          next_states[s] = 1;
          found = true;
        }
      }
      if (found) out->labels[t - 1] = prev;
    }
    if (!found) return absl::InternalError("AuxDpDecoder: back-trace lost the optimal path");
    states.swap(next_states);
  }
  return absl::OkStatus();
}

absl::StatusOr<Labeling> AuxDpDecoder::Best(const FinalObjective& h, int* final_state) {
  if (lattice_ == nullptr) return absl::FailedPreconditionError("AuxDpDecoder: Run first");
  int initial = 0;
  for (size_t c = 0; c < statistics_.size(); ++c)
    initial += statistics_[c]->Initial() * strides_[c];
  if (m_ == 0) {
    const double hv = h(0.0, initial);
    if (!(hv > kNegInf)) return InfeasibleError("the empty labeling is rejected");
    if (final_state != nullptr) *final_state = initial;
    return Labeling{};
  }
  if (n_ == 0) return absl::InvalidArgumentError("AuxDpDecoder: lattice has no labels");
  const int rr = num_states_;
  double best_h = kNegInf;
  double best_f = kNegInf;
  int best_y = -1;
  for (int y = 0; y < n_; ++y) {
    for (int s = 0; s < rr; ++s) {
      const double f = CellScore(y, s);
      if (f == kNegInf) continue;
      const double hv = h(f, s);
      if (!(hv > kNegInf)) continue;
      if (best_y < 0 || hv > best_h || (hv == best_h && f > best_f)) {
        best_h = hv;
        best_f = f;
        best_y = y;
      }
    }
  }
  if (best_y < 0) return InfeasibleError("no labeling satisfies the constraints");
  std::vector<char> states(rr, 0);
  for (int s = 0; s < rr; ++s) {
    const double f = CellScore(best_y, s);
    if (f == best_f && h(f, s) == best_h) states[s] = 1;
  }
  Labeling out;
  if (absl::Status st = Backtrace(best_y, std::move(states), &out); !st.ok()) return st;
  out.score = best_f;
  if (final_state != nullptr) {
    int s = initial;
    for (int t = 0; t < m_; ++t)
      s = Successor(t, t == 0 ? -1 : out.labels[t - 1], s, out.labels[t]);
    *final_state = s;
  }
  return out;
}

absl::StatusOr<Labeling> AuxDpDecoder::BestAccepted(int* final_state) {
  return Best([this](double f, int s) { return AllAccept(s) ? f : kNegInf; }, final_state);
}

absl::StatusOr<Labeling> AuxDpDecoder::BestInCell(int last_label, int state) {
  if (lattice_ == nullptr) return absl::FailedPreconditionError("AuxDpDecoder: Run first");
  if (m_ == 0 || last_label < 0 || last_label >= n_ || state < 0 || state >= num_states_) {
    return absl::InvalidArgumentError("AuxDpDecoder::BestInCell: no such cell");
  }
  const double f = CellScore(last_label, state);
  if (f == kNegInf) return InfeasibleError("the cell is unreachable");
  std::vector<char> states(num_states_, 0);
  states[state] = 1;
  Labeling out;
  if (absl::Status st = Backtrace(last_label, std::move(states), &out); !st.ok()) return st;
  out.score = f;
  return out;
}

absl::StatusOr<Labeling> ConstrainedDecode(const Lattice& lattice,
                                           absl::Span<const Statistic* const> constraints,
                                           AuxDpDecoder* decoder) {
  AuxDpDecoder local;
  AuxDpDecoder& d = decoder != nullptr ? *decoder : local;
  if (absl::Status st = d.Run(lattice, constraints); !st.ok()) return st;
  return d.BestAccepted();
}

}  // namespace chaintag
