// Cardinality-based clique potentials and their MAP algorithms (Gupta, Diwan and Sarawagi,
// "Efficient Inference with Cardinality-based Clique Potentials", ICML 2007, Sections 3.1-3.3).
//
// A clique has n nodes and m labels, node potentials phi[u][y] and a clique potential
// C(n_1..n_m) that depends only on how many nodes take each label. The score of a labeling y is
// F(y) = sum_u phi[u][y_u] + C(n(y)); the algorithms look for the labeling of highest score.
#ifndef CHAINTAG_COLLECTIVE_COLLECTIVE_H_
#define CHAINTAG_COLLECTIVE_COLLECTIVE_H_

#include <cstdint>
#include <istream>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "chaintag/lattice.h"

namespace chaintag {

// Caps on user-controlled sizes.
inline constexpr int kMaxCliqueNodes = 100000;
inline constexpr int kMaxCliqueLabels = 1000;
// Nodes x labels of one clique (node potentials, and the tables of the named potentials).
inline constexpr int64_t kMaxCliqueCells = 1000000;
// Brute force enumerates m^n labelings; refused above this many.
inline constexpr int64_t kMaxBruteForceLabelings = int64_t{1} << 22;
// Elementary steps one call may take (about a few seconds): alpha-pass over label sets of size
// <= p takes (number of sets) * n * m, an ICM sweep n * m^2, max-marginals n * m times the
// algorithm's; larger requests are refused with ResourceExhausted, never left to run for hours.
inline constexpr double kMaxCliqueWork = 4e9;
// The exact MAJORITY algorithm solves up to n*m flow problems on n*m edges: refused when
// n*m exceeds this.
inline constexpr int64_t kMaxMajorityExactCells = 10000;
// |node potential|, |table value|, |W[a][y]| and |lambda| at most this: a larger value absorbs
// the others in double sums (6.7e52 + 1 == 6.7e52), so no algorithm's answer would mean anything.
inline constexpr double kMaxCliqueMagnitude = 1e12;

// The three families of Section 3.
enum class CliquePotentialFamily {
  kMax,       // max_y f_y(n_y)
  kSum,       // sum_y f_y(n_y)
  kMajority,  // sum_y w[a][y] n_y with a = argmax_y n_y (the lowest such label on ties)
};

// A clique potential over `num_labels` labels for cliques of at most `max_nodes` nodes.
// Immutable; cheap to copy (the tables are shared).
class CliquePotential {
 public:
  // MAX or SUM from a table: table[y][k] = f_y(k) for k = 0..max_nodes (every row the same
  // length, max_nodes + 1). Values must be finite and at most kMaxCliqueMagnitude in magnitude.
  static absl::StatusOr<CliquePotential> MaxOf(std::vector<std::vector<double>> table);
  static absl::StatusOr<CliquePotential> SumOf(std::vector<std::vector<double>> table);
  // Linear MAJORITY with an m x m matrix W (w[a][y]), finite values of magnitude at most
  // kMaxCliqueMagnitude.
  static absl::StatusOr<CliquePotential> Majority(std::vector<std::vector<double>> w);
  // Homogeneous Potts: lambda * sum_y n_y^2 (SUM). |lambda| <= kMaxCliqueMagnitude here and below.
  static absl::StatusOr<CliquePotential> Potts(double lambda, int num_labels, int max_nodes);
  // Negative entropy: lambda * sum_y n_y log n_y, with 0 log 0 = 0 (SUM).
  static absl::StatusOr<CliquePotential> NegativeEntropy(double lambda, int num_labels,
                                                         int max_nodes);
  // Makespan: lambda * max_y n_y^power, power 1 (linear) or 2 (square) (MAX).
  static absl::StatusOr<CliquePotential> Makespan(double lambda, int power, int num_labels,
                                                  int max_nodes);

  CliquePotentialFamily family() const { return family_; }
  // How it was made: "potts", "entropy", "makespan", "max", "sum" or "majority" (for messages).
  const char* kind() const { return kind_; }
  int num_labels() const { return num_labels_; }
  // Largest clique this potential is defined for (kMaxCliqueNodes for MAJORITY).
  int max_nodes() const { return max_nodes_; }
  // f_y(k) for MAX and SUM.
  double f(int y, int k) const { return (*table_)[static_cast<size_t>(y) * (max_nodes_ + 1) + k]; }
  // w[a][y] for MAJORITY.
  double w(int a, int y) const { return (*table_)[static_cast<size_t>(a) * num_labels_ + y]; }
  // C(counts); counts has num_labels entries summing to at most max_nodes.
  double Value(absl::Span<const int> counts) const;
  // The majority label of `counts`: the lowest label with the largest count.
  static int MajorityLabel(absl::Span<const int> counts);

