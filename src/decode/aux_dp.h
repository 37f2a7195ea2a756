// Constrained chain decoding with auxiliary variables: Viterbi over (position, label, statistic
// state), then the best final state by H(F, state) with H non-decreasing in the chain score F.
// A. Bauer, S. Nakajima, K.-R. Mueller, "Polynomial-Time Constrained Message Passing for Exact MAP
// Inference on Discrete Models with Global Dependencies", Mathematics 11(12):2628, 2023,
// Algorithm 1 and Section 4.3, specialised to chains. Cost O(M * N^2 * R), memory O(M * N * R) for
// R = product of the statistics' state counts.
//
// Tie-breaking (every decoder here): among labelings with the best H, prefer the higher F, then the
// labeling that is smallest when read from the last position backwards (as ViterbiDecode does).
// Infeasible requests return absl::NotFoundError whose message starts with "infeasible"; use
// IsInfeasible(status) to tell it apart from real errors.
#ifndef CHAINTAG_DECODE_AUX_DP_H_
#define CHAINTAG_DECODE_AUX_DP_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "chaintag/chunks.h"
#include "chaintag/decode.h"
#include "chaintag/lattice.h"

namespace chaintag {

// A finite-state accumulator over the label sequence. States are dense ints 0..NumStates()-1.
class Statistic {
 public:
  static constexpr int kInfeasible = -1;

  virtual ~Statistic() = default;
  virtual int NumStates() const = 0;
  virtual int Initial() const = 0;
  // State after `label` at `position` (prev_label is -1 at position 0), or kInfeasible to prune.
  virtual int Next(int state, int position, int prev_label, int label) const = 0;
  // Whether a final state satisfies the constraint this statistic expresses (true if it only
  // measures, e.g. a loss read by H).
  virtual bool Accepts(int /*state*/) const { return true; }
  // Whether some `remaining` more labels can lead from `state` to an accepted final state; false
  // lets a search prune the branch (branch-and-bound; the DP engine does not need it).
  virtual bool Reachable(int /*state*/, int /*remaining*/) const { return true; }
  // Checks that the statistic fits the lattice (sentence length, label ids).
  virtual absl::Status Validate(const Lattice& /*lattice*/) const { return absl::OkStatus(); }
  // True if Next ignores `position` (its successor table is then built once per sentence).
  virtual bool PositionIndependent() const { return false; }
  // False if Next ignores `prev_label` for positions > 0 (the engine then uses a faster
  // Viterbi-shaped inner loop).
  virtual bool DependsOnPreviousLabel() const { return true; }
  // Fills table[(state * (N + 1) + prev_label + 1) * N + label] = Next(...) for one position;
  // the engine calls this once per position, so overrides keep the per-cell work non-virtual.
  virtual void FillSuccessors(int position, int num_labels, absl::Span<int> table) const;
  // True if the engine should ask for successor rows of live (position, prev_label, state) cells
  // only (FillRow) instead of whole tables: for statistics with many states of which few are
  // reachable at any position (e.g. loss confusion counts), tables would cost more than the DP.
  virtual bool ComputesRows() const { return false; }
  // row[y] = Next(state, position, prev_label, y) for every label y (one virtual call per row).
  virtual void FillRow(int position, int prev_label, int state, int num_labels, int* row) const;
  // Second-order lattices: true if the successor also depends on the label two positions back
  // (e.g. through a trigram score). The engine then asks NextAfter for live cells only, with
  // `before` = that label (N, "before the sentence", at positions 0 and 1), instead of Next.
  virtual bool ReadsHistory() const { return false; }
  virtual int NextAfter(int state, int position, int /*before*/, int prev_label, int label) const {
    return Next(state, position, prev_label, label);
  }
};

bool IsInfeasible(const absl::Status& status);

// Number of labels in `labels` (a set of label ids), constrained to [lower, upper] (upper < 0 means
// no upper bound). States count up to max(lower, upper) + 1 and stay there, so R is small.
class LabelCountStatistic : public Statistic {
 public:
  LabelCountStatistic(int num_labels, const std::vector<int>& labels, int lower, int upper);
  int NumStates() const override { return cap_ + 1; }
  int Initial() const override { return 0; }
  int Next(int state, int position, int prev_label, int label) const override;
  bool Accepts(int state) const override;
  bool Reachable(int state, int remaining) const override { return state + remaining >= lower_; }
  bool PositionIndependent() const override { return true; }
  bool DependsOnPreviousLabel() const override { return false; }
  void FillSuccessors(int position, int num_labels, absl::Span<int> table) const override;

