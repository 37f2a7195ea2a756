#include "train/ssvm.h"

#include <algorithm>
#include <chrono>
#include <climits>
#include <cmath>
#include <cstring>
#include <memory>
#include <numeric>
#include <random>
#include <type_traits>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "chaintag/lattice.h"
#include "model/parameters.h"
#include "train/distributed.h"
#include "train/feature_vectors.h"
#include "train/losses.h"
#include "train/parallel.h"

namespace chaintag {
namespace train_internal {
namespace {

static_assert(std::is_same_v<int32_t, int>, "gold labels are passed to the decoders as int spans");

using Clock = std::chrono::steady_clock;

double Seconds(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

absl::Span<const int> GoldOf(const TrainingData& data, int s) {
  return absl::MakeConstSpan(data.gold.data() + data.sentence_offsets[s], data.sentence_size(s));
}

double SquaredNorm(absl::Span<const double> w) {
  double sum = 0;
  for (double x : w) sum += x * x;
  return sum;
}

// The seeded visiting order of one pass (Fisher-Yates with our own draws, so every standard
// library gives the same order).
void Shuffle(std::mt19937_64* rng, std::vector<int>* order) {
  for (int i = static_cast<int>(order->size()) - 1; i > 0; --i) {
    const int j = static_cast<int>((*rng)() % static_cast<uint64_t>(i + 1));
    std::swap((*order)[i], (*order)[j]);
  }
}

// The BCFW dual variables in compact form: for each sentence, the convex combination of labelings
// its block currently holds, kept as per-position label weights (M x N) and transition weights
// (N x N + start N + end N), plus that combination's expected loss.
struct BcfwBlocks {
  int n = 0;
  std::vector<double> unary;       // P x N
  std::vector<double> transition;  // S x (N^2 + 2N)
  std::vector<double> loss;        // S

  int transition_size() const { return n * n + 2 * n; }
  double* unary_of(const TrainingData& data, int s) {
    return unary.data() + static_cast<size_t>(data.sentence_offsets[s]) * n;
  }
  const double* unary_of(const TrainingData& data, int s) const {
    return unary.data() + static_cast<size_t>(data.sentence_offsets[s]) * n;
  }
  double* transition_of(int s) {
    return transition.data() + static_cast<size_t>(s) * transition_size();
  }
  const double* transition_of(int s) const {
    return transition.data() + static_cast<size_t>(s) * transition_size();
  }
};

// Expected score E_mu[F] of a block's combination under the lattice's scores.
double ExpectedScore(const Lattice& lattice, const double* unary, const double* transition) {
  const int m = lattice.size();
  const int n = lattice.num_labels();
  double sum = 0;
  for (int t = 0; t < m; ++t) {
    absl::Span<const double> row = lattice.unary_row(t);
    for (int y = 0; y < n; ++y) {
      if (unary[t * n + y] != 0) sum += unary[t * n + y] * row[y];
    }
  }
  for (int p = 0; p < n; ++p) {
    for (int y = 0; y < n; ++y) {
      if (transition[p * n + y] != 0) sum += transition[p * n + y] * lattice.transition(p, y);
    }
  }
  for (int y = 0; y < n; ++y) {
    if (transition[n * n + y] != 0) sum += transition[n * n + y] * lattice.start(y);
    if (transition[n * n + n + y] != 0) sum += transition[n * n + n + y] * lattice.end(y);
  }
  return sum;
}

// H_i of a loss-augmented maximiser: value - F(y_i) (margin) or the value itself (slack); y_i
// itself attains 0, so clamping at 0 only absorbs rounding.
double HingeOf(const LossAugmentedResult& result, const Lattice& lattice,
               absl::Span<const int> gold, LossScaling scaling) {
  return std::max(
      0.0, scaling == LossScaling::kMargin ? result.value - lattice.Score(gold) : result.value);
}

// The last loss-augmented maximiser found for each sentence (gold before the first), offered as
// the hint of the next decode of that sentence (LossAugmentedDecode): the weights move little
// between two visits, so its objective is close to the new maximum and lets the engine prune most
// cells. Hints change no answer, only its cost. Threads may set hints of different sentences at
// once.
class MaximiserHints {
 public:
  explicit MaximiserHints(const TrainingData& data)
      : data_(data), labels_(data.gold.begin(), data.gold.end()) {}

  absl::Span<const int> Get(int s) const {
    return absl::MakeConstSpan(labels_.data() + data_.sentence_offsets[s], data_.sentence_size(s));
  }
  void Set(int s, absl::Span<const int> labels) {
    std::copy(labels.begin(), labels.end(), labels_.begin() + data_.sentence_offsets[s]);
  }

 private:
  const TrainingData& data_;
  std::vector<int> labels_;  // per position
};

struct SentenceEvaluation {
  double hinge = 0;  // H_i
  double gap = 0;    // BCFW block gap (scaled by n), 0 without blocks
};

// Loss-augmented inference on every sentence at fixed weights, in parallel; results per sentence,
// so sums taken in sentence order do not depend on the thread count. `hints` may be null.
absl::Status EvaluateAll(const TrainingData& data, const BoundLoss& loss, LossScaling scaling,
                         absl::Span<const double> w, int threads, const BcfwBlocks* blocks,
                         MaximiserHints* hints, std::vector<SentenceEvaluation>* out) {
  const int num_sentences = data.num_sentences();
  out->assign(num_sentences, SentenceEvaluation());
  threads = std::max(1, std::min(threads, num_sentences));
  std::vector<absl::Status> status(threads);
  auto run = [&](int k) {
    Lattice lattice;
    LossAugmentedScratchPtr scratch = MakeLossAugmentedScratch(data.loss_max_bytes);
    const int begin = static_cast<int>(int64_t{num_sentences} * k / threads);
    const int end = static_cast<int>(int64_t{num_sentences} * (k + 1) / threads);
    for (int s = begin; s < end; ++s) {
      ScoreTrainingSentence(data, s, w.data(), &lattice);
      absl::Span<const int> gold = GoldOf(data, s);
      absl::StatusOr<LossAugmentedResult> result =
          LossAugmentedDecode(lattice, gold, loss, scaling, scratch.get(),
                              hints ? hints->Get(s) : absl::Span<const int>());
      if (!result.ok()) {
        status[k] = result.status();
        return;
      }
      if (result->fallback) data.fallbacks->Note(s);
      if (hints != nullptr) hints->Set(s, result->labeling.labels);
      SentenceEvaluation& e = (*out)[s];
      e.hinge = HingeOf(*result, lattice, gold, scaling);
      if (blocks != nullptr) {
        e.gap = result->labeling.score + result->loss -
                ExpectedScore(lattice, blocks->unary_of(data, s), blocks->transition_of(s)) -
                blocks->loss[s];
      }
    }
  };
  train_internal::RunOnThreads(threads, run);
  return train_internal::FirstError(status);
}

// w = W / divisor and the running average avg = (A + beta W) / gamma, so that the decay of every
// step and the averaging cost O(1) and an update costs only the features it touches (the
// scaling and averaging tricks of Bottou's SGD code and Xu 2011, "Towards optimal one pass large
// scale learning with averaged stochastic gradient descent").
class ScaledAveragedWeights {
 public:
  explicit ScaledAveragedWeights(int64_t size) : w_(size, 0.0), a_(size, 0.0) {}

  double divisor() const { return divisor_; }
  const std::vector<double>& raw() const { return w_; }

  void Decay(double factor) {  // w *= factor, 0 < factor <= 1
    divisor_ /= factor;
    if (divisor_ > 1e6) Renormalise();
  }
  // w[f] += delta
  void Add(int64_t f, double delta) {
    const double raw = delta * divisor_;
    w_[f] += raw;
    if (averaging_) a_[f] -= beta_ * raw;
  }
  // avg <- avg + rate * (w - avg); the first call (or rate 1) restarts the average at w.
  void Average(double rate) {
    if (!averaging_ || rate >= 1.0) {
      std::fill(a_.begin(), a_.end(), 0.0);
      beta_ = 1.0;
      gamma_ = divisor_;
      averaging_ = true;
      return;
    }
    gamma_ /= 1.0 - rate;
    beta_ += rate * gamma_ / divisor_;
  }
  void Current(std::vector<double>* out) const {
    out->resize(w_.size());
    for (size_t i = 0; i < w_.size(); ++i) (*out)[i] = w_[i] / divisor_;
  }
  void Averaged(std::vector<double>* out) const {
    if (!averaging_) return Current(out);
    out->resize(w_.size());
    for (size_t i = 0; i < w_.size(); ++i) (*out)[i] = (a_[i] + beta_ * w_[i]) / gamma_;
  }

 private:
  void Renormalise() {
    for (double& x : w_) x /= divisor_;
    beta_ *= divisor_;
    divisor_ = 1.0;
  }
  std::vector<double> w_, a_;
  double divisor_ = 1.0;
  double beta_ = 1.0;
  double gamma_ = 1.0;
  bool averaging_ = false;
};

absl::Status CheckSettings(const TrainingData& data, const SsvmSettings& settings,
                           int num_sentences = -1) {
  if ((num_sentences < 0 ? data.num_sentences() : num_sentences) == 0) {
    return absl::InvalidArgumentError("training data: expected sentences, found none");
  }
  if (!(settings.c2 > 0)) {
    return absl::InvalidArgumentError(
        absl::StrCat("option c2: structural SVM training expects c2 > 0, found ", settings.c2));
  }
  if (settings.max_passes < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("option max_iterations: expected >= 1, found ", settings.max_passes));
  }
  return absl::OkStatus();
}

absl::StatusOr<double> Primal(const TrainingData& data, const BoundLoss& loss, LossScaling scaling,
                              double c2, absl::Span<const double> w, int threads,
                              MaximiserHints* hints) {
  std::vector<SentenceEvaluation> eval;
  if (absl::Status s = EvaluateAll(data, loss, scaling, w, threads, nullptr, hints, &eval); !s.ok())
    return s;
  double primal = c2 * SquaredNorm(w);
  for (const SentenceEvaluation& e : eval) primal += e.hinge;
  return primal;
}

}  // namespace

absl::StatusOr<double> SsvmPrimal(const TrainingData& data, const BoundLoss& loss,
                                  LossScaling scaling, double c2, absl::Span<const double> w,
                                  int threads) {
  return Primal(data, loss, scaling, c2, w, threads, nullptr);
}

absl::StatusOr<int> TrainBcfw(const TrainingData& data, const BoundLoss& loss,
                              const SsvmSettings& settings, std::vector<double>* w,
                              const IterationCallback& on_pass) {
  if (absl::Status s = CheckSettings(data, settings); !s.ok()) return s;
  if (settings.scaling != LossScaling::kMargin) {
    return absl::InvalidArgumentError(
        "block-coordinate Frank-Wolfe solves the margin-scaled SSVM only; use the subgradient "
        "trainer for slack scaling");
  }
  const ModelParameters& params = data.parameters;
  const int n = params.num_labels;
  const int num_sentences = data.num_sentences();
  w->assign(params.size(), 0.0);

  // Every block starts at its gold labeling (w_i = 0, loss 0), so w = 0 is the matching primal.
  BcfwBlocks blocks;
  blocks.n = n;
  blocks.unary.assign(static_cast<size_t>(data.num_positions()) * n, 0.0);
  blocks.transition.assign(static_cast<size_t>(num_sentences) * blocks.transition_size(), 0.0);
  blocks.loss.assign(num_sentences, 0.0);
  for (int s = 0; s < num_sentences; ++s) {
    AddLabeling(n, GoldOf(data, s), 1.0, blocks.unary_of(data, s), blocks.transition_of(s));
  }

  const double two_c2 = 2.0 * settings.c2;
  // The iterate w (never decayed, so raw() is w) and its weighted average with weights
  // proportional to the step number (BCFW-wavg, Lacoste-Julien et al. 2013, sec. 4), which is
  // what the dev scorer and the model get.
  ScaledAveragedWeights iterate(params.size());
  int64_t steps = 0;
  std::vector<double> current;
  FeatureAccumulator accumulator(params.size());
  Lattice lattice;
  LossAugmentedScratchPtr scratch = MakeLossAugmentedScratch(data.loss_max_bytes);
  std::vector<double> unary_delta, transition_delta;
  std::vector<int> order(num_sentences);
  std::iota(order.begin(), order.end(), 0);
  std::mt19937_64 rng(settings.seed);
  std::vector<SentenceEvaluation> eval;
  MaximiserHints hints(data);
  w->assign(params.size(), 0.0);
  int pass = 0;
  for (pass = 1; pass <= settings.max_passes; ++pass) {
    const Clock::time_point pass_start = Clock::now();
    double inference_seconds = 0, loss_sum = 0;
    Shuffle(&rng, &order);
    for (int s : order) {
      ScoreTrainingSentence(data, s, iterate.raw().data(), &lattice);
      absl::Span<const int> gold = GoldOf(data, s);
      const Clock::time_point decode_start = Clock::now();
      absl::StatusOr<LossAugmentedResult> result = LossAugmentedDecode(
          lattice, gold, loss, LossScaling::kMargin, scratch.get(), hints.Get(s));
      inference_seconds += Seconds(decode_start);
      if (!result.ok()) return result.status();
      if (result->fallback) data.fallbacks->Note(s);
      hints.Set(s, result->labeling.labels);
      loss_sum += result->loss;
      double* block_unary = blocks.unary_of(data, s);
      double* block_transition = blocks.transition_of(s);
      // n * (block gap) = F(y^) + Delta(y^) - E_mu[F] - E_mu[Delta].
      const double gap = result->labeling.score + result->loss -
                         ExpectedScore(lattice, block_unary, block_transition) - blocks.loss[s];
      if (gap > 0) {
        // d = phi(y^) - E_mu[phi], the direction w moves against.
        const int m = data.sentence_size(s);
        unary_delta.assign(block_unary, block_unary + static_cast<size_t>(m) * n);
        transition_delta.assign(block_transition, block_transition + blocks.transition_size());
        for (double& x : unary_delta) x = -x;
        for (double& x : transition_delta) x = -x;
        AddLabeling(n, result->labeling.labels, 1.0, unary_delta.data(), transition_delta.data());
        const FeatureAccumulator::Sparse& direction =
            accumulator.Build(data, s, unary_delta.data(), transition_delta.data());
        const double norm = direction.squared_norm;
        if (norm > 0) {
          // Optimal step for the quadratic along the Frank-Wolfe direction, clipped to [0, 1].
          const double gamma = std::min(1.0, two_c2 * gap / norm);
          const double w_step = -gamma / two_c2;
          for (const auto& [f, value] : direction.entries) iterate.Add(f, w_step * value);
          for (size_t i = 0; i < unary_delta.size(); ++i) block_unary[i] += gamma * unary_delta[i];
          for (size_t i = 0; i < transition_delta.size(); ++i) {
            block_transition[i] += gamma * transition_delta[i];
          }
          blocks.loss[s] += gamma * (result->loss - blocks.loss[s]);
        }
      }
      // avg_k = k / (k + 2) avg_{k-1} + 2 / (k + 2) w_k (the first step starts the average).
      iterate.Average(2.0 / static_cast<double>(++steps + 1));
    }
    iterate.Current(&current);
    if (absl::Status st = EvaluateAll(data, loss, LossScaling::kMargin, current, settings.threads,
                                      &blocks, &hints, &eval);
        !st.ok()) {
      return st;
    }
    iterate.Averaged(w);
    double primal = settings.c2 * SquaredNorm(current), gap = 0;
    for (const SentenceEvaluation& e : eval) {
      primal += e.hinge;
      gap += e.gap;
    }
    // The reported objective is that of the averaged weights the dev scorer and the model get
    // (one more decoding pass, as SGD's); the gap test stays on the iterate it bounds.
    absl::StatusOr<double> averaged_primal =
        Primal(data, loss, LossScaling::kMargin, settings.c2, *w, settings.threads, nullptr);
    if (!averaged_primal.ok()) return averaged_primal.status();
    // dual = primal - gap bounds the optimum from below, so the averaged weights' gap is
    // averaged_primal - dual: objective - gap is the same dual value either way.
    const double averaged_gap = *averaged_primal - (primal - gap);
    TrainProgress report;
    report.iteration = pass;
    report.objective = *averaged_primal;
    report.duality_gap = averaged_gap;
    report.mean_loss = loss_sum / num_sentences;
    report.inference_seconds = inference_seconds;
    report.pass_seconds = Seconds(pass_start);
    report.warnings = data.TakeFallbackWarnings();
    const bool keep_going = !on_pass || on_pass(report, *w);
    if (!keep_going || gap <= settings.duality_gap * primal ||
        averaged_gap <= settings.duality_gap * *averaged_primal) {
      break;
    }
  }
  return std::min(pass, settings.max_passes);
}

namespace {

// Loss-augmented maximisers of a mini-batch at the same weights, decoded in parallel (one
// result per sentence, so the updates applied afterwards do not depend on the thread count).
class BatchDecoder {
 public:
  struct Result {
    std::vector<int> labels;
    double loss = 0;
    double hinge = 0;  // H_i at the batch's weights
  };
  BatchDecoder(const TrainingData& data, const BoundLoss& loss, LossScaling scaling, int threads)
      : data_(data), loss_(loss), scaling_(scaling), workers_(std::max(1, threads)), hints_(data) {
    for (Worker& w : workers_) w.scratch = MakeLossAugmentedScratch(data.loss_max_bytes);
  }

