// Decoders over a Lattice: Viterbi, forward-backward (log space), and lattice masks.
// Constrained decoding, k-best and diverse k-best live in aux_dp.h.
#ifndef CHAINTAG_DECODE_H_
#define CHAINTAG_DECODE_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "chaintag/labels.h"
#include "chaintag/lattice.h"

namespace chaintag {

// A labeling of a whole sentence with its chain score F(y).
struct Labeling {
  std::vector<int> labels;
  double score = 0.0;
};

// Reusable scratch space so per-sentence decoding does not allocate once warmed up.
// After ViterbiDecode, score[t * stride + y] is the best score of a prefix ending in label y at
// position t (start and unaries included) and back[t * stride + y] (t >= 1) its first best
// previous label (-1 if none).
struct ViterbiScratch {
  std::vector<double> score;
  std::vector<int> back;
  int stride = 0;  // row width of score and back (n, or n padded for vector loads)
};

// The highest-scoring labeling; ties go to the smallest label id, position by position from the
// end. Second-order lattices are decoded over label pairs (then `scratch` holds pair tables).
// Returns NotFound ("infeasible") when every labeling has score -inf. An empty lattice gives an
// empty labeling with score 0.
absl::StatusOr<Labeling> ViterbiDecode(const Lattice& lattice, ViterbiScratch* scratch = nullptr);

// Forward-backward in log space.
struct Marginals {
  double log_z = 0.0;              // log of the sum of exp(F(y)) over all labelings
  std::vector<double> unary;       // M x N: P(y_t = y)
  std::vector<double> transition;  // N x N: sum over t of P(y_{t-1} = a, y_t = b)
  std::vector<double> start;       // N: P(y_0 = y)
  std::vector<double> end;         // N: P(y_{M-1} = y)
  // Second-order lattices: (N+1) x N x N, sum over t >= 1 of P(y_{t-2} = a, y_{t-1} = b, y_t = c)
  // (a = N before the sentence); empty otherwise.
  std::vector<double> trigram;
  double unary_at(int t, int y, int num_labels) const {
    return unary[static_cast<size_t>(t) * num_labels + y];
  }
};
struct ForwardBackwardScratch {
  std::vector<double> alpha;
  std::vector<double> beta;
  std::vector<double> tmp;
};
// Fails (NotFound) when every labeling has score -inf.
absl::StatusOr<Marginals> ForwardBackward(const Lattice& lattice,
                                          ForwardBackwardScratch* scratch = nullptr);
// log Z only (cheaper: forward pass).
absl::StatusOr<double> LogPartition(const Lattice& lattice,
                                    ForwardBackwardScratch* scratch = nullptr);

// Allowed transitions (labels.h) as masks on the lattice (Wapiti-style): decoders are unchanged.
void ApplyTransitionMask(const TransitionMask& mask, Lattice* lattice);
// forced[t] = label id or -1 (free): all other labels at t get -inf (partially labelled input).
void ApplyForcedLabels(absl::Span<const int> forced, Lattice* lattice);

}  // namespace chaintag

#endif  // CHAINTAG_DECODE_H_
