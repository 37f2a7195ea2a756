// First-order Viterbi over a Lattice (Viterbi 1967; Rabiner 1989, Sec. III-B).
//
// With AVX2 the recursion keeps four candidate labels per vector and walks the predecessors in
// order, replacing a lane's best only on a strictly greater sum: the same sums and the same
// first-predecessor tie rule as the scalar loop, so both give identical labelings and scores.
#include <algorithm>
#include <cmath>
#include <vector>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define CHAINTAG_VITERBI_AVX2 1
#endif

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "chaintag/decode.h"
#include "chaintag/lattice.h"
#include "decode/completion.h"
#include "decode/second_order.h"

namespace chaintag {
namespace {

// One step of the recursion for all labels: row[y] = max_p prev[p] + trans[p * stride + y] plus
// unary[y], back[y] = the smallest p attaining it (-1 if every sum is -inf or NaN).
void ScalarStep(const double* prev, const double* trans, int stride, const double* unary, int n,
                double* row, int* back) {
  for (int y = 0; y < n; ++y) {
    double best = kNegInf;
    int arg = -1;
    for (int p = 0; p < n; ++p) {
      const double v = prev[p] + trans[static_cast<size_t>(p) * stride + y];
      if (v > best) {
        best = v;
        arg = p;
      }
    }
    row[y] = best + unary[y];
    back[y] = arg;
  }
}

#ifdef CHAINTAG_VITERBI_AVX2
// `trans` rows are padded to `stride` (a multiple of 4) so whole vectors can be loaded; lanes
// past n compute values nobody reads. `row` and `back` have room for `stride` entries.
__attribute__((target("avx2"))) void Avx2Step(const double* prev, const double* trans, int stride,
                                              const double* unary, int n, double* row, int* back) {
  const __m256d neg_inf = _mm256_set1_pd(kNegInf);
  const __m256d none = _mm256_set1_pd(-1.0);
  int y = 0;
  // Four vectors (16 labels) at a time keeps four independent dependency chains in flight.
  for (; y + 16 <= stride; y += 16) {
    __m256d m0 = neg_inf, m1 = neg_inf, m2 = neg_inf, m3 = neg_inf;
    __m256d a0 = none, a1 = none, a2 = none, a3 = none;
    for (int p = 0; p < n; ++p) {
      const __m256d b = _mm256_broadcast_sd(prev + p);
      const __m256d pp = _mm256_set1_pd(static_cast<double>(p));
      const double* t = trans + static_cast<size_t>(p) * stride + y;
      const __m256d v0 = _mm256_add_pd(b, _mm256_loadu_pd(t));
      const __m256d v1 = _mm256_add_pd(b, _mm256_loadu_pd(t + 4));
      const __m256d v2 = _mm256_add_pd(b, _mm256_loadu_pd(t + 8));
      const __m256d v3 = _mm256_add_pd(b, _mm256_loadu_pd(t + 12));
      const __m256d g0 = _mm256_cmp_pd(v0, m0, _CMP_GT_OQ);
      const __m256d g1 = _mm256_cmp_pd(v1, m1, _CMP_GT_OQ);
      const __m256d g2 = _mm256_cmp_pd(v2, m2, _CMP_GT_OQ);
      const __m256d g3 = _mm256_cmp_pd(v3, m3, _CMP_GT_OQ);
      m0 = _mm256_blendv_pd(m0, v0, g0);
      m1 = _mm256_blendv_pd(m1, v1, g1);
      m2 = _mm256_blendv_pd(m2, v2, g2);
      m3 = _mm256_blendv_pd(m3, v3, g3);
      a0 = _mm256_blendv_pd(a0, pp, g0);
      a1 = _mm256_blendv_pd(a1, pp, g1);
      a2 = _mm256_blendv_pd(a2, pp, g2);
      a3 = _mm256_blendv_pd(a3, pp, g3);
    }
    _mm256_storeu_pd(row + y, m0);
    _mm256_storeu_pd(row + y + 4, m1);
    _mm256_storeu_pd(row + y + 8, m2);
    _mm256_storeu_pd(row + y + 12, m3);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(back + y), _mm256_cvtpd_epi32(a0));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(back + y + 4), _mm256_cvtpd_epi32(a1));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(back + y + 8), _mm256_cvtpd_epi32(a2));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(back + y + 12), _mm256_cvtpd_epi32(a3));
  }
  for (; y < stride; y += 4) {
    __m256d m0 = neg_inf, a0 = none;
    for (int p = 0; p < n; ++p) {
      const __m256d v0 =
          _mm256_add_pd(_mm256_broadcast_sd(prev + p),
                        _mm256_loadu_pd(trans + static_cast<size_t>(p) * stride + y));
      const __m256d g0 = _mm256_cmp_pd(v0, m0, _CMP_GT_OQ);
      m0 = _mm256_blendv_pd(m0, v0, g0);
      a0 = _mm256_blendv_pd(a0, _mm256_set1_pd(static_cast<double>(p)), g0);
    }
    _mm256_storeu_pd(row + y, m0);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(back + y), _mm256_cvtpd_epi32(a0));
  }
  for (int k = 0; k < n; ++k) row[k] += unary[k];
}