  // Decodes `batch` at weights raw / divisor; adds the wall time spent to *seconds.
  absl::Status Decode(absl::Span<const int> batch, const double* raw, double divisor,
                      double* seconds) {
    const Clock::time_point start = Clock::now();
    results_.resize(batch.size());
    const int threads = std::min<int>(workers_.size(), batch.size());
    std::vector<absl::Status> status(threads);
    auto run = [&](int k) {
      Worker& worker = workers_[k];
      for (size_t i = k; i < batch.size(); i += threads) {
        const int s = batch[i];
        ScoreTrainingSentence(data_, s, raw, &worker.lattice);
        if (divisor != 1.0) ScaleLattice(1.0 / divisor, &worker.lattice);
        absl::Span<const int> gold = GoldOf(data_, s);
        absl::StatusOr<LossAugmentedResult> result = LossAugmentedDecode(
            worker.lattice, gold, loss_, scaling_, worker.scratch.get(), hints_.Get(s));
        if (!result.ok()) {
          status[k] = result.status();
          return;
        }
        if (result->fallback) data_.fallbacks->Note(s);
        hints_.Set(s, result->labeling.labels);
        Result& r = results_[i];
        r.labels = std::move(result->labeling.labels);
        r.loss = result->loss;
        r.hinge = HingeOf(*result, worker.lattice, gold, scaling_);
      }
    };
    train_internal::RunOnThreads(threads, run);
    *seconds += Seconds(start);
    return train_internal::FirstError(status);
  }
  const std::vector<Result>& results() const { return results_; }
  MaximiserHints* hints() { return &hints_; }

