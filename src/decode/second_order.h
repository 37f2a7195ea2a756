// Decoders of second-order lattices (Lattice::order() == 2); ViterbiDecode, ForwardBackward and
// LogPartition dispatch here.
#ifndef CHAINTAG_DECODE_SECOND_ORDER_H_
#define CHAINTAG_DECODE_SECOND_ORDER_H_

#include <algorithm>
#include <cmath>
#include <vector>

#include "absl/status/statusor.h"
#include "chaintag/decode.h"
#include "chaintag/lattice.h"

namespace chaintag::decode_internal {

// log(sum(exp(v))) over v[0..n) with the max shifted out; -inf when all are -inf.
inline double LogSumExp(const double* v, int n) {
  double mx = kNegInf;
  for (int i = 0; i < n; ++i) mx = std::max(mx, v[i]);
  if (mx == kNegInf) return kNegInf;
  double sum = 0.0;
  for (int i = 0; i < n; ++i) sum += std::exp(v[i] - mx);
  return mx + std::log(sum);
}

// One step of the scaled (probability-space) forward over label pairs, with exponentiated scores:
// cur(b, c) = (sum_a prev(a, b) tri(a, b, c)) trans(b, c) u(c) for b, c < N (row N of cur is
// left alone); returns the sum of the cells. `tmp` holds N doubles. Compiled for AVX2 as well,
// with the same sums.
double PairForwardStep(int n, const double* prev, const double* tri, const double* trans,
                       const double* u, double* tmp, double* cur);
// exp(v - shift) of each of the n entries into out (0 for -inf), with shift the largest finite
// entry (0 if none); returns the shift.
double ExpShifted(const double* v, size_t n, double* out);
// Per middle label b: min over (a, c) of trigram(a, b, c) at [b], max at [N + b]
// (Lattice::SharedTrigram::bounds).
std::vector<double> TrigramBounds(const double* trigram, int n);
// The highest-scoring labeling (ties as ViterbiDecode's); scratch holds pair tables afterwards.
absl::StatusOr<Labeling> SecondOrderViterbi(const Lattice& lattice, ViterbiScratch* scratch);
// Log-space forward-backward over label pairs; with `log_z_only` only log_z is filled.
absl::StatusOr<Marginals> SecondOrderForwardBackward(const Lattice& lattice, bool log_z_only);

}  // namespace chaintag::decode_internal

#endif  // CHAINTAG_DECODE_SECOND_ORDER_H_