bool HasAvx2() {
  static const bool has = __builtin_cpu_supports("avx2");
  return has;
}
#endif

}  // namespace

absl::StatusOr<Labeling> ViterbiDecode(const Lattice& lattice, ViterbiScratch* scratch) {
  const int m = lattice.size();
  const int n = lattice.num_labels();
  Labeling result;
  if (m == 0) return result;
  if (n <= 0) {
    return absl::InvalidArgumentError("ViterbiDecode: lattice has positions but no labels");
  }
  if (lattice.order() == 2) return decode_internal::SecondOrderViterbi(lattice, scratch);
  ViterbiScratch local;
  ViterbiScratch& s = scratch != nullptr ? *scratch : local;
  const double* trans = lattice.transition_data().data();
  // Rows of scores, back-pointers and (for AVX2) transitions are `stride` wide.
  int stride = n;
  bool vector = false;
#ifdef CHAINTAG_VITERBI_AVX2
  vector = HasAvx2();
  if (vector) stride = (n + 3) / 4 * 4;
#endif
  const size_t cells = static_cast<size_t>(m) * stride;
  // Padded transitions live after the score rows.
  const size_t padded = vector ? static_cast<size_t>(n) * stride : 0;
  if (s.score.size() < cells + padded) s.score.resize(cells + padded);
  if (s.back.size() < cells) s.back.resize(cells);
  double* score = s.score.data();
  int* back = s.back.data();
  s.stride = stride;
  if (vector) {
    double* t = score + cells;
    for (int p = 0; p < n; ++p) {
      std::copy(trans + static_cast<size_t>(p) * n, trans + static_cast<size_t>(p + 1) * n,
                t + static_cast<size_t>(p) * stride);
      std::fill(t + static_cast<size_t>(p) * stride + n, t + static_cast<size_t>(p + 1) * stride,
                0.0);
    }
    trans = t;
  }

  for (int y = 0; y < n; ++y) {
    score[y] = lattice.start(y) + lattice.unary(0, y);
    back[y] = -1;
  }
  for (int t = 1; t < m; ++t) {
    const double* prev_row = score + static_cast<size_t>(t - 1) * stride;
    double* row = score + static_cast<size_t>(t) * stride;
    int* back_row = back + static_cast<size_t>(t) * stride;
    const double* unary = lattice.unary_row(t).data();
#ifdef CHAINTAG_VITERBI_AVX2
    if (vector) {
      Avx2Step(prev_row, trans, stride, unary, n, row, back_row);
      continue;
    }
#endif
    ScalarStep(prev_row, trans, stride, unary, n, row, back_row);
  }
  const double* last = score + static_cast<size_t>(m - 1) * stride;
  double best = kNegInf;
  int arg = -1;
  for (int y = 0; y < n; ++y) {
    const double v = last[y] + lattice.end(y);
    if (v > best) {
      best = v;
      arg = y;
    }
  }
  if (arg < 0 || std::isnan(best)) {
    return absl::NotFoundError("infeasible: every labeling of the lattice has score -inf");
  }
  result.labels.resize(m);
  result.score = best;
  for (int t = m - 1; t >= 0; --t) {
    result.labels[t] = arg;
    arg = back[static_cast<size_t>(t) * stride + arg];
  }
  return result;
}

void CompletionScores(const Lattice& lattice, std::vector<double>* out) {
  const int m = lattice.size(), n = lattice.num_labels();
  out->assign(static_cast<size_t>(m) * n, kNegInf);
  if (m == 0) return;
  double* s = out->data();
  for (int y = 0; y < n; ++y) s[static_cast<size_t>(m - 1) * n + y] = lattice.end(y);
  for (int t = m - 2; t >= 0; --t) {
    const double* next = s + static_cast<size_t>(t + 1) * n;
    const double* unary = lattice.unary_row(t + 1).data();
    double* cur = s + static_cast<size_t>(t) * n;
    for (int y = 0; y < n; ++y) {
      double best = kNegInf;
      for (int z = 0; z < n; ++z) {
        best = std::max(best, lattice.transition(y, z) + unary[z] + next[z]);
      }
      cur[y] = best;
    }
  }
}

}  // namespace chaintag