 private:
  CliquePotential() = default;
  // MAX or SUM from a table; `user_values` also applies the magnitude cap.
  static absl::StatusOr<CliquePotential> FromTable(CliquePotentialFamily family, const char* kind,
                                                   std::vector<std::vector<double>> table,
                                                   bool user_values);
  CliquePotentialFamily family_ = CliquePotentialFamily::kSum;
  const char* kind_ = "sum";
  int num_labels_ = 0;
  int max_nodes_ = 0;
  std::shared_ptr<const std::vector<double>> table_;
};

// A clique: node potentials (row-major, num_nodes x num_labels) and a clique potential.
class Clique {
 public:
  // Checks sizes against each other and the caps, and that every potential is finite.
  static absl::StatusOr<Clique> Create(int num_nodes, int num_labels,
                                       std::vector<double> node_potentials,
                                       CliquePotential potential);
  int num_nodes() const { return num_nodes_; }
  int num_labels() const { return num_labels_; }
  double phi(int u, int y) const { return phi_[static_cast<size_t>(u) * num_labels_ + y]; }
  absl::Span<const double> node_potentials() const { return phi_; }
  const CliquePotential& potential() const { return potential_; }
  // F(labels): node potentials plus the clique potential. `labels` must be a labeling of the
  // clique (n entries in 0..m-1).
  double Score(absl::Span<const int> labels) const;

 private:
  Clique(int n, int m, std::vector<double> phi, CliquePotential potential)
      : num_nodes_(n), num_labels_(m), phi_(std::move(phi)), potential_(std::move(potential)) {}
  int num_nodes_;
  int num_labels_;
  std::vector<double> phi_;
  CliquePotential potential_;
};

struct CliqueSolution {
  std::vector<int> labels;
  double score = 0;
};

// MAP algorithms.
enum class CliqueAlgorithm {
  kAlphaPass,      // Section 3.1 (exact for MAX and m = 2; 13/15 for Potts); for MAJORITY the
                   // modified alpha-pass of Section 3.3.1
  kAlphaPass2,     // generalized alpha-pass over label pairs, p = 2 (Section 3.2.2)
  kIcm,            // iterated conditional modes from the node-wise best labeling
  kExact,          // brute-force enumeration (small cliques only)
  kMajorityExact,  // exact MAJORITY: degree-constrained matchings as min-cost flows (3.3.2)
};

// "alpha-pass", "alpha-pass-2", "icm", "exact", "majority-exact".
absl::StatusOr<CliqueAlgorithm> ParseCliqueAlgorithm(std::string_view name);
std::string_view CliqueAlgorithmName(CliqueAlgorithm algorithm);

// For every label subset A with |A| <= p and every count k: the top k nodes (by
// max_{a in A} phi_ua - max_{y not in A} phi_uy) take their best label in A, the others their
// best label outside A; returns the best such labeling (p = 1 is alpha-pass). MAJORITY
// potentials take the modified alpha-pass of Section 3.3.1 (p = 1 only).
absl::StatusOr<CliqueSolution> AlphaPass(const Clique& clique, int p = 1);
// Iterated conditional modes: each node in turn takes its best label given the others, until a
// sweep changes nothing (at most `max_sweeps` sweeps; each sweep only raises the score).
absl::StatusOr<CliqueSolution> Icm(const Clique& clique, int max_sweeps = 1000);
// Exact MAP by enumerating all m^n labelings (at most kMaxBruteForceLabelings).
absl::StatusOr<CliqueSolution> BruteForceMap(const Clique& clique);
// Exact MAP for MAJORITY potentials: for each majority label a and count k, the best labeling
// with n_a = k and every other count bounded (< k for lower labels, <= k for higher ones) is a
// degree-constrained bipartite matching, solved as a min-cost flow (Boost.Graph successive
// shortest paths on costs quantised to 2^-36 of the potentials' range, so the score is optimal
// to within n times that quantum). Subproblems whose unconstrained bound (the alpha-pass
// candidate) cannot beat the best labeling found are skipped.
absl::StatusOr<CliqueSolution> MajorityExactMap(const Clique& clique);

// Runs `algorithm` on the clique.
absl::StatusOr<CliqueSolution> SolveClique(const Clique& clique, CliqueAlgorithm algorithm);

// Max-marginals: result[u * m + y] is the score the algorithm finds with node u fixed to label y
// (exact for kExact and kMajorityExact, and for alpha-pass on MAX potentials and m = 2).
absl::StatusOr<std::vector<double>> CliqueMaxMarginals(const Clique& clique,
                                                       CliqueAlgorithm algorithm);

// Cliques as JSON lines:
//   {"potentials": [[phi_11, ..., phi_1m], ...], "potential": {"type": T, ...}}
// with T one of "potts" (lambda), "entropy" (lambda), "makespan" (lambda, power 1 or 2,
// default 1), "max" and "sum" (table: m rows of n+1 values f_y(0..n)), "majority" (W: m x m).
// Errors say what was expected; the reader prefixes them with the input name and line.
absl::StatusOr<Clique> ParseCliqueJson(std::string_view text);

// Reads one clique per non-blank line from a stream.
class CliqueReader {
 public:
  static constexpr int64_t kMaxLineBytes = int64_t{64} << 20;
  CliqueReader(std::istream& in, std::string name) : in_(in), name_(std::move(name)) {}
  // The next clique, or nullopt at the end of the input. Errors are "NAME:LINE: message".
  absl::StatusOr<std::optional<Clique>> Next();
  int64_t line_number() const { return line_number_; }