 private:
  struct Worker {
    Lattice lattice;
    LossAugmentedScratchPtr scratch;
  };
  const TrainingData& data_;
  const BoundLoss& loss_;
  LossScaling scaling_;
  std::vector<Worker> workers_;
  std::vector<Result> results_;
  MaximiserHints hints_;  // of the weights last decoded with
};

// Sentences decoded together at the same weights; fixed (not tied to the thread count) so the
// result is the same on every machine.
constexpr int kBatchSize = 8;

// What SGD needs of one sentence's maximiser: its loss, H_i and, when H_i > 0 and it is not the
// gold labeling, the sparse subgradient (phi(y^) - phi(y_i)), times Delta under slack scaling.
struct StepInput {
  double loss = 0;
  double hinge = 0;
  std::vector<std::pair<int64_t, double>> entries;
};

// Sentences by global index: over P ranks, sentence g is rank g mod P's local sentence g / P
// (TrainingData keeps i = r mod P), so every rank can follow the single-process order.
class GlobalBatches {
 public:
  GlobalBatches(const TrainingData& data, LossScaling scaling, BatchDecoder* decoder)
      : data_(data), scaling_(scaling), decoder_(decoder), accumulator_(data.parameters.size()) {
    ranks_ = IsDistributed(data.ranks) ? data.ranks : nullptr;
    int64_t total = data.num_sentences();
    if (ranks_ != nullptr) SumOverRanks(ranks_, absl::MakeSpan(&total, 1));
    total_ = static_cast<int>(total);
  }
  int total() const { return total_; }