 private:
  std::vector<char> in_set_;
  int lower_;
  int upper_;
  int cap_;
};

// Number of chunks (chunk starts, as conlleval finds them) whose type is in `types` (type ids of
// `table`), constrained to [lower, upper] (upper < 0: unbounded); capped like LabelCountStatistic.
class ChunkCountStatistic : public Statistic {
 public:
  ChunkCountStatistic(const ChunkTable& table, const std::vector<int>& types, int lower, int upper);
  int NumStates() const override { return cap_ + 1; }
  int Initial() const override { return 0; }
  int Next(int state, int position, int prev_label, int label) const override;
  bool Accepts(int state) const override;
  // Each position starts at most one chunk.
  bool Reachable(int state, int remaining) const override { return state + remaining >= lower_; }
  bool PositionIndependent() const override { return true; }

 private:
  std::vector<char> counts_;  // (N+1) x N: 1 if (prev, label) starts a counted chunk
  int num_labels_;
  int lower_;
  int upper_;
  int cap_;
};

// Hamming distance to `reference`, capped at `min_distance`; accepts distance >= min_distance.
// min_distance = 1 excludes the reference itself.
class HammingDistanceStatistic : public Statistic {
 public:
  HammingDistanceStatistic(std::vector<int> reference, int min_distance);
  int NumStates() const override { return cap_ + 1; }
  int Initial() const override { return 0; }
  int Next(int state, int position, int prev_label, int label) const override;
  bool Accepts(int state) const override { return state >= cap_; }
  bool Reachable(int state, int remaining) const override { return state + remaining >= cap_; }
  absl::Status Validate(const Lattice& lattice) const override;
  bool DependsOnPreviousLabel() const override { return false; }
  void FillSuccessors(int position, int num_labels, absl::Span<int> table) const override;

 private:
  std::vector<int> reference_;
  int cap_;
};

// Number of chunks of the decoded labeling that are not also chunks (same span and type) of
// `reference`, capped at `min_distance`; accepts >= min_distance. State = count x open-chunk flag.
class ChunkDistanceStatistic : public Statistic {
 public:
  ChunkDistanceStatistic(const ChunkTable& table, std::vector<int> reference, int min_distance);
  int NumStates() const override { return 3 * (cap_ + 1); }
  int Initial() const override { return 0; }
  int Next(int state, int position, int prev_label, int label) const override;
  bool Accepts(int state) const override { return state / 3 >= cap_; }
  absl::Status Validate(const Lattice& lattice) const override;

