#include "train/ldcrf_objective.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "decode/latent.h"
#include "model/parameters.h"
#include "option_error.h"
#include "string_view_compat.h"
#include "train/distributed.h"
#include "train/parallel.h"

namespace chaintag {
namespace train_internal {
namespace {

constexpr double kFixedScale = static_cast<double>(int64_t{1} << CrfObjective::kFixedBits);
constexpr double kInvFixedScale = 1.0 / kFixedScale;
inline int64_t ToFixed(double p) { return static_cast<int64_t>(p * kFixedScale + 0.5); }
inline int64_t ToFixedSigned(double x) { return std::llround(x * kFixedScale); }

absl::Status BadSpec(std::string_view text, std::string_view why) {
  return absl::InvalidArgumentError(absl::StrCat("option latent: ", ToAbsl(why),
                                                 " (expected K or LABEL=K,...), found \"",
                                                 ToAbsl(text), "\""));
}

absl::StatusOr<int> ParseCount(std::string_view text, std::string_view entry) {
  int k = 0;
  if (!absl::SimpleAtoi(ToAbsl(entry), &k) || k < 1 || k > LatentLayout::kMaxStatesPerLabel) {
    return BadSpec(text,
                   absl::StrCat("hidden states per label must be 1 to ",
                                LatentLayout::kMaxStatesPerLabel, " in \"", ToAbsl(entry), "\""));
  }
  return k;
}

// SplitMix64 (Steele, Lea and Flood, OOPSLA 2014): one independent draw per weight index.
uint64_t SplitMix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

}  // namespace

namespace {

// With `labels` null only the form and the counts are checked (before the data is read).
absl::StatusOr<std::vector<int>> ParseLatentCounts(std::string_view text,
                                                   const std::vector<std::string>* labels) {
  int fallback = 1;
  std::vector<int> counts(labels == nullptr ? 0 : labels->size(), 0);
  if (text.empty()) return BadSpec(text, "empty");
  if (text.find('=') == std::string_view::npos && text.find(',') == std::string_view::npos) {
    absl::StatusOr<int> k = ParseCount(text, text);
    if (!k.ok()) return k.status();
    fallback = *k;
  } else {
    for (absl::string_view entry : absl::StrSplit(ToAbsl(text), ',')) {
      const size_t eq = entry.find('=');
      if (eq == absl::string_view::npos) {
        absl::StatusOr<int> k = ParseCount(text, std::string_view(entry.data(), entry.size()));
        if (!k.ok()) return k.status();
        fallback = *k;
        continue;
      }
      const std::string label(entry.substr(0, eq));
      const absl::string_view value = entry.substr(eq + 1);
      absl::StatusOr<int> k = ParseCount(text, std::string_view(value.data(), value.size()));
      if (!k.ok()) return k.status();
      if (label.empty())
        return BadSpec(text, absl::StrCat("no label before '=' in \"", entry, "\""));
      if (labels == nullptr) continue;
      const auto it = std::find(labels->begin(), labels->end(), label);
      if (it == labels->end()) {
        return OptionError(std::string(
            BadSpec(text, absl::StrCat("label \"", label, "\" does not occur in the training data"))
                .message()));
      }
      counts[it - labels->begin()] = *k;
    }
  }
  for (int& k : counts) {
    if (k == 0) k = fallback;
  }
  return counts;
}

}  // namespace

absl::Status CheckLatentSpec(std::string_view text) {
  return ParseLatentCounts(text, nullptr).status();
}

absl::StatusOr<LatentLayout> ParseLatentSpec(std::string_view text,
                                             const std::vector<std::string>& labels) {
  absl::StatusOr<std::vector<int>> counts = ParseLatentCounts(text, &labels);
  if (!counts.ok()) return counts.status();
  return LatentLayout::FromCounts(*counts);
}

void ExpandToHiddenStates(const LatentLayout& layout, TrainingData* data) {
  ModelParameters& p = data->parameters;
  const int h = layout.num_states();
  ModelParameters hidden;
  hidden.num_labels = h;
  hidden.attribute_offsets.reserve(p.attribute_offsets.size());
  hidden.attribute_offsets.push_back(0);
  for (int a = 0; a < p.num_attributes(); ++a) {
    // States of a label are contiguous and labels sorted, so each attribute's run stays sorted.
    for (int32_t f = p.attribute_offsets[a]; f < p.attribute_offsets[a + 1]; ++f) {
      const int y = p.feature_labels[f];
      for (int s = layout.first_state(y); s < layout.end_state(y); ++s) {
        hidden.feature_labels.push_back(s);
      }
    }
    hidden.attribute_offsets.push_back(static_cast<int32_t>(hidden.feature_labels.size()));
  }
  hidden.weights.assign(hidden.size(), 0.0);
  p = std::move(hidden);
  data->mask = ExpandTransitionMask(data->mask, layout);
  std::vector<int32_t>().swap(data->empirical);
  std::vector<double>().swap(data->weighted_empirical);
}

void RandomInitialWeights(uint64_t seed, double scale, std::vector<double>* w) {
  const uint64_t base = SplitMix64(seed);
  for (size_t i = 0; i < w->size(); ++i) {
    const double u = static_cast<double>(SplitMix64(base + i) >> 11) * 0x1.0p-53;  // [0, 1)
    (*w)[i] = (2.0 * u - 1.0) * scale;
  }
}

LdcrfObjective::LdcrfObjective(const TrainingData& data, const LatentLayout& layout, double c2,
                               int threads)
    : data_(data), layout_(layout), c2_(c2) {
  threads = std::max(1, std::min(threads, std::max(1, data.num_sentences())));
  workers_.resize(threads);
  for (Worker& worker : workers_) worker.gradient.assign(data.parameters.size(), 0);
  loss_.assign(data.num_sentences(), 0.0);
}

void LdcrfObjective::Accumulate(int s, int sign, const ScaledForwardBackward& kernel,
                                Worker* worker) {
  const ModelParameters& params = data_.parameters;
  const int h = params.num_labels;
  const int m = data_.sentence_size(s);
  const int64_t first = data_.sentence_offsets[s];
  int64_t* g = worker->gradient.data();
  const double* marginals = kernel.unary_marginals();
  worker->fixed.resize(h);
  int64_t* q = worker->fixed.data();
  const int32_t* labels = params.feature_labels.data();
  for (int t = 0; t < m; ++t) {
    const double* row = marginals + static_cast<size_t>(t) * h;
    for (int y = 0; y < h; ++y) q[y] = sign * ToFixed(row[y]);
    if (data_.weighted()) {
      const int64_t p = first + t;
      for (int64_t k = data_.position_offsets[p]; k < data_.position_offsets[p + 1]; ++k) {
        const int32_t a = data_.position_attributes[k];
        const double v = sign * data_.position_values[k];
        for (int32_t f = params.attribute_offsets[a]; f < params.attribute_offsets[a + 1]; ++f) {
          g[f] += ToFixedSigned(v * row[labels[f]]);
        }
      }
    } else {
      for (const int32_t a : data_.attributes_at(first + t)) {
        for (int32_t f = params.attribute_offsets[a]; f < params.attribute_offsets[a + 1]; ++f) {
          g[f] += q[labels[f]];
        }
      }
    }
    if (t == 0) {
      for (int y = 0; y < h; ++y) g[params.start_offset() + y] += q[y];
    }
    if (t == m - 1) {
      for (int y = 0; y < h; ++y) g[params.end_offset() + y] += q[y];
    }
  }
  const double* trans = kernel.transition_marginals();
  int64_t* gt = g + params.transition_offset();
  for (int i = 0; i < h * h; ++i) gt[i] += sign * ToFixed(trans[i]);
}

void LdcrfObjective::ProcessSentence(int s, const double* w, const ExpTables& tables,
                                     Worker* worker) {
  const ModelParameters& params = data_.parameters;
  const int h = params.num_labels;
  const int m = data_.sentence_size(s);
  if (m == 0) return;
  const int64_t first = data_.sentence_offsets[s];
  const size_t cells = static_cast<size_t>(m) * h;
  worker->unary.assign(cells, 0.0);
  double* unary = worker->unary.data();
  const int32_t* labels = params.feature_labels.data();
  for (int t = 0; t < m; ++t) {
    double* row = unary + static_cast<size_t>(t) * h;
    const int64_t p = first + t;
    for (int64_t k = data_.position_offsets[p]; k < data_.position_offsets[p + 1]; ++k) {
      const int32_t a = data_.position_attributes[k];
      const double v = data_.value(k);
      for (int32_t f = params.attribute_offsets[a]; f < params.attribute_offsets[a + 1]; ++f) {
        row[labels[f]] += v * w[f];
      }
    }
  }
  // The gold lattice: only the hidden states of each gold label stay.
  worker->gold_unary = worker->unary;
  for (int t = 0; t < m; ++t) {
    const int y = data_.gold[first + t];
    double* row = worker->gold_unary.data() + static_cast<size_t>(t) * h;
    for (int k = 0; k < h; ++k) {
      if (layout_.label_of(k) != y) row[k] = kNegInf;
    }
  }
  const double log_z = worker->kernel.Run(m, tables, unary);
  Accumulate(s, +1, worker->kernel, worker);
  const double log_z_gold = worker->kernel.Run(m, tables, worker->gold_unary.data());
  Accumulate(s, -1, worker->kernel, worker);
  loss_[s] = log_z - log_z_gold;
}

double LdcrfObjective::Evaluate(absl::Span<const double> w, absl::Span<double> gradient) {
  const ModelParameters& params = data_.parameters;
  const int h = params.num_labels;
  ExpTables tables;
  const std::vector<double> chain = MaskedChainScores(params, w, data_.mask);
  const int64_t base = params.transition_offset();
  tables.Build(h, chain.data(), chain.data() + (params.start_offset() - base),
               chain.data() + (params.end_offset() - base));
  const int num_sentences = data_.num_sentences();
  constexpr int kChunk = 16;
  std::atomic<int> next{0};
  auto run = [&](Worker* worker) {
    std::fill(worker->gradient.begin(), worker->gradient.end(), 0);
    for (;;) {
      const int begin = next.fetch_add(kChunk);
      if (begin >= num_sentences) break;
      const int end = std::min(num_sentences, begin + kChunk);
      for (int s = begin; s < end; ++s) ProcessSentence(s, w.data(), tables, worker);
    }
  };
  RunOnThreads(static_cast<int>(workers_.size()), [&](int k) { run(&workers_[k]); });

  // Exact sums: the same totals for any split of the sentences over ranks and threads.
  const double objective = ExactTotal(loss_, data_.ranks);
  const int64_t* over_ranks = GradientOverRanks(data_.ranks, workers_, &over_ranks_);
  double norm = 0;
  const int64_t size = params.size();
  for (int64_t i = 0; i < size; ++i) {
    // Integer sums are exact, so the order the workers are added in does not matter.
    int64_t sum = 0;
    if (over_ranks != nullptr) {
      sum = over_ranks[i];
    } else {
      for (const Worker& worker : workers_) sum += worker.gradient[i];
    }
    norm += w[i] * w[i];
    gradient[i] = static_cast<double>(sum) * kInvFixedScale + 2.0 * c2_ * w[i];
  }
  return objective + c2_ * norm;
}

}  // namespace train_internal
}  // namespace chaintag
