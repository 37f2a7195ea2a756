// Tagger: a model's family (family.h) featurizes with the model's dictionary, scores and decodes.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "chaintag/model.h"
#include "model/family.h"
#include "model/parameters.h"
#include "neural/encoder.h"

namespace chaintag {
namespace {

// "file:line" of the sentence's first token, for error messages.
std::string Where(const Sentence& sentence) { return Location(sentence); }

}  // namespace

Tagger::Tagger(const Model& model) : model_(&model), family_(MakeFamily(model)) {}
Tagger::~Tagger() = default;
Tagger::Tagger(Tagger&&) noexcept = default;
Tagger& Tagger::operator=(Tagger&&) noexcept = default;

absl::Status Tagger::BuildLattice(const Sentence& sentence, Lattice* lattice) {
  return family_->BuildLattice(sentence, lattice);
}

absl::StatusOr<Labeling> Tagger::Tag(const Sentence& sentence) { return family_->Best(sentence); }

absl::StatusOr<Tagger::Analysis> Tagger::Analyze(const Sentence& sentence) {
  return family_->Analyze(sentence);
}

// The model's dictionary never changes, so the featurizer may remember ids per word.
Family::Family(const Model& model) : model_(&model), featurizer_(model.spec()) {
  featurizer_.EnableValueCache(&model.attributes());
}

Family::~Family() = default;

absl::Status Family::BuildLattice(const Sentence& sentence, Lattice* lattice) {
  const int needed = model_->spec().num_input_columns();
  if (sentence.num_columns() < needed) {
    return absl::InvalidArgumentError(absl::StrCat(
        Where(sentence), ": expected at least ", needed,
        " input column(s) (the model's templates read them), found ", sentence.num_columns()));
  }
  for (int c = 0; c < sentence.num_columns(); ++c) {
    if (static_cast<int>(sentence.columns[c].size()) != sentence.size()) {
      return absl::InvalidArgumentError(absl::StrCat(Where(sentence), ": expected ",
                                                     sentence.size(), " entries in column ", c + 1,
                                                     ", found ", sentence.columns[c].size()));
    }
  }
  // CheckColumns's message names the file and line itself.
  if (absl::Status status = featurizer_.CheckColumns(sentence); !status.ok()) return status;
  featurizer_.Featurize(sentence, model_->attributes(), &featurized_);
  ScoreFeaturized(lattice);
  if (model_->encoder() != nullptr) AddEmissions(sentence, lattice);
  return absl::OkStatus();
}

void Family::AddEmissions(const Sentence& sentence, Lattice* lattice) const {
  const neural::Encoder<float>& encoder = *model_->encoder();
  if (sentence.size() == 0) return;
  neural::Mat<float> emissions;
  encoder.Forward(encoder.Encode(sentence.columns[0]), nullptr, nullptr, &emissions);
  const int n = model_->num_labels();
  for (int t = 0; t < sentence.size(); ++t) {
    double* row = lattice->unary_row(t).data();
    for (int y = 0; y < n; ++y) row[y] += emissions(y, t);
  }
}

void Family::ScoreFeaturized(Lattice* lattice) const {
  const Model::TaggingScores& scores = model_->tagging_scores();
  const int n = model_->num_states();
  const int m = featurized_.size();
  lattice->Reset(m, n);
  const int32_t num_attr = static_cast<int32_t>(scores.ranges.size() / 2);
  const int32_t* ranges = scores.ranges.data();
  const Model::TaggingScores::Entry* entries = scores.entries.data();
  const int32_t* dense_of = scores.dense_of.data();
  const double* dense = scores.dense.data();
  const int32_t* ids = featurized_.attributes.data();
  const int32_t* offsets = featurized_.offsets.data();
  const int32_t total = m == 0 ? 0 : offsets[m];
  if (featurized_.weighted()) {
    // Real-valued attributes (attribute input): value times weight, in Score's order.
    const float* values = featurized_.values.data();
    for (int t = 0; t < m; ++t) {
      double* row = lattice->unary_row(t).data();
      for (int32_t i = offsets[t]; i < offsets[t + 1]; ++i) {
        const int32_t a = ids[i];
        if (a < 0 || a >= num_attr) continue;
        const double v = values[i];
        const int32_t end = ranges[2 * a + 1];
        for (int32_t f = ranges[2 * a]; f < end; ++f)
          row[entries[f].label] += v * entries[f].weight;
      }
    }
  } else {
    // Random attribute ids miss the cache; prefetching ranges and dense_of two steps and entries
    // one step ahead keeps several misses in flight (the additions stay in Score's order, so sums
    // are identical).
    constexpr int32_t kDistance = 8;
    auto valid = [num_attr](int32_t a) { return a >= 0 && a < num_attr; };
    for (int32_t i = 0; i < std::min(total, 2 * kDistance); ++i) {
      if (valid(ids[i])) {
        __builtin_prefetch(ranges + 2 * ids[i]);
        __builtin_prefetch(dense_of + ids[i]);
      }
    }
    for (int32_t i = 0; i < std::min(total, kDistance); ++i) {
      if (valid(ids[i])) __builtin_prefetch(entries + ranges[2 * ids[i]]);
    }
    int32_t i = 0;
    for (int t = 0; t < m; ++t) {
      double* row = lattice->unary_row(t).data();
      for (const int32_t row_end = offsets[t + 1]; i < row_end; ++i) {
        if (i + 2 * kDistance < total && valid(ids[i + 2 * kDistance])) {
          __builtin_prefetch(ranges + 2 * ids[i + 2 * kDistance]);
          __builtin_prefetch(dense_of + ids[i + 2 * kDistance]);
        }
        if (i + kDistance < total && valid(ids[i + kDistance])) {
          __builtin_prefetch(entries + ranges[2 * ids[i + kDistance]]);
        }
        const int32_t a = ids[i];
        // Ids outside the dictionary cannot come from Featurize; skipping them keeps this
        // memory-safe.
        if (!valid(a)) continue;
        if (const int32_t d = dense_of[a]; d >= 0) {
          const double* add = dense + static_cast<size_t>(d) * n;
          for (int y = 0; y < n; ++y) row[y] += add[y];
          continue;
        }
        const int32_t end = ranges[2 * a + 1];
        for (int32_t f = ranges[2 * a]; f < end; ++f) row[entries[f].label] += entries[f].weight;
      }
    }
  }
  if (n > 0) {
    std::memcpy(&lattice->transition(0, 0), scores.transition.data(), sizeof(double) * n * n);
    std::memcpy(&lattice->start(0), scores.start.data(), sizeof(double) * n);
    std::memcpy(&lattice->end(0), scores.end.data(), sizeof(double) * n);
    // The model's trigram scores are shared, not copied: (N+1) N^2 doubles per sentence.
    if (!scores.trigram.empty()) {
      lattice->ShareSecondOrder({scores.trigram.data(), scores.trigram_bounds.data(),
                                 scores.trigram_exp.data(), scores.trigram_exp_shift});
    }
  }
}

}  // namespace chaintag