 private:
  const ChunkTable* table_;
  std::vector<int> reference_;
  std::vector<char> ref_starts_;  // M: a reference chunk starts at t
  std::vector<char> ref_ends_;    // M + 1: the reference chunk holding t-1 ends before t
  int cap_;
};

struct ScoreRangeLayout;  // internal to the score-range statistic

// Quantised partial chain score for score-range decoding (see ScoreRangeDecode). Built for one
// lattice. State 0 = "free": every completion is guaranteed to land in [lower, upper]; other
// states number the live quantised partial scores k * resolution at each position (the sum of the
// rounded increments so far). States that can no longer reach the range are pruned.
class ScoreRangeStatistic : public Statistic {
 public:
  // With `refine_narrow`, resolution is lowered to (upper - lower) / M when the range is narrower
  // than M * resolution (then "infeasible" is exact; see ScoreRangeDecode). Fails
  // (ResourceExhausted) if more than `max_states` states are needed.
  static absl::StatusOr<std::unique_ptr<ScoreRangeStatistic>> Create(const Lattice& lattice,
                                                                     double lower, double upper,
                                                                     double resolution,
                                                                     int max_states = 1 << 16,
                                                                     bool refine_narrow = true);
  int NumStates() const override { return num_states_; }
  int Initial() const override { return kStart; }
  int Next(int state, int position, int prev_label, int label) const override;
  absl::Status Validate(const Lattice& lattice) const override;
  // Rows for live cells only: of the R x (N+1) x N successors per position few are reachable.
  bool ComputesRows() const override { return true; }
  void FillRow(int position, int prev_label, int state, int num_labels, int* row) const override;
  // On a second-order lattice the increments read the trigram scores, so the engine asks
  // NextAfter (with the label two positions back); Next is then not used.
  bool ReadsHistory() const override { return lattice_ != nullptr; }
  int NextAfter(int state, int position, int before, int prev_label, int label) const override;
  double resolution() const { return resolution_; }
  double lower() const { return lower_; }
  double upper() const { return upper_; }

 private:
  static constexpr int kFree = 0;
  static constexpr int kStart = 1;  // before position 0 (partial score 0)
  ScoreRangeStatistic() = default;
  // State at `position` for quantised partial k (after the label at `position` is `label`).
  int Classify(int position, int label, int64_t k) const;
  // The successor of `state` when the label at `position` adds the quantised increment `inc`.
  int Advance(int state, int position, int label, int64_t inc) const;
  // The quantised partial before `position` (> 0) that live `state` stands for; false if none.
  bool Partial(int state, int position, int64_t* k) const;
  // Second order: the rounded increment of (before, prev_label, label) at `position`.
  int64_t SecondOrderIncrement(int position, int before, int prev_label, int label) const;
  double ErrorBound(int position) const;
  int m_ = 0;
  int n_ = 0;
  double lower_ = 0;
  double upper_ = 0;
  double resolution_ = 0;
  int num_states_ = 0;
  std::vector<int64_t> increment_;  // M x (N+1) x N increments / r, rounded (INT64_MIN if -inf)
  // Second order: a copy of the lattice (trigram tables shared), whose increments are rounded as
  // they are asked for (M x (N+1) x N x N would not fit for long sentences); null at first order.
  std::shared_ptr<const Lattice> lattice_;
  std::vector<double> best_rest_;   // M x N: max score of positions after t (incl. end)
  std::vector<double> worst_rest_;  // M x N: min finite score of the rest
  std::shared_ptr<const ScoreRangeLayout> layout_;  // live intervals per position
};

// H(F, final product state): non-decreasing in F; kNegInf rejects the state.
using FinalObjective = std::function<double(double score, int state)>;

// Reusable engine (one per thread): runs the product-state Viterbi on a lattice and answers
// best / k-best queries about it. Statistics are not owned and must outlive the queries.
class AuxDpDecoder {
 public:
  // Upper bound on M * N * R cells; beyond it Run returns ResourceExhausted.
  static constexpr int64_t kMaxCells = int64_t{1} << 26;
  // Default memory bound of Run's tables and of a k-best search (ResourceExhausted beyond).
  static constexpr int64_t kDefaultMaxBytes = int64_t{1} << 30;

  absl::Status Run(const Lattice& lattice, absl::Span<const Statistic* const> statistics);

