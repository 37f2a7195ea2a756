// Internal: exact completion scores of a first-order lattice (the backward Viterbi pass), shared
// by A* decoding of latent models and the pruning of loss-augmented inference.
#ifndef CHAINTAG_SRC_DECODE_COMPLETION_H_
#define CHAINTAG_SRC_DECODE_COMPLETION_H_

#include <vector>

#include "chaintag/lattice.h"

namespace chaintag {

// out[t * N + y]: the best score a labeling with y at t collects after t (transitions, unaries
// and the end score; kNegInf if no completion is finite). First-order lattices.
void CompletionScores(const Lattice& lattice, std::vector<double>* out);

}  // namespace chaintag

#endif  // CHAINTAG_SRC_DECODE_COMPLETION_H_