  // Decodes global `batch` at weights raw / divisor (each rank its own sentences) and returns
  // every sentence's StepInput in batch order on every rank.
  absl::StatusOr<const std::vector<StepInput>*> Decode(absl::Span<const int> batch,
                                                       const double* raw, double divisor,
                                                       double* seconds) {
    const int p = ranks_ == nullptr ? 1 : ranks_->size();
    const int rank = ranks_ == nullptr ? 0 : ranks_->rank();
    mine_.clear();
    for (int g : batch) {
      if (g % p == rank) mine_.push_back(g / p);
    }
    if (absl::Status st = decoder_->Decode(mine_, raw, divisor, seconds); !st.ok()) return st;
    inputs_.assign(batch.size(), StepInput());
    const int n = data_.num_labels();
    std::string bytes;
    size_t k = 0;
    for (size_t i = 0; i < batch.size(); ++i) {
      if (batch[i] % p != rank) continue;
      const int s = mine_[k];
      const BatchDecoder::Result& r = decoder_->results()[k++];
      StepInput& in = inputs_[i];
      in.loss = r.loss;
      in.hinge = r.hinge;
      absl::Span<const int> gold = GoldOf(data_, s);
      if (r.hinge > 0 && !std::equal(gold.begin(), gold.end(), r.labels.begin(), r.labels.end())) {
        const double scale = scaling_ == LossScaling::kSlack ? r.loss : 1.0;
        const int m = data_.sentence_size(s);
        unary_.assign(static_cast<size_t>(m) * n, 0.0);
        transition_.assign(static_cast<size_t>(n) * n + 2 * n, 0.0);
        AddLabeling(n, r.labels, scale, unary_.data(), transition_.data());
        AddLabeling(n, gold, -scale, unary_.data(), transition_.data());
        in.entries = accumulator_.Build(data_, s, unary_.data(), transition_.data()).entries;
      }
      if (ranks_ != nullptr) {
        const uint64_t header[] = {i, in.entries.size()};
        bytes.append(reinterpret_cast<const char*>(header), sizeof(header));
        bytes.append(reinterpret_cast<const char*>(&in.loss), sizeof(double));
        bytes.append(reinterpret_cast<const char*>(&in.hinge), sizeof(double));
        bytes.append(reinterpret_cast<const char*>(in.entries.data()),
                     in.entries.size() * sizeof(in.entries[0]));
      }
    }
    if (ranks_ != nullptr) {
      // The exact bytes of every rank's results, so each rank applies the same numbers.
      for (const std::string& part : ranks_->AllGather(bytes)) {
        size_t at = 0;
        while (at < part.size()) {
          uint64_t header[2];
          std::memcpy(header, part.data() + at, sizeof(header));
          at += sizeof(header);
          StepInput& in = inputs_[header[0]];
          std::memcpy(&in.loss, part.data() + at, sizeof(double));
          std::memcpy(&in.hinge, part.data() + at + sizeof(double), sizeof(double));
          at += 2 * sizeof(double);
          in.entries.resize(header[1]);
          // An empty update has no buffer: memcpy must not see its null pointer (UBSan).
          if (header[1] > 0) {
            std::memcpy(static_cast<void*>(in.entries.data()), part.data() + at,
                        header[1] * sizeof(in.entries[0]));
          }
          at += header[1] * sizeof(in.entries[0]);
        }
      }
    }
    return &inputs_;
  }