  // Successor tables of position-dependent statistics are kept for every position while their
  // total stays within this many entries; beyond it one position's table is kept and refilled on
  // demand (less memory, about twice the table work). Results are the same either way.
  void set_max_table_entries(int64_t entries) { max_table_entries_ = entries; }
  // Bounds the memory of Run (forward scores) and of KBest (paths, nodes, heap): beyond it they
  // return ResourceExhausted naming what was needed, before allocating it where it can be known.
  void set_max_bytes(int64_t bytes) { max_bytes_ = bytes; }
  int64_t max_bytes() const { return max_bytes_; }
  // Raises (or lowers) Run's bound on M * N * R cells from kMaxCells.
  void set_max_cells(int64_t cells) { max_cells_ = cells; }
  // Cell pruning for the Run calls that follow, until clear_pruning(): once position t's scores
  // are complete, a cell (t, y, state) whose score F has F + suffix[t * N + y] <
  // state_threshold[state] is dropped (unreachable from then on). `suffix` (M x N) must bound
  // what the rest of a labeling can add and `state_threshold` (one per product state) must be
  // such that no cell below it can lead to a maximiser of the final objective the caller asks
  // Best for (LossAugmentedDecode: the objective of a labeling at hand, less the largest loss
  // still reachable from the state). Then every cell on an optimal path, and every cell such a
  // cell takes its maximum from, is kept, and Best is unchanged. Both arrays are the caller's.
  // A pruned Run keeps only the cells that survive (12 bytes each, within max_bytes), not the
  // M x N x R table; a KBest after it rebuilds the table first.
  void set_pruning(const double* suffix, const double* state_threshold) {
    prune_suffix_ = suffix;
    prune_threshold_ = state_threshold;
  }
  void clear_pruning() { prune_suffix_ = nullptr; }
  // Cells dropped by pruning in the last Run.
  int64_t pruned_cells() const { return pruned_cells_; }

  // R, including on second-order lattices the engine's own last component: the label before the
  // previous one (N+1 states), so that trigram scores are exact on the product lattice.
  int num_states() const { return num_states_; }
  int ComponentState(int state, int component) const {
    return (state / strides_[component]) % sizes_[component];
  }
  // True if every statistic accepts its component of `state`.
  bool AllAccept(int state) const;

  // The labeling maximising H(F, final state) (ties: see the file comment); NotFound
  // ("infeasible") if H is -inf everywhere. `final_state` receives the product state if non-null.
  absl::StatusOr<Labeling> Best(const FinalObjective& h, int* final_state = nullptr);
  // Best with H = F if every statistic accepts the final state, else -inf.
  absl::StatusOr<Labeling> BestAccepted(int* final_state = nullptr);
  // The best labeling ending in exactly this final (label, state) cell; NotFound if unreachable.
  absl::StatusOr<Labeling> BestInCell(int last_label, int state);
  // Max F over labelings ending in (last_label, state) (end score included), kNegInf if none.
  double CellScore(int last_label, int state) const;

  // The k highest-scoring distinct labelings among those whose final state every statistic
  // accepts, best first (fewer if fewer exist; NotFound "infeasible" if none). Lazy best-first
  // enumeration of deviations from the best path (in the spirit of Eppstein 1998 / Huang & Chiang
  // 2005), using the exact forward Viterbi scores as completion bounds.
  absl::StatusOr<std::vector<Labeling>> KBest(int k);

  // The k best labelings of `lattice` without statistics, the same as Run(lattice, {}) + KBest(k)
  // but about twice as fast: one forward Viterbi with back-pointers, and each node's candidate
  // list built only when a deviation there is asked for and sorted only past its second entry.
  // Bounded by max_bytes like KBest. KBestDecode uses it when there are no constraints.
  absl::StatusOr<std::vector<Labeling>> ChainKBest(const Lattice& lattice, int k);

