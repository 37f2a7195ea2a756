// Exact k-best, exclusion and diverse k-best on the product lattice of the AuxDp engine.
// K-best enumerates deviations from best paths lazily (Eppstein, SIAM J. Comput. 28(2), 1998;
// Huang & Chiang, IWPT 2005, Alg. 3), with the exact forward Viterbi scores as completion values.
#include <algorithm>
#include <memory>
#include <queue>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "decode/aux_dp.h"

namespace chaintag {
namespace {

// A heap item of the k-best searches makes a new path from `parent` by taking candidate `rank` at
// `level` (the node at position `level`, or the sink when level == M) and the best candidates
// below it; best score first, insertion order breaking ties deterministically.
struct DeviationItem {
  double score;
  int64_t seq;
  int parent;
  int level;
  int rank;
};
struct WorseDeviation {
  bool operator()(const DeviationItem& a, const DeviationItem& b) const {
    return a.score < b.score || (a.score == b.score && a.seq > b.seq);
  }
};
using DeviationHeap =
    std::priority_queue<DeviationItem, std::vector<DeviationItem>, WorseDeviation>;

}  // namespace

AuxDpDecoder::Node* AuxDpDecoder::GetNode(int position, int label, int state) {
  const int64_t key = (static_cast<int64_t>(position) * n_ + label) * num_states_ + state;
  // Few distinct nodes are touched (the k paths share most of them), so memoise them.
  auto [it, inserted] = nodes_.try_emplace(key, nullptr);
  if (!inserted) return it->second;
  auto node = std::make_unique<Node>();
  const int rr = num_states_;
  if (position == m_) {
    for (int y = 0; y < n_; ++y) {
      for (int s = 0; s < rr; ++s) {
        const double f = CellScore(y, s);
        if (f != kNegInf && AllAccept(s)) node->candidates.push_back({f, y, s});
      }
    }
  } else if (position > 0) {
    for (int prev = 0; prev < n_; ++prev) {
      const double* prow = forward_.data() + (static_cast<size_t>(position - 1) * n_ + prev) * rr;
      for (int s = 0; s < rr; ++s) {
        if (prow[s] == kNegInf) continue;
        const double v = prow[s] + TransitionScore(prev, s, label);
        if (v == kNegInf || Successor(position, prev, s, label) != state) continue;
        node->candidates.push_back({v, prev, s});
      }
    }
  }
  std::stable_sort(node->candidates.begin(), node->candidates.end(),
                   [](const Candidate& a, const Candidate& b) { return a.value > b.value; });
  Node* raw = node.get();
  kbest_bytes_ += static_cast<int64_t>(node->candidates.capacity() * sizeof(Candidate)) +
                  static_cast<int64_t>(sizeof(Node)) + 64;  // + pool and memo entries
  node_pool_.push_back(std::move(node));
  it->second = raw;
  return raw;
}

void AuxDpDecoder::CompletePath(Path* path, int position, int label, int state) {
  // Follows the best candidate of every node from (position, label, state) down to position 0.
  path->labels[position] = label;
  path->states[position] = state;
  for (int t = position; t >= 1; --t) {
    const Candidate& c = GetNode(t, path->labels[t], path->states[t])->candidates.front();
    path->labels[t - 1] = c.label;
    path->states[t - 1] = c.state;
  }
}

absl::StatusOr<std::vector<Labeling>> AuxDpDecoder::KBest(int k) {
  if (lattice_ == nullptr) return absl::FailedPreconditionError("AuxDpDecoder: Run first");
  std::vector<Labeling> out;
  if (k <= 0) return out;
  if (m_ == 0) {
    int initial = 0;
    for (size_t c = 0; c < statistics_.size(); ++c)
      initial += statistics_[c]->Initial() * strides_[c];
    if (!AllAccept(initial))
      return absl::NotFoundError("infeasible: the empty labeling is rejected");
    out.push_back(Labeling{});
    return out;
  }
  if (sparse_) DensifyForward();  // after a pruned Run (the enumeration reads the whole table)
  node_pool_.clear();
  nodes_.clear();
  kbest_bytes_ = 0;
  Node* sink = GetNode(m_, 0, 0);
  if (sink->candidates.empty()) {
    return absl::NotFoundError("infeasible: no labeling satisfies the constraints");
  }
  DeviationHeap heap;
  int64_t seq = 0;
  std::vector<Path> paths;
  paths.reserve(std::min(k, 1024));
  // Memory of one more path: its labels and states, the labeling returned, and at most M heap
  // items it pushes; nodes are counted as GetNode makes them.
  const int64_t per_path =
      int64_t{m_} * (3 * sizeof(int) + sizeof(DeviationItem)) + sizeof(Path) + sizeof(Labeling);
  heap.push({sink->candidates[0].value, seq++, -1, m_, 0});
  while (!heap.empty() && static_cast<int>(out.size()) < k) {
    kbest_bytes_ += per_path;
    if (kbest_bytes_ > max_bytes_) {
      return absl::ResourceExhaustedError(absl::StrCat(
          "k-best needs more than ", max_bytes_ >> 20, " MB (the limit) after ", out.size(), " of ",
          k, " labelings of a ", m_, "-token sentence; ask for fewer"));
    }
    const DeviationItem item = heap.top();
    heap.pop();
    Path path;
    path.score = item.score;
    path.deviation_level = item.level;
    path.labels.assign(m_, 0);
    path.states.assign(m_, 0);
    Node* node;
    if (item.level == m_) {
      node = sink;
    } else {
      const Path& parent = paths[item.parent];
      std::copy(parent.labels.begin() + item.level, parent.labels.end(),
                path.labels.begin() + item.level);
      std::copy(parent.states.begin() + item.level, parent.states.end(),
                path.states.begin() + item.level);
      node = GetNode(item.level, parent.labels[item.level], parent.states[item.level]);
    }
    const Candidate chosen = node->candidates[item.rank];
    if (item.rank + 1 < static_cast<int>(node->candidates.size())) {
      heap.push({item.score - chosen.value + node->candidates[item.rank + 1].value, seq++,
                 item.parent, item.level, item.rank + 1});
    }
    CompletePath(&path, item.level - 1, chosen.label, chosen.state);
    paths.push_back(std::move(path));
    const int id = static_cast<int>(paths.size()) - 1;
    const Path& p = paths[id];
    for (int level = p.deviation_level - 1; level >= 1; --level) {
      const Node* below = GetNode(level, p.labels[level], p.states[level]);
      if (below->candidates.size() < 2) continue;
      heap.push(
          {p.score - below->candidates[0].value + below->candidates[1].value, seq++, id, level, 1});
    }
    Labeling labeling;
    labeling.labels = p.labels;
    labeling.score = lattice_->Score(labeling.labels);
    out.push_back(std::move(labeling));
  }
  return out;
}

absl::StatusOr<std::vector<Labeling>> AuxDpDecoder::ChainKBest(const Lattice& lattice, int k) {
  // The same enumeration as Run(lattice, {}) + KBest(k) (the same order, ties included), on a
  // plain first-order chain: candidate lists start with the Viterbi back-pointer (the first best
  // previous label) and continue best first, ties in label order, as KBest's stable sort has them.
  if (lattice.order() == 2) {
    // Pairs of labels are the nodes there: the engine's product lattice carries them.
    if (absl::Status st = Run(lattice, {}); !st.ok()) return st;
    return KBest(k);
  }
  lattice_ = nullptr;  // KBest's tables no longer describe a lattice
  std::vector<Labeling> out;
  if (k <= 0) return out;
  const int m = lattice.size(), n = lattice.num_labels();
  if (m == 0) {
    out.push_back(Labeling{});
    return out;
  }
  // The tables, and the k labelings returned (a floor on what the answer needs), must fit.
  const int64_t table_bytes = int64_t{m} * n * (sizeof(double) + 4 * sizeof(int));
  const int64_t per_labeling = int64_t{m} * sizeof(int) + sizeof(Labeling) + 16;
  int64_t answer = 1;  // min(k, N^M): no more labelings exist
  for (int t = 0; t < m && answer < k; ++t) answer *= n;
  answer = std::min<int64_t>(answer, k);
  if (table_bytes > max_bytes_ || answer > (max_bytes_ - table_bytes) / per_labeling) {
    return absl::ResourceExhaustedError(
        absl::StrCat("k-best needs more than ", max_bytes_ >> 20, " MB (the limit): ", answer,
                     " labelings of a ", m, "-token sentence take at least ",
                     (table_bytes + static_cast<double>(answer) * per_labeling) / (1 << 20),
                     " MB; ask for fewer"));
  }
  // The forward pass is Viterbi's own (same sums, same first-best tie rule as KBest's lists).
  absl::StatusOr<Labeling> viterbi = ViterbiDecode(lattice, &chain_viterbi_);
  if (!viterbi.ok()) {
    if (IsInfeasible(viterbi.status())) {
      return absl::NotFoundError("infeasible: no labeling satisfies the constraints");
    }
    return viterbi.status();
  }
  const int stride = chain_viterbi_.stride;
  const double* alpha = chain_viterbi_.score.data();
  const int* back_of = chain_viterbi_.back.data();
  const int sink = m * n;
  chain_row_.assign(static_cast<size_t>(sink) + 1, -1);
  chain_row_size_.assign(static_cast<size_t>(sink) + 1, 0);
  chain_sorted_.assign(static_cast<size_t>(sink) + 1, 0);
  chain_rows_.clear();
  int64_t bytes = table_bytes;  // updated before every path
  // Candidates of node (t, y) (t >= 1: previous labels; the sink: last labels), best first.
  auto build = [&](int node) {
    const int offset = static_cast<int>(chain_rows_.size());
    chain_row_[node] = offset;
    if (node == sink) {
      const double* last = alpha + static_cast<size_t>(m - 1) * stride;
      int arg = -1;
      double best = kNegInf;
      for (int y = 0; y < n; ++y) {
        const double v = last[y] + lattice.end(y);
        if (v > best) {
          best = v;
          arg = y;
        }
      }
      if (arg >= 0) {
        chain_rows_.push_back({best, arg, 0});
        for (int y = 0; y < n; ++y) {
          const double v = last[y] + lattice.end(y);
          if (y != arg && v != kNegInf) chain_rows_.push_back({v, y, 0});
        }
      }
    } else {
      const int t = node / n, y = node % n;
      const double* prev = alpha + static_cast<size_t>(t - 1) * stride;
      const int back = back_of[static_cast<size_t>(t) * stride + y];
      if (back >= 0) {
        chain_rows_.push_back({prev[back] + lattice.transition(back, y), back, 0});
        for (int p = 0; p < n; ++p) {
          if (p == back || prev[p] == kNegInf) continue;
          const double v = prev[p] + lattice.transition(p, y);
          if (v != kNegInf) chain_rows_.push_back({v, p, 0});
        }
      }
    }
    chain_row_size_[node] = static_cast<int>(chain_rows_.size()) - offset;
    chain_sorted_[node] = std::min(chain_row_size_[node], 1);
  };
  // Candidate `rank` of a node, ordering only as far as asked: the second entry by one scan
  // (moved up with the rest kept in label order), the remainder by a stable sort when needed.
  auto candidate = [&](int node, int rank) -> const Candidate* {
    if (chain_row_[node] < 0) build(node);
    const int size = chain_row_size_[node];
    if (rank >= size) return nullptr;
    Candidate* row = chain_rows_.data() + chain_row_[node];
    int& sorted = chain_sorted_[node];
    if (rank >= sorted && sorted == 1 && rank == 1) {
      int best = 1;
      for (int i = 2; i < size; ++i) {
        if (row[i].value > row[best].value) best = i;
      }
      std::rotate(row + 1, row + best, row + best + 1);
      sorted = 2;
    }
    if (rank >= sorted) {
      std::stable_sort(row + sorted, row + size,
                       [](const Candidate& a, const Candidate& b) { return a.value > b.value; });
      sorted = size;
    }
    return row + rank;
  };
  build(sink);
  if (chain_row_size_[sink] == 0) {
    return absl::NotFoundError("infeasible: no labeling satisfies the constraints");
  }
  DeviationHeap heap;
  int64_t seq = 0;
  std::vector<int> labels;  // path j's labels at [j * m, (j + 1) * m)
  heap.push({chain_rows_[chain_row_[sink]].value, seq++, -1, m, 0});
  while (!heap.empty() && static_cast<int>(out.size()) < k) {
    // What is held: the tables and candidate rows, the paths' labels, the heap and the output
    // (vectors counted at twice their size for the slack of their growth).
    bytes = table_bytes +
            static_cast<int64_t>(chain_rows_.capacity() * sizeof(Candidate) +
                                 labels.capacity() * sizeof(int) +
                                 2 * (heap.size() + m) * sizeof(DeviationItem) +
                                 2 * (out.size() + 1) * sizeof(Labeling)) +
            static_cast<int64_t>(out.size() + 1) * (int64_t{m} * sizeof(int) + 16);
    if (bytes > max_bytes_) {
      return absl::ResourceExhaustedError(absl::StrCat(
          "k-best needs more than ", max_bytes_ >> 20, " MB (the limit) after ", out.size(), " of ",
          k, " labelings of a ", m, "-token sentence; ask for fewer"));
    }
    const DeviationItem item = heap.top();
    heap.pop();
    const int id = static_cast<int>(out.size());
    labels.resize(static_cast<size_t>(id + 1) * m);
    int* path = labels.data() + static_cast<size_t>(id) * m;
    int node = sink;
    if (item.level < m) {
      const int* parent = labels.data() + static_cast<size_t>(item.parent) * m;
      std::copy(parent + item.level, parent + m, path + item.level);
      node = item.level * n + path[item.level];
    }
    const Candidate chosen = *candidate(node, item.rank);
    if (const Candidate* next = candidate(node, item.rank + 1); next != nullptr) {
      heap.push(
          {item.score - chosen.value + next->value, seq++, item.parent, item.level, item.rank + 1});
    }
    // The chosen label at level - 1, then the back-pointers down to position 0.
    path[item.level - 1] = chosen.label;
    for (int t = item.level - 1; t >= 1; --t) {
      path[t - 1] = back_of[static_cast<size_t>(t) * stride + path[t]];
    }
    // Deviations from this path are needed only if more labelings are.
    const int deviate_below = static_cast<int>(out.size()) + 1 < k ? item.level : 1;
    for (int level = deviate_below - 1; level >= 1; --level) {
      const int below = level * n + path[level];
      const Candidate* second = candidate(below, 1);
      if (second == nullptr) continue;
      const Candidate* first = chain_rows_.data() + chain_row_[below];
      heap.push({item.score - first->value + second->value, seq++, id, level, 1});
    }
    Labeling labeling;
    labeling.labels.assign(path, path + m);
    labeling.score = lattice.Score(labeling.labels);
    out.push_back(std::move(labeling));
  }
  return out;
}

absl::StatusOr<std::vector<Labeling>> KBestDecode(const Lattice& lattice, int k,
                                                  absl::Span<const Statistic* const> constraints,
                                                  AuxDpDecoder* decoder) {
  AuxDpDecoder local;
  AuxDpDecoder& d = decoder != nullptr ? *decoder : local;
  if (constraints.empty() && lattice.order() == 1) return d.ChainKBest(lattice, k);
  if (absl::Status st = d.Run(lattice, constraints); !st.ok()) return st;
  return d.KBest(k);
}

absl::StatusOr<Labeling> ExclusionDecode(const Lattice& lattice,
                                         const std::vector<std::vector<int>>& excluded,
                                         absl::Span<const Statistic* const> constraints,
                                         AuxDpDecoder* decoder) {
  // Among the |excluded| + 1 best labelings at least one is not excluded: exact and cheap.
  absl::StatusOr<std::vector<Labeling>> best =
      KBestDecode(lattice, static_cast<int>(excluded.size()) + 1, constraints, decoder);
  if (!best.ok()) return best.status();
  for (Labeling& l : *best) {
    if (std::find(excluded.begin(), excluded.end(), l.labels) == excluded.end())
      return std::move(l);
  }
  return absl::NotFoundError("infeasible: every labeling satisfying the constraints is excluded");
}

absl::StatusOr<std::vector<Labeling>> DiverseKBest(const Lattice& lattice, int k, int min_distance,
                                                   absl::Span<const Statistic* const> constraints,
                                                   const ChunkTable* chunks,
                                                   AuxDpDecoder* decoder) {
  AuxDpDecoder local;
  AuxDpDecoder& d = decoder != nullptr ? *decoder : local;
  std::vector<Labeling> out;
  std::vector<std::unique_ptr<Statistic>> distances;
  std::vector<const Statistic*> stats(constraints.begin(), constraints.end());
  // No two labelings of M tokens are more than M tokens (or chunks) apart.
  if (min_distance > lattice.size()) k = std::min(k, 1);
  // The last step's state space grows by the distance statistic's states per earlier labeling;
  // refuse at once what could not be run to the end within the decoder's memory bound.
  const int64_t per =
      chunks != nullptr ? 3 * (int64_t{min_distance} + 1) : int64_t{min_distance} + 1;
  double last_cells = static_cast<double>(std::max(lattice.size(), 1)) * lattice.num_labels();
  for (const Statistic* c : constraints) last_cells *= c->NumStates();
  for (int j = 1; j < k; ++j) last_cells *= static_cast<double>(per);
  if (last_cells * 8 > static_cast<double>(d.max_bytes())) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "diverse k-best of ", k, " labelings at distance ", min_distance, " needs about ",
        absl::SixDigits(last_cells * 8 / (1 << 20)), " MB at its last step, above the limit of ",
        d.max_bytes() >> 20, " MB; ask for fewer labelings or a smaller distance"));
  }
  for (int j = 0; j < k; ++j) {
    if (absl::Status st = d.Run(lattice, stats); !st.ok()) return st;
    absl::StatusOr<Labeling> next = d.BestAccepted();
    if (!next.ok()) {
      if (IsInfeasible(next.status()) && j > 0) break;  // no further labeling is far enough away
      return next.status();
    }
    if (chunks != nullptr) {
      distances.push_back(
          std::make_unique<ChunkDistanceStatistic>(*chunks, next->labels, min_distance));
    } else {
      distances.push_back(std::make_unique<HammingDistanceStatistic>(next->labels, min_distance));
    }
    stats.push_back(distances.back().get());
    out.push_back(*std::move(next));
    if (lattice.size() == 0) break;  // only one labeling exists
  }
  return out;
}

}  // namespace chaintag