  // The sum of `per_sentence` (this rank's sentences, local order) over every rank's sentences in
  // global order, as one process adds them.
  double SumInOrder(const std::vector<double>& per_sentence, double start) {
    if (ranks_ == nullptr) {
      for (double x : per_sentence) start += x;
      return start;
    }
    std::vector<std::string> parts = ranks_->AllGather(std::string_view(
        reinterpret_cast<const char*>(per_sentence.data()), per_sentence.size() * sizeof(double)));
    const int p = ranks_->size();
    for (int g = 0; g < total_; ++g) {
      double x;
      std::memcpy(&x, parts[g % p].data() + static_cast<size_t>(g / p) * sizeof(double),
                  sizeof(double));
      start += x;
    }
    return start;
  }

 private:
  const TrainingData& data_;
  LossScaling scaling_;
  BatchDecoder* decoder_;
  Communicator* ranks_ = nullptr;
  int total_ = 0;
  FeatureAccumulator accumulator_;
  std::vector<double> unary_, transition_;
  std::vector<int> mine_;
  std::vector<StepInput> inputs_;
};

// One pass of SGD over `order` from step `*step`: decay, then the subgradient of H_i
// ((phi(y^) - phi(y_i)), times Delta(y^) under slack scaling) for each sentence. Averaging (from
// `average_from` on) follows each step. Adds the losses of the maximisers to *loss_sum.
// The error of a run whose step sizes made the weights blow up (a --learning-rate far too
// large): said as such, with the cure, rather than as whatever the decoder meets next.
absl::Status Diverged(double eta0, double lambda, const char* what) {
  return absl::InvalidArgumentError(absl::StrCat(
      "training diverged (", what, ") with learning rate ", eta0,
      "; try a smaller --learning-rate (below ", 1.0 / lambda,
      ", the inverse of the per-sentence regularisation 2 c2 / sentences) or 0 to calibrate it"));
}

bool AllFinite(const std::vector<double>& w) {
  return std::all_of(w.begin(), w.end(), [](double x) { return std::isfinite(x); });
}

absl::Status SubgradientPass(const std::vector<int>& order, double eta0, double lambda,
                             int64_t average_from, ScaledAveragedWeights* weights,
                             GlobalBatches* batches, int64_t* step, double* inference_seconds,
                             double* loss_sum) {
  for (size_t begin = 0; begin < order.size(); begin += kBatchSize) {
    const size_t end = std::min(order.size(), begin + kBatchSize);
    absl::Span<const int> batch(order.data() + begin, end - begin);
    absl::StatusOr<const std::vector<StepInput>*> inputs =
        batches->Decode(batch, weights->raw().data(), weights->divisor(), inference_seconds);
    if (!inputs.ok()) {
      if (!std::isfinite(weights->divisor()) || !AllFinite(weights->raw())) {
        return Diverged(eta0, lambda, "the weights are no longer finite");
      }
      return inputs.status();
    }
    for (const StepInput& in : **inputs) {
      const double eta = eta0 / (1.0 + lambda * eta0 * static_cast<double>(*step));
      // A decay factor of 0 or less (eta * lambda >= 1) zeroes or flips the weights each step.
      if (!(eta * lambda < 1.0))
        return Diverged(eta0, lambda, "the step size times the regularisation is at least 1");
      weights->Decay(1.0 - eta * lambda);
      *loss_sum += in.loss;
      for (const auto& [f, value] : in.entries) weights->Add(f, -eta * value);
      ++*step;
      if (*step >= average_from) {
        weights->Average(1.0 / static_cast<double>(*step - average_from + 1));
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<int> TrainSubgradient(const TrainingData& data, const BoundLoss& loss,
                                     const SsvmSettings& settings, std::vector<double>* w,
                                     const IterationCallback& on_pass) {
  BatchDecoder decoder(data, loss, settings.scaling, settings.threads);
  // Over MPI ranks every rank follows the single-process order of global sentence indices,
  // decodes its own sentences of each batch and applies every rank's updates in that order, so
  // the model is the single-process one byte for byte.
  GlobalBatches batches(data, settings.scaling, &decoder);
  const int num_sentences = batches.total();
  if (absl::Status s = CheckSettings(data, settings, num_sentences); !s.ok()) return s;
  const ModelParameters& params = data.parameters;
  // Per-sentence objective (lambda / 2) |w|^2 + H_i sums to c2 |w|^2 + sum_i H_i.
  const double lambda = 2.0 * settings.c2 / num_sentences;
  std::vector<int> order(num_sentences);
  std::iota(order.begin(), order.end(), 0);
  std::mt19937_64 rng(settings.seed);
  constexpr int64_t kNever = INT64_MAX;

  // eta_t = eta_0 / (1 + lambda eta_0 t); eta_0 calibrated (as CRFsuite's l2sgd does) by one
  // pass over a sample from w = 0 per candidate, keeping the one with the lowest sample objective
  // (regulariser share |sample| / n plus the sample's hinges at the end of the pass).
  double eta0 = settings.learning_rate;
  if (!(eta0 > 0)) {
    std::vector<int> sample = order;
    Shuffle(&rng, &sample);
    sample.resize(std::min<size_t>(sample.size(), 500));
    double best = 0;
    for (double candidate : {10.0, 1.0, 0.1, 0.01, 0.001}) {
      if (candidate * lambda >= 1.0) continue;
      ScaledAveragedWeights trial(params.size());
      int64_t step = 0;
      double unused_seconds = 0, unused_loss = 0;
      if (absl::Status st = SubgradientPass(sample, candidate, lambda, kNever, &trial, &batches,
                                            &step, &unused_seconds, &unused_loss);
          !st.ok()) {
        return st;
      }
      std::vector<double> trial_w;
      trial.Current(&trial_w);
      double value = settings.c2 * SquaredNorm(trial_w) * sample.size() / num_sentences;
      for (size_t begin = 0; begin < sample.size(); begin += kBatchSize) {
        absl::Span<const int> batch(sample.data() + begin,
                                    std::min<size_t>(kBatchSize, sample.size() - begin));
        absl::StatusOr<const std::vector<StepInput>*> inputs =
            batches.Decode(batch, trial_w.data(), 1.0, &unused_seconds);
        if (!inputs.ok()) return inputs.status();
        for (const StepInput& in : **inputs) value += in.hinge;
      }
      if (eta0 <= 0 || value < best) {
        best = value;
        eta0 = candidate;
      }
    }
    if (!(eta0 > 0)) eta0 = 0.5 / lambda;
  }

  ScaledAveragedWeights weights(params.size());
  int64_t step = 0;
  int pass = 0;
  for (pass = 1; pass <= settings.max_passes; ++pass) {
    const Clock::time_point pass_start = Clock::now();
    double inference_seconds = 0, loss_sum = 0;
    Shuffle(&rng, &order);
    // Averaging starts with the second pass (the first pass's iterates are far from the optimum).
    if (absl::Status st = SubgradientPass(order, eta0, lambda, num_sentences, &weights, &batches,
                                          &step, &inference_seconds, &loss_sum);
        !st.ok()) {
      return st;
    }
    weights.Averaged(w);
    if (!AllFinite(*w)) return Diverged(eta0, lambda, "the weights are no longer finite");
    TrainProgress report;
    report.iteration = pass;
    std::vector<SentenceEvaluation> eval;
    if (absl::Status st = EvaluateAll(data, loss, settings.scaling, *w, settings.threads, nullptr,
                                      decoder.hints(), &eval);
        !st.ok()) {
      return st;
    }
    std::vector<double> hinges;
    for (const SentenceEvaluation& e : eval) hinges.push_back(e.hinge);
    report.objective = batches.SumInOrder(hinges, settings.c2 * SquaredNorm(*w));
    report.mean_loss = loss_sum / num_sentences;
    report.inference_seconds = inference_seconds;
    report.pass_seconds = Seconds(pass_start);
    report.warnings = data.TakeFallbackWarnings();
    if (on_pass && !on_pass(report, *w)) break;
  }
  return std::min(pass, settings.max_passes);
}

namespace {

// BCFW (ssvm-margin) or SGD (ssvm-margin, ssvm-slack) behind the Trainer interface.
class SsvmTrainer : public Trainer {
 public:
  SsvmTrainer(const TrainOptions& options, std::shared_ptr<const BoundLoss> loss, int threads)
      : bcfw_(options.algorithm == Algorithm::kBcfw), loss_(std::move(loss)) {
    settings_.scaling = options.objective == chaintag::Objective::kSsvmMargin ? LossScaling::kMargin
                                                                              : LossScaling::kSlack;
    settings_.c2 = options.c2;
    settings_.max_passes = options.max_iterations;
    settings_.duality_gap = options.duality_gap;
    settings_.learning_rate = options.learning_rate;
    settings_.seed = options.seed;
    settings_.threads = threads;
  }

  absl::StatusOr<TrainerRun> Run(TrainingData* data, std::vector<double>* weights,
                                 const IterationCallback& on_iteration) override {
    bool stopped = false;
    const IterationCallback on_pass = [&](const TrainProgress& p, absl::Span<const double> w) {
      stopped = on_iteration && !on_iteration(p, w);
      return !stopped;
    };
    absl::StatusOr<int> passes = bcfw_
                                     ? TrainBcfw(*data, *loss_, settings_, weights, on_pass)
                                     : TrainSubgradient(*data, *loss_, settings_, weights, on_pass);
    if (!passes.ok()) return passes.status();
    return TrainerRun{*passes, stopped                          ? "early stopping"
                               : *passes < settings_.max_passes ? "duality gap below the tolerance"
                                                                : "maximum passes"};
  }

 private:
  bool bcfw_;
  std::shared_ptr<const BoundLoss> loss_;
  SsvmSettings settings_;
};

}  // namespace

std::unique_ptr<Trainer> MakeSsvmTrainer(const TrainOptions& resolved,
                                         std::shared_ptr<const BoundLoss> loss, int threads) {
  return std::make_unique<SsvmTrainer>(resolved, std::move(loss), threads);
}

}  // namespace train_internal
}  // namespace chaintag