 private:
  struct Candidate {
    double value;  // best prefix score + transition into the node (unary of the node excluded)
    int label;     // previous label (or last label for the sink)
    int state;
  };
  struct Node {
    std::vector<Candidate> candidates;  // sorted best first
  };
  struct Path {
    double score;
    std::vector<int> labels;  // M
    std::vector<int> states;  // M
    int deviation_level;      // children deviate only at levels below this one
  };
  void ComputeSuccessorRow(int position, int prev_label, int state, int* row) const;
  // The successor states of cell (prev_label, state) at `position`: a stored table row when one
  // table-based statistic is all, else ComputeSuccessorRow's into row_ (valid until the next call).
  const int* SuccessorsOf(int position, int prev_label, int state);
  // The transition score into `label` from (prev, state): transition(prev, label), plus
  // trigram(history(state), prev, label) on second-order lattices (the same sum as Run's).
  double TransitionScore(int prev, int state, int label) const {
    const double tr = lattice_->transition(prev, label);
    if (history_stride_ == 0) return tr;
    return tr + lattice_->trigram(state / history_stride_, prev, label);
  }
  int Successor(int position, int prev_label, int state, int label) const;
  // A statistic's successor state as a stride-scaled product-state part (kDead if infeasible).
  int ConvertState(int component, int position, int state) const;
  const int* Table(int component, int position) const;
  absl::Status FillTable(int component, int position, int* table) const;
  Node* GetNode(int position, int label, int state);  // position M = sink
  void CompletePath(Path* path, int position, int label, int state);
  absl::Status Backtrace(int last_label, std::vector<char> states, Labeling* out);

