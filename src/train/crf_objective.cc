#include "train/crf_objective.h"

#include <algorithm>
#include <atomic>
#include <climits>
#include <cmath>
#include <thread>
#include <utility>

#include "decode/second_order.h"
#include "model/parameters.h"
#include "train/distributed.h"
#include "train/parallel.h"

namespace chaintag {
namespace train_internal {
namespace {

bool DetectAvx2() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2");
}

// Whether CrfObjective runs its per-sentence loops compiled for AVX2 (tests may turn it off).
std::atomic<bool> use_avx2_loops{DetectAvx2()};

constexpr double kFixedScale = static_cast<double>(int64_t{1} << CrfObjective::kFixedBits);
constexpr double kInvFixedScale = 1.0 / kFixedScale;

// Probabilities are in [0, 1] (up to rounding), so adding 0.5 rounds to nearest.
inline int64_t ToFixed(double p) { return static_cast<int64_t>(p * kFixedScale + 0.5); }
// For values of either sign (real-valued attributes).
inline int64_t ToFixedSigned(double x) { return std::llround(x * kFixedScale); }

double MaxOf(const double* x, int n) {
  double m = x[0];
  for (int i = 1; i < n; ++i) m = std::max(m, x[i]);
  return std::isfinite(m) ? m : 0.0;
}

// The O(N^3) backward step of the second-order forward-backward (the forward step is
// decode_internal::PairForwardStep), compiled for AVX2 as well (chosen at run time; the same
// operations in the same order, so every build gives the same sums).
//
// Backward: cur(a, b) = inv sum_c tri(a, b, c) v(b, c), and acc(a, b, c) += prev_alpha(a, b) inv
// v(b, c) (trigram marginals before the factor tri, applied once at the end). The dot product
// runs in four interleaved partial sums.
__attribute__((target_clones("avx2", "default"))) void PairBackwardStep(int n, const double* v,
                                                                        const double* tri,
                                                                        const double* prev_alpha,
                                                                        double inv, double* cur,
                                                                        double* acc) {
  for (int a = 0; a <= n; ++a) {
    for (int b = 0; b < n; ++b) {
      const size_t ab = static_cast<size_t>(a) * n + b;
      const double* row = tri + ab * n;
      const double* vb = v + static_cast<size_t>(b) * n;
      double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
      int c = 0;
      for (; c + 4 <= n; c += 4) {
        s0 += row[c] * vb[c];
        s1 += row[c + 1] * vb[c + 1];
        s2 += row[c + 2] * vb[c + 2];
        s3 += row[c + 3] * vb[c + 3];
      }
      for (; c < n; ++c) s0 += row[c] * vb[c];
      cur[ab] = ((s0 + s1) + (s2 + s3)) * inv;
      const double ca = prev_alpha[ab] * inv;
      if (ca == 0.0) continue;
      double* acc_row = acc + ab * n;
      for (int k = 0; k < n; ++k) acc_row[k] += ca * vb[k];
    }
  }
}

// out(j) = sum_i x(i) mat(i, j) for j < n, summed over i in increasing order from 0 (the same
// sums as a dot product per j): blocks of 8 and 4 columns are kept in registers over the whole
// sum instead of being added to memory n times.
inline void VectorMatrix(int n, const double* x, const double* mat, double* out) {
  int j = 0;
  for (; j + 8 <= n; j += 8) {
    double s[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    for (int i = 0; i < n; ++i) {
      const double xi = x[i];
      const double* row = mat + static_cast<size_t>(i) * n + j;
      for (int k = 0; k < 8; ++k) s[k] += xi * row[k];
    }
    for (int k = 0; k < 8; ++k) out[j + k] = s[k];
  }
  for (; j + 4 <= n; j += 4) {
    double s[4] = {0, 0, 0, 0};
    for (int i = 0; i < n; ++i) {
      const double xi = x[i];
      const double* row = mat + static_cast<size_t>(i) * n + j;
      for (int k = 0; k < 4; ++k) s[k] += xi * row[k];
    }
    for (int k = 0; k < 4; ++k) out[j + k] = s[k];
  }
  for (; j < n; ++j) {
    double s = 0;
    for (int i = 0; i < n; ++i) s += x[i] * mat[static_cast<size_t>(i) * n + j];
    out[j] = s;
  }
}

// The O(N^2) steps of the first-order forward-backward, compiled for AVX2 as well. Every cell is
// a sum over one index in increasing order, vectorised across the other index, so every build
// gives the same sums (no FMA contraction: the AVX2 target has none).
//
// Forward: cur(b) = u(b) sum_a prev(a) T(a, b), normalised; returns the sum before normalising.
__attribute__((target_clones("avx2", "default"))) double ForwardStep(int n, const double* prev,
                                                                     const double* trans,
                                                                     const double* u, double* tmp,
                                                                     double* cur) {
  VectorMatrix(n, prev, trans, tmp);
  double sum = 0;
  for (int b = 0; b < n; ++b) sum += cur[b] = tmp[b] * u[b];
  const double inv = 1.0 / sum;
  for (int b = 0; b < n; ++b) cur[b] *= inv;
  return sum;
}

// Backward: cur(a) = inv sum_b T(a, b) v(b), summed over b in increasing order through the
// transposed table, and acc(a, b) += prev_alpha(a) inv v(b) (edge marginals before the factor
// T, applied once at the end).
__attribute__((target_clones("avx2", "default"))) void BackwardStep(int n, const double* v,
                                                                    const double* trans_t,
                                                                    const double* prev_alpha,
                                                                    double inv, double* cur,
                                                                    double* acc) {
  VectorMatrix(n, v, trans_t, cur);
  for (int a = 0; a < n; ++a) {
    cur[a] *= inv;
    const double ca = prev_alpha[a] * inv;
    double* acc_row = acc + static_cast<size_t>(a) * n;
    for (int b = 0; b < n; ++b) acc_row[b] += ca * v[b];
  }
}

// Exponentiates each of the m rows of `unary` (n log scores) relative to its maximum, so exp
// never overflows, and returns the sum of the shifts (they add to log Z).
double ExpRows(int m, int n, double* unary) {
  double shifts = 0;
  for (int t = 0; t < m; ++t) {
    double* row = unary + static_cast<size_t>(t) * n;
    const double shift = MaxOf(row, n);
    shifts += shift;
    for (int y = 0; y < n; ++y) row[y] = std::exp(row[y] - shift);
  }
  return shifts;
}

// The first forward layer start(y) u_0(y), normalised to sum 1; returns the sum.
double FirstLayer(int n, const ExpTables& tables, const double* unary, double* alpha) {
  double sum = 0;
  for (int y = 0; y < n; ++y) sum += alpha[y] = tables.start[y] * unary[y];
  const double inv = 1.0 / sum;
  for (int y = 0; y < n; ++y) alpha[y] *= inv;
  return sum;
}

}  // namespace

std::vector<double> MaskedChainScores(const ModelParameters& params, absl::Span<const double> w,
                                      const TransitionMask& mask, double epsilon) {
  const int n = params.num_labels;
  const int64_t base = params.transition_offset();
  std::vector<double> chain(w.begin() + base, w.end());
  if (epsilon != 1.0) {
    for (double& x : chain) x /= epsilon;
  }
  if (mask.num_labels != n) return chain;
  double* start = chain.data() + (params.start_offset() - base);
  double* end = chain.data() + (params.end_offset() - base);
  for (size_t i = 0; i < mask.allowed.size(); ++i) {
    if (!mask.allowed[i]) chain[i] = kNegInf;
  }
  for (size_t y = 0; y < mask.allowed_start.size(); ++y) {
    if (!mask.allowed_start[y]) start[y] = kNegInf;
  }
  for (size_t y = 0; y < mask.allowed_end.size(); ++y) {
    if (!mask.allowed_end[y]) end[y] = kNegInf;
  }
  return chain;
}

void ExpTables::Build(int n, const double* transition_scores, const double* start_scores,
                      const double* end_scores, const double* trigram_scores) {
  trigram.clear();
  trigram_shift = 0;
  if (trigram_scores != nullptr) {
    const int size = (n + 1) * n * n;
    trigram.resize(size);
    trigram_shift = MaxOf(trigram_scores, size);
    for (int i = 0; i < size; ++i) trigram[i] = std::exp(trigram_scores[i] - trigram_shift);
  }
  num_labels = n;
  transition.resize(static_cast<size_t>(n) * n);
  start.resize(n);
  end.resize(n);
  transition_shift = MaxOf(transition_scores, n * n);
  start_shift = MaxOf(start_scores, n);
  end_shift = MaxOf(end_scores, n);
  for (int i = 0; i < n * n; ++i) transition[i] = std::exp(transition_scores[i] - transition_shift);
  transition_t.resize(static_cast<size_t>(n) * n);
  for (int a = 0; a < n; ++a) {
    for (int b = 0; b < n; ++b) transition_t[b * n + a] = transition[a * n + b];
  }
  for (int i = 0; i < n; ++i) start[i] = std::exp(start_scores[i] - start_shift);
  for (int i = 0; i < n; ++i) end[i] = std::exp(end_scores[i] - end_shift);
}

double ScaledForwardBackward::Run(int m, const ExpTables& tables, double* unary) {
  const int n = tables.num_labels;
  const size_t cells = static_cast<size_t>(m) * n;
  if (alpha_.size() < cells) {
    alpha_.resize(cells);
    beta_.resize(cells);
  }
  if (static_cast<int>(inv_norm_.size()) < m) inv_norm_.resize(m);
  tmp_.resize(n);
  transition_.assign(static_cast<size_t>(n) * n, 0.0);
  const double* trans = tables.transition.data();

  double log_z = tables.start_shift + tables.end_shift + (m - 1) * tables.transition_shift +
                 ExpRows(m, n, unary);

  // Forward: alpha_t normalised to sum 1; inv_norm_[t] = 1 / (its sum before normalising).
  double* alpha = alpha_.data();
  {
    const double sum = FirstLayer(n, tables, unary, alpha);
    inv_norm_[0] = 1.0 / sum;
    log_z += std::log(sum);
  }
  double* tmp = tmp_.data();
  for (int t = 1; t < m; ++t) {
    const double sum =
        ForwardStep(n, alpha + static_cast<size_t>(t - 1) * n, trans,
                    unary + static_cast<size_t>(t) * n, tmp, alpha + static_cast<size_t>(t) * n);
    inv_norm_[t] = 1.0 / sum;
    log_z += std::log(sum);
  }
  double final_sum = 0;
  {
    const double* last = alpha + static_cast<size_t>(m - 1) * n;
    for (int y = 0; y < n; ++y) final_sum += last[y] * tables.end[y];
    log_z += std::log(final_sum);
  }

  // Backward with the same normalisers, so P(y_t = y) = alpha_t(y) * beta_t(y).
  double* beta = beta_.data();
  {
    double* last = beta + static_cast<size_t>(m - 1) * n;
    const double inv = 1.0 / final_sum;
    for (int y = 0; y < n; ++y) last[y] = tables.end[y] * inv;
  }
  double* acc = transition_.data();
  for (int t = m - 1; t >= 1; --t) {
    const double* next_beta = beta + static_cast<size_t>(t) * n;
    const double* u = unary + static_cast<size_t>(t) * n;
    for (int y = 0; y < n; ++y) tmp[y] = u[y] * next_beta[y];  // v_t
    // Edge marginals are alpha_{t-1}(a) T(a,b) v_t(b) / C_t; T is applied once at the end.
    BackwardStep(n, tmp, tables.transition_t.data(), alpha + static_cast<size_t>(t - 1) * n,
                 inv_norm_[t], beta + static_cast<size_t>(t - 1) * n, acc);
  }
  for (int i = 0; i < n * n; ++i) acc[i] *= trans[i];
  for (size_t i = 0; i < cells; ++i) alpha[i] *= beta[i];
  return log_z;
}

double ScaledForwardBackward2::Run(int m, const ExpTables& tables, double* unary) {
  const int n = tables.num_labels;
  const int bos = n;
  const size_t layer = static_cast<size_t>(n + 1) * n;
  alpha_.assign(layer * m, 0.0);
  beta_.assign(layer * m, 0.0);
  inv_norm_.resize(m);
  tmp_.resize(n);
  v_.resize(layer);
  marginals_.assign(static_cast<size_t>(m) * n, 0.0);
  transition_.assign(static_cast<size_t>(n) * n, 0.0);
  trigram_.assign(layer * n, 0.0);
  const double* trans = tables.transition.data();
  const double* tri = tables.trigram.data();

  double log_z = tables.start_shift + tables.end_shift +
                 (m - 1) * (tables.transition_shift + tables.trigram_shift) + ExpRows(m, n, unary);
  // Forward over pairs (b, c) = (y_{t-1}, y_t), each layer normalised to sum 1.
  double* alpha = alpha_.data();
  double* tmp = tmp_.data();
  {
    const double sum = FirstLayer(n, tables, unary, alpha + static_cast<size_t>(bos) * n);
    inv_norm_[0] = 1.0 / sum;
    log_z += std::log(sum);
  }
  for (int t = 1; t < m; ++t) {
    const double* prev = alpha + layer * (t - 1);
    double* cur = alpha + layer * t;
    const double* u = unary + static_cast<size_t>(t) * n;
    const double sum = decode_internal::PairForwardStep(n, prev, tri, trans, u, tmp, cur);
    const double inv = 1.0 / sum;
    inv_norm_[t] = inv;
    for (size_t i = 0; i < layer; ++i) cur[i] *= inv;
    log_z += std::log(sum);
  }
  double final_sum = 0;
  {
    const double* last = alpha + layer * (m - 1);
    for (size_t i = 0; i < layer; ++i) final_sum += last[i] * tables.end[i % n];
    log_z += std::log(final_sum);
  }
  // Backward with the same normalisers, so P(y_{t-1} = b, y_t = c) = alpha_t(b, c) beta_t(b, c).
  double* beta = beta_.data();
  {
    double* last = beta + layer * (m - 1);
    const double inv = 1.0 / final_sum;
    for (size_t i = 0; i < layer; ++i) last[i] = tables.end[i % n] * inv;
  }
  double* v = v_.data();
  double* acc = trigram_.data();
  for (int t = m - 1; t >= 1; --t) {
    const double* next_beta = beta + layer * t;
    const double* u = unary + static_cast<size_t>(t) * n;
    for (int b = 0; b < n; ++b) {
      const double* trow = trans + static_cast<size_t>(b) * n;
      for (int c = 0; c < n; ++c) {
        const size_t i = static_cast<size_t>(b) * n + c;
        v[i] = trow[c] * u[c] * next_beta[i];
      }
    }
    PairBackwardStep(n, v, tri, alpha + layer * (t - 1), inv_norm_[t], beta + layer * (t - 1), acc);
  }
  for (size_t i = 0; i < layer * n; ++i) acc[i] *= tri[i];
  for (int a = 0; a <= n; ++a) {
    for (int b = 0; b < n; ++b) {
      const double* row = acc + (static_cast<size_t>(a) * n + b) * n;
      double* out = transition_.data() + static_cast<size_t>(b) * n;
      for (int c = 0; c < n; ++c) out[c] += row[c];
    }
  }
  for (int t = 0; t < m; ++t) {
    const double* a_t = alpha + layer * t;
    const double* b_t = beta + layer * t;
    double* out = marginals_.data() + static_cast<size_t>(t) * n;
    for (size_t i = 0; i < layer; ++i) out[i % n] += a_t[i] * b_t[i];
  }
  return log_z;
}

CrfObjective::CrfObjective(const TrainingData& data, double c2, int threads,
                           std::vector<int32_t>* consume, SmoothLoss loss)
    : data_(data), c2_(c2), loss_(std::move(loss)) {
  if (threads <= 0) threads = std::max(1u, std::thread::hardware_concurrency());
  threads = std::max(1, std::min(threads, std::max(1, data.num_sentences())));
  workers_.resize(threads);
  for (Worker& worker : workers_) worker.gradient.assign(data.parameters.size(), 0);
  log_z_.assign(data.num_sentences(), 0.0);
  const ModelParameters& params = data.parameters;
  const size_t occurrences = data.position_attributes.size();
  // Pack (first feature << count_bits_ | count) into one int32 when the feature count leaves
  // room (4 bytes per occurrence instead of 6); at most one feature per label.
  count_bits_ = 1;
  while ((1 << count_bits_) <= params.num_labels) ++count_bits_;
  if (params.num_state_features() >= (int64_t{1} << (31 - count_bits_))) {
    count_bits_ = 0;
    feature_count_.resize(occurrences);
    for (size_t k = 0; k < occurrences; ++k) {
      const int32_t a = data.position_attributes[k];
      // Label ids fit 16 bits for any realistic tag set.
      feature_count_[k] =
          static_cast<uint16_t>(params.attribute_offsets[a + 1] - params.attribute_offsets[a]);
    }
  }
  if (consume != nullptr) {
    first_feature_.swap(*consume);
  } else {
    first_feature_ = data.position_attributes;
  }
  // Dense rows: an attribute qualifies when its features are at least a third of the labels
  // (then N vector cells cost about what its features cost through the indirection).
  const int n = params.num_labels;
  const int threshold = std::max(2, (n + 2) / 3);
  std::vector<int32_t> dense_row(params.num_attributes(), -1);
  for (int32_t a : first_feature_) {
    if (dense_row[a] >= 0) continue;
    if (params.attribute_offsets[a + 1] - params.attribute_offsets[a] < threshold) continue;
    dense_row[a] = num_dense_++;
    dense_attributes_.push_back(a);
  }
  dense_weights_.assign(static_cast<size_t>(num_dense_) * n, 0.0);
  for (Worker& worker : workers_) {
    worker.dense_gradient.assign(static_cast<size_t>(num_dense_) * n, 0);
  }
  for (int32_t& x : first_feature_) {
    if (dense_row[x] >= 0) {
      x = -(dense_row[x] + 1);
      continue;
    }
    const int32_t begin = params.attribute_offsets[x];
    x = count_bits_ == 0 ? begin
                         : (begin << count_bits_) | (params.attribute_offsets[x + 1] - begin);
  }
}

void CrfObjective::ProcessSentence(int s, const double* w, const ExpTables& tables,
                                   Worker* worker) {
  const bool weighted = data_.weighted();
  if (count_bits_ > 0) {
    if (weighted) {
      ProcessSentenceOn<true, true>(s, w, tables, worker);
    } else {
      ProcessSentenceOn<true, false>(s, w, tables, worker);
    }
  } else if (weighted) {
    ProcessSentenceOn<false, true>(s, w, tables, worker);
  } else {
    ProcessSentenceOn<false, false>(s, w, tables, worker);
  }
}

void CrfObjective::UseAvx2LoopsForTesting(bool use) {
  use_avx2_loops.store(use && DetectAvx2(), std::memory_order_relaxed);
}

// The loops compiled for AVX2 as well, chosen at run time: their dense rows are element-wise
// sums and their gradients integers (and AVX2 has no FMA to contract), so both give the same bits.
template <bool kPacked, bool kWeighted>
__attribute__((target("avx2"))) void CrfObjective::ProcessSentenceAvx2(int s, const double* w,
                                                                       const ExpTables& tables,
                                                                       Worker* worker) {
  ProcessSentenceImpl<kPacked, kWeighted>(s, w, tables, worker);
}

template <bool kPacked, bool kWeighted>
void CrfObjective::ProcessSentenceOn(int s, const double* w, const ExpTables& tables,
                                     Worker* worker) {
  if (use_avx2_loops.load(std::memory_order_relaxed)) {
    ProcessSentenceAvx2<kPacked, kWeighted>(s, w, tables, worker);
  } else {
    ProcessSentenceImpl<kPacked, kWeighted>(s, w, tables, worker);
  }
}

template <bool kPacked, bool kWeighted>
__attribute__((always_inline)) inline void CrfObjective::ProcessSentenceImpl(
    int s, const double* w, const ExpTables& tables, Worker* worker) {
  const ModelParameters& params = data_.parameters;
  const int n = params.num_labels;
  const int m = data_.sentence_size(s);
  const int64_t first = data_.sentence_offsets[s];
  const size_t cells = static_cast<size_t>(m) * n;
  if (worker->unary.size() < cells) worker->unary.resize(cells);
  double* unary = worker->unary.data();
  std::fill(unary, unary + cells, 0.0);
  const int32_t* starts = first_feature_.data();
  const uint16_t* counts = feature_count_.data();
  const int bits = count_bits_;
  const int32_t count_mask = (1 << bits) - 1;
  // [begin, end) state features of occurrence k.
  auto range = [&](int64_t k, int32_t* begin, int32_t* end) {
    if constexpr (kPacked) {
      *begin = starts[k] >> bits;
      *end = *begin + (starts[k] & count_mask);
    } else {
      *begin = starts[k];
      *end = starts[k] + counts[k];
    }
  };
  const int32_t* labels = data_.parameters.feature_labels.data();
  const int64_t* position_offsets = data_.position_offsets.data() + first;
  const float* values = data_.position_values.data();
  const double* dense_w = dense_weights_.data();
  for (int t = 0; t < m; ++t) {
    double* row = unary + static_cast<size_t>(t) * n;
    for (int64_t k = position_offsets[t]; k < position_offsets[t + 1]; ++k) {
      // Value 0 (a false flag) adds only zeros, which change no score (at most a zero's sign,
      // which no exp, max or product below can see).
      if constexpr (kWeighted) {
        if (values[k] == 0.0) continue;
      }
      if (starts[k] < 0) {
        const double* dw = dense_w + static_cast<size_t>(-starts[k] - 1) * n;
        if constexpr (kWeighted) {
          const double v = values[k];
          for (int y = 0; y < n; ++y) row[y] += v * dw[y];
        } else {
          for (int y = 0; y < n; ++y) row[y] += dw[y];
        }
        continue;
      }
      int32_t begin, end;
      range(k, &begin, &end);
      if constexpr (kWeighted) {
        const double v = values[k];
        for (int32_t f = begin; f < end; ++f) row[labels[f]] += v * w[f];
      } else {
        for (int32_t f = begin; f < end; ++f) row[labels[f]] += w[f];
      }
    }
  }
  // Loss-augmented, tempered scores (Delta + F) / eps; exact no-ops for the plain CRF.
  const bool tempered = loss_.epsilon != 1.0;
  if (!loss_.cost.empty() || tempered) {
    const double inv_eps = 1.0 / loss_.epsilon;
    const double scale = loss_.per_token_average ? 1.0 / m : 1.0;
    const int32_t* gold = data_.gold.data() + first;
    for (int t = 0; t < m; ++t) {
      double* row = unary + static_cast<size_t>(t) * n;
      if (!loss_.cost.empty()) {
        const double* cost = loss_.cost.data() + static_cast<size_t>(gold[t]) * n;
        for (int y = 0; y < n; ++y) row[y] += scale * cost[y];
      }
      if (tempered) {
        for (int y = 0; y < n; ++y) row[y] *= inv_eps;
      }
    }
  }
  const bool second_order = params.order == 2;
  log_z_[s] = loss_.epsilon * (second_order ? worker->kernel2.Run(m, tables, unary)
                                            : worker->kernel.Run(m, tables, unary));

  int64_t* g = worker->gradient.data();
  int64_t* dense_g = worker->dense_gradient.data();
  const double* marginals =
      second_order ? worker->kernel2.unary_marginals() : worker->kernel.unary_marginals();
  worker->fixed.resize(n);
  int64_t* q = worker->fixed.data();
  worker->fixed_signed.resize(n);
  int64_t* qs = worker->fixed_signed.data();
  for (int t = 0; t < m; ++t) {
    const double* row = marginals + static_cast<size_t>(t) * n;
    for (int y = 0; y < n; ++y) q[y] = ToFixed(row[y]);
    // Values 0 and 1 (most of CRFsuite-style attribute files: false and true flags, strings) add
    // exactly 0 and ToFixedSigned(p), computed once per label here instead of once per feature.
    if constexpr (kWeighted) {
      for (int y = 0; y < n; ++y) qs[y] = ToFixedSigned(row[y]);
    }
    for (int64_t k = position_offsets[t]; k < position_offsets[t + 1]; ++k) {
      if constexpr (kWeighted) {
        if (values[k] == 0.0) continue;
      }
      if (starts[k] < 0) {
        int64_t* dg = dense_g + static_cast<size_t>(-starts[k] - 1) * n;
        if constexpr (kWeighted) {
          const double v = values[k];
          if (v == 1.0) {
            for (int y = 0; y < n; ++y) dg[y] += qs[y];
          } else {
            for (int y = 0; y < n; ++y) dg[y] += ToFixedSigned(v * row[y]);
          }
        } else {
          for (int y = 0; y < n; ++y) dg[y] += q[y];
        }
        continue;
      }
      int32_t begin, end;
      range(k, &begin, &end);
      if constexpr (kWeighted) {
        const double v = values[k];
        if (v == 1.0) {
          for (int32_t f = begin; f < end; ++f) g[f] += qs[labels[f]];
        } else {
          for (int32_t f = begin; f < end; ++f) g[f] += ToFixedSigned(v * row[labels[f]]);
        }
      } else {
        for (int32_t f = begin; f < end; ++f) g[f] += q[labels[f]];
      }
    }
    if (t == 0) {
      for (int y = 0; y < n; ++y) g[params.start_offset() + y] += q[y];
    }
    if (t == m - 1) {
      for (int y = 0; y < n; ++y) g[params.end_offset() + y] += q[y];
    }
  }
  const double* trans =
      second_order ? worker->kernel2.transition_marginals() : worker->kernel.transition_marginals();
  int64_t* gt = g + params.transition_offset();
  for (int i = 0; i < n * n; ++i) gt[i] += ToFixed(trans[i]);
  if (second_order) {
    const double* tri = worker->kernel2.trigram_marginals();
    int64_t* g3 = g + params.trigram_offset();
    for (int64_t i = 0; i < params.num_trigrams(); ++i) g3[i] += ToFixed(tri[i]);
  }
}

double CrfObjective::Evaluate(absl::Span<const double> w, absl::Span<double> gradient) {
  const ModelParameters& params = data_.parameters;
  const int n = params.num_labels;
  ExpTables tables;
  // Transition, start, end (and trigram) weights, divided by epsilon for the tempered objective.
  const std::vector<double> scaled = MaskedChainScores(params, w, data_.mask, loss_.epsilon);
  const double* chain = scaled.data();
  const int64_t base = params.transition_offset();
  tables.Build(n, chain, chain + (params.start_offset() - base),
               chain + (params.end_offset() - base),
               params.order == 2 ? chain + (params.trigram_offset() - base) : nullptr);

  const int num_sentences = data_.num_sentences();
  // Small chunks keep the threads balanced; the order they are taken in does not matter.
  constexpr int kChunk = 16;
  std::atomic<int> next{0};
  const int32_t* labels = params.feature_labels.data();
  const int32_t* offsets = params.attribute_offsets.data();
  for (int d = 0; d < num_dense_; ++d) {
    double* row = dense_weights_.data() + static_cast<size_t>(d) * n;
    const int32_t a = dense_attributes_[d];
    for (int32_t f = offsets[a]; f < offsets[a + 1]; ++f) row[labels[f]] = w[f];
  }
  auto run = [&](Worker* worker) {
    std::fill(worker->gradient.begin(), worker->gradient.end(), 0);
    std::fill(worker->dense_gradient.begin(), worker->dense_gradient.end(), 0);
    for (;;) {
      const int begin = next.fetch_add(kChunk);
      if (begin >= num_sentences) break;
      const int end = std::min(num_sentences, begin + kChunk);
      for (int s = begin; s < end; ++s) ProcessSentence(s, w.data(), tables, worker);
    }
    // Integer sums: folding the dense rows in changes nothing of the totals.
    int64_t* g = worker->gradient.data();
    for (int d = 0; d < num_dense_; ++d) {
      const int64_t* row = worker->dense_gradient.data() + static_cast<size_t>(d) * n;
      const int32_t a = dense_attributes_[d];
      for (int32_t f = offsets[a]; f < offsets[a + 1]; ++f) g[f] += row[labels[f]];
    }
  };
  train_internal::RunOnThreads(static_cast<int>(workers_.size()),
                               [&](int k) { run(&workers_[k]); });

  // Exact sums: the same totals for any split of the sentences over ranks and threads.
  const double objective = ExactTotal(log_z_, data_.ranks);
  const int64_t* over_ranks = GradientOverRanks(data_.ranks, workers_, &over_ranks_);
  const int64_t size = params.size();
  const int32_t* empirical = data_.empirical.data();
  const double* weighted_empirical = data_.weighted() ? data_.weighted_empirical.data() : nullptr;
  double gold_score = 0, norm = 0;
  const bool l2 = loss_.p == 2.0;
  const double c = 2.0 * c2_;  // (C/p) |w|_p^p with C = 2 c2
  for (int64_t i = 0; i < size; ++i) {
    // Expected minus empirical counts, exact in fixed point before the one rounding to double.
    int64_t sum;
    if (weighted_empirical != nullptr) {
      gold_score += w[i] * weighted_empirical[i];
      sum = -ToFixedSigned(weighted_empirical[i]);
    } else {
      gold_score += w[i] * empirical[i];
      sum = -(static_cast<int64_t>(empirical[i]) << kFixedBits);
    }
    if (over_ranks != nullptr) {
      sum += over_ranks[i];
    } else {
      for (const Worker& worker : workers_) sum += worker.gradient[i];
    }
    double reg_gradient;
    if (l2) {
      norm += w[i] * w[i];
      reg_gradient = c * w[i];
    } else {
      const double a = std::abs(w[i]);
      const double power = a == 0.0 ? 0.0 : std::pow(a, loss_.p - 1.0);
      norm += power * a;
      reg_gradient = c * (w[i] < 0 ? -power : power);
    }
    gradient[i] = static_cast<double>(sum) * kInvFixedScale + reg_gradient;
  }
  return objective - gold_score + (l2 ? c2_ * norm : c / loss_.p * norm);
}

}  // namespace train_internal
}  // namespace chaintag