 private:
  std::istream& in_;
  std::string name_;
  int64_t line_number_ = 0;
  std::string line_;
};

// ---------------------------------------------------------------------------------------------
// Document-level collective labelling (Gupta, Diwan and Sarawagi, Section 2.1): the sentences of
// a document are chains (Lattices), and the positions that share a word are joined by a clique
// whose potential depends only on the label counts. The joint objective of a labeling is
//   J(y) = sum over chains of Lattice::Score(y_chain) + sum over cliques of C(n(y_clique)).

// A clique over positions of a document: (chain, position) pairs and its potential (over the
// chains' labels, for at least nodes.size() nodes).
struct DocumentClique {
  std::vector<std::pair<int, int>> nodes;
  CliquePotential potential;
};

struct CollectiveDecodeOptions {
  static constexpr int kMaxIterations = 1000;
  // Rounds of message passing at most (1..kMaxIterations); decoding also stops when a round
  // changes no label.
  int max_iterations = 10;
  // How clique max-marginals are computed (kAlphaPass: Section 3.1 / 3.3.1; kExact: brute force,
  // for tests on tiny cliques; kMajorityExact for MAJORITY potentials).
  CliqueAlgorithm algorithm = CliqueAlgorithm::kAlphaPass;
};

struct CollectiveDecodeResult {
  std::vector<std::vector<int>> labels;        // per chain: the best labeling found (by J)
  std::vector<std::vector<int>> plain_labels;  // per chain: its own Viterbi labeling
  double objective = 0.0;                      // J(labels)
  double plain_objective = 0.0;                // J(plain_labels)
  int iterations = 0;                          // message-passing rounds run
  bool converged = false;                      // stopped because a round changed no label
};

// J(labels) as above; `labels` has one labeling per chain.
double JointObjective(absl::Span<const Lattice> chains, absl::Span<const DocumentClique> cliques,
                      const std::vector<std::vector<int>>& labels);

// Max-product message passing on the cluster graph of chains and cliques. A chain sends each of
// its clique positions the max-marginal of a max-sum forward-backward over its lattice with the
// incoming clique messages added to the unaries (minus that clique's own message); a clique sends
// each node its max-marginal under the chosen algorithm with the chain messages as node
// potentials (minus the node's own). After every round each chain is decoded by Viterbi with the
// clique messages added; the result is the best labeling seen by J, starting from the chains'
// own Viterbi labelings, so it is never worse than them. Exact when the cluster graph is a tree
// and the clique max-marginals are exact. Fails with NotFound ("infeasible") when a chain has no
// labeling of finite score, InvalidArgument on inconsistent input (second-order chains included),
// ResourceExhausted when a clique's max-marginals exceed kMaxCliqueWork.
absl::StatusOr<CollectiveDecodeResult> CollectiveDecode(absl::Span<const Lattice> chains,
                                                        absl::Span<const DocumentClique> cliques,
                                                        const CollectiveDecodeOptions& options);

}  // namespace chaintag

#endif  // CHAINTAG_COLLECTIVE_COLLECTIVE_H_