  const Lattice* lattice_ = nullptr;
  int m_ = 0;
  int n_ = 0;
  int num_states_ = 1;
  std::vector<int> sizes_;
  std::vector<int> strides_;
  std::vector<const Statistic*> statistics_;
  std::unique_ptr<Statistic> history_;  // second-order lattices: appended to statistics_
  int history_stride_ = 0;  // second order: stride of the (last) history component, else 0
  std::vector<char> position_independent_;
  std::vector<char> computes_rows_;    // per component: rows on demand, no tables
  std::vector<char> reads_history_;    // per component: rows by NextAfter (second order)
  mutable std::vector<int> stat_row_;  // N scratch for FillRow
  // Per component: one table (position-independent, or streaming) or M tables. Streaming tables
  // are refilled on demand by the const accessors, hence mutable.
  mutable std::vector<std::vector<int>> tables_;
  mutable std::vector<int> table_position_;  // streaming: the position each table holds
  mutable absl::Status table_status_;        // streaming: first error met while refilling
  bool streaming_tables_ = false;
  int64_t max_table_entries_ = kMaxCells;
  int64_t max_bytes_ = kDefaultMaxBytes;
  int64_t max_cells_ = kMaxCells;
  const double* prune_suffix_ = nullptr;
  const double* prune_threshold_ = nullptr;
  int64_t pruned_cells_ = 0;
  // Run with pruning set: keeps live cells only (see aux_dp.cc).
  absl::Status RunSparse(int initial);
  // Moves position t's touched cells (touched_) from layer_ to the live lists, dropping those
  // below the pruning threshold (set_pruning).
  absl::Status CollectLayer(int t);
  // After a pruned Run, for KBest: the dense table from the live lists.
  void DensifyForward();
  // The last Run was pruned: scores are in live_values_ for the cells (y * R + state) of
  // live_cells_, listed per position from live_begin_[t] to live_begin_[t + 1], and the last
  // position's in final_ (N x R, -inf elsewhere; final_cells_ lists what to clear). layer_ (N x R)
  // is all -inf between uses.
  bool sparse_ = false;
  std::vector<int32_t> live_cells_;
  std::vector<double> live_values_;
  std::vector<int> live_begin_;
  std::vector<double> layer_, final_;
  std::vector<int32_t> final_cells_;
  std::vector<int32_t> touched_;  // cells of the current layer set so far
  int64_t kbest_bytes_ = 0;       // memory a KBest query holds so far (approximate)
  std::vector<double> forward_;   // M x N x R best prefix scores
  std::vector<int> components_;   // R x K component states
  std::vector<int> row_;          // N scratch
  std::vector<double> acc_;       // N scratch
  std::vector<int> zero_row_;     // N zeros (no statistics)
  std::vector<std::unique_ptr<Node>> node_pool_;
  // k-best memo (position, label, state) -> node; std:: because absl 20220623 trips UBSan here.
  std::unordered_map<int64_t, Node*> nodes_;
  // ChainKBest: Viterbi's tables; per node (t, y), t = 1..M-1, and the sink (index M * N): the
  // offset of its candidate row in chain_rows_ (-1: not built) and how many of its leading
  // entries are in order.
  ViterbiScratch chain_viterbi_;
  std::vector<int> chain_row_;
  std::vector<int> chain_row_size_;
  std::vector<int> chain_sorted_;
  std::vector<Candidate> chain_rows_;
};

// Best labeling satisfying every constraint; NotFound "infeasible" if none does.
absl::StatusOr<Labeling> ConstrainedDecode(const Lattice& lattice,
                                           absl::Span<const Statistic* const> constraints,
                                           AuxDpDecoder* decoder = nullptr);

// Best labeling (under `constraints`) that differs from every labeling in `excluded`.
absl::StatusOr<Labeling> ExclusionDecode(const Lattice& lattice,
                                         const std::vector<std::vector<int>>& excluded,
                                         absl::Span<const Statistic* const> constraints = {},
                                         AuxDpDecoder* decoder = nullptr);

// The k best distinct labelings under `constraints`, best first (fewer if fewer exist).
absl::StatusOr<std::vector<Labeling>> KBestDecode(
    const Lattice& lattice, int k, absl::Span<const Statistic* const> constraints = {},
    AuxDpDecoder* decoder = nullptr);

// y_1 = best; y_j = best labeling whose distance to every earlier y_i is >= min_distance (Hamming,
// or with `chunks` set the number of chunks of y_j not shared with y_i). Stops early (returns
// fewer) when no further labeling qualifies; NotFound "infeasible" if not even y_1 exists.
absl::StatusOr<std::vector<Labeling>> DiverseKBest(
    const Lattice& lattice, int k, int min_distance,
    absl::Span<const Statistic* const> constraints = {}, const ChunkTable* chunks = nullptr,
    AuxDpDecoder* decoder = nullptr);

// Best labeling whose exact score F lies in [lower, upper] (also under `constraints`).
// Guarantee, with M = sentence length and r = the resolution actually used (written to
// `used_resolution`): the returned labeling's exact score is in [lower, upper] (checked after
// decoding), and no labeling with score in range scores more than M * r above it; NotFound
// "infeasible" exactly when no labeling (under the constraints) has its score in range.
// Why: every one of the M per-position increments is rounded to a multiple of r (error <= r/2),
// so labelings sharing a final state differ by at most M * r; per state the DP keeps the max, and
// a second DP on negated scores the min, one of which is in range whenever any labeling of the
// state is (this needs upper - lower >= M * r, so narrower ranges first use r = (upper - lower) /
// M). r is doubled until the state space fits in `max_states` (and the engine's memory limit), so
// very fine resolutions over long sentences become coarser: check `used_resolution`. Beyond
// (upper - lower) / M the returned labeling keeps the guarantee (any labeling in range is within
// upper - lower < M * r of it), but a state may straddle the range (its max above, its min below):
// when no state yields a labeling in range and one straddles, the answer is undecided at that
// resolution and the call returns ResourceExhausted rather than a false "infeasible".
// The two engines it runs share `max_bytes`; ResourceExhausted when even so they would not fit.
// Without `constraints` it runs one pass instead (cells keep both their highest and lowest exact
// partial, whole cells are dropped or freed on them: a free cell, which no completion can lift
// above `upper`, keeps only its highest partial, exactly), with `max_states` partials per label and
// position, r also coarsened to fit a budget of cell updates (about 1M, a few ms: the state budget
// is set by time, not by a count), and refined while the answer is undecided and the budget allows.
// A range that does not bind costs one Viterbi: when the best labeling (under the constraints)
// scores in range it is returned at once, exactly, with `used_resolution` = `resolution`.
absl::StatusOr<Labeling> ScoreRangeDecode(const Lattice& lattice, double lower, double upper,
                                          double resolution = 0.001,
                                          absl::Span<const Statistic* const> constraints = {},
                                          double* used_resolution = nullptr,
                                          int max_states = 1 << 16,
                                          int64_t max_bytes = AuxDpDecoder::kDefaultMaxBytes);

}  // namespace chaintag

#endif  // CHAINTAG_DECODE_AUX_DP_H_
