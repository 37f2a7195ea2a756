// Decoding latent-dynamic CRFs (Morency et al., CVPR 2007; Sun et al., COLING 2008): every label
// owns a contiguous block of hidden states, the lattice a latent model scores is over hidden
// states, and P(y|x) sums P(h|x) over the hidden paths h that project to y. The most probable
// labeling is NP-hard to find in general (X. Sun, "Exact Decoding on Latent Variable Conditional
// Models is NP-Hard"); LdiDecode is that paper's LDI: best-first hidden paths, an exact forward
// pass per new labeling, and a stop as soon as the best labeling outweighs all unseen mass.
// (LatentLayout, the hidden states of each label, is public: chaintag/labels.h.)
#ifndef CHAINTAG_DECODE_LATENT_H_
#define CHAINTAG_DECODE_LATENT_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "chaintag/decode.h"
#include "chaintag/labels.h"
#include "chaintag/lattice.h"

namespace chaintag {

// The label mask over hidden states: h -> h' is allowed when label(h) -> label(h') is.
TransitionMask ExpandTransitionMask(const TransitionMask& label_mask, const LatentLayout& layout);
// forced[t] = label id or -1 (free): every hidden state of another label gets -inf at t.
void ApplyLatentForcedLabels(absl::Span<const int> forced, const LatentLayout& layout,
                             Lattice* hidden);
// The labeling a hidden path projects to.
std::vector<int> ProjectHiddenPath(absl::Span<const int> hidden_path, const LatentLayout& layout);

// Reusable buffers (one per thread).
struct LatentScratch {
  std::vector<double> alpha, next, heuristic;
  ForwardBackwardScratch forward_backward;
  ViterbiScratch viterbi;
};

// log of the sum of exp(F(h)) over the hidden paths h that project to `labels` (a forward pass
// restricted to the labels' hidden states); kNegInf when every such path has score -inf.
double LabelingLogScore(const Lattice& hidden, const LatentLayout& layout,
                        absl::Span<const int> labels, LatentScratch* scratch = nullptr);

struct LatentSolution {
  std::vector<int> labels;
  double log_score = kNegInf;  // log sum over its hidden paths of exp(F(h))
  double probability = 0.0;    // exp(log_score - log Z): exact P(y|x)
};

struct LatentDecodeResult {
  std::vector<LatentSolution> solutions;  // most probable first
  double log_z = 0.0;
  // Certified: no labeling left out is more probable than the last solution returned (for one
  // solution: it is the most probable labeling). bhp and marginal are certified when their
  // labeling has probability >= 1/2.
  bool exact = false;
  int64_t hidden_paths = 0;  // hidden paths the search enumerated (bhp: 1, marginal: 0)
};

struct LdiOptions {
  static constexpr int64_t kMaxPaths = 10'000'000;
  int k = 1;                 // labelings wanted, most probable first
  int64_t max_paths = 1000;  // LDI-Bounded: stop after this many hidden paths (1..kMaxPaths)
  int64_t max_bytes = int64_t{512} << 20;  // search memory; the search stops (not exact) beyond
};

// LDI (Sun, sec. IV): hidden paths best first (A* with the exact backward Viterbi heuristic), each
// new labeling's P(y|x) by LabelingLogScore, until the k-th most probable labeling found is at
// least 1 - (the probability of all labelings found): then no unseen labeling can beat it. When
// max_paths (or max_bytes) stops the search first, the labelings found so far are returned with
// exact = false (LDI-Bounded). NotFound ("infeasible") when every hidden path has score -inf.
absl::StatusOr<LatentDecodeResult> LdiDecode(const Lattice& hidden, const LatentLayout& layout,
                                             const LdiOptions& options,
                                             LatentScratch* scratch = nullptr);
// The labeling of the single best hidden path (Matsuzaki et al.'s MVI), with its exact P(y|x).
absl::StatusOr<LatentDecodeResult> BestHiddenPathDecode(const Lattice& hidden,
                                                        const LatentLayout& layout,
                                                        LatentScratch* scratch = nullptr);
// Per position the label whose hidden states have the largest marginal sum (Morency et al.'s
// PMI), with its exact P(y|x) (0 when it crosses a masked transition). `label_marginals`, when
// given, receives M x N P(y_t = y).
absl::StatusOr<LatentDecodeResult> MarginalLatentDecode(
    const Lattice& hidden, const LatentLayout& layout, LatentScratch* scratch = nullptr,
    std::vector<double>* label_marginals = nullptr);
// M x N label marginals P(y_t = y | x) (sums of hidden-state marginals) and log Z.
absl::StatusOr<std::vector<double>> LatentLabelMarginals(const Lattice& hidden,
                                                         const LatentLayout& layout,
                                                         double* log_z = nullptr,
                                                         LatentScratch* scratch = nullptr);

}  // namespace chaintag

#endif  // CHAINTAG_DECODE_LATENT_H_
