// Tagger: featurize with the model's dictionary, score, mask, decode.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "chaintag/model.h"
#include "neural/encoder.h"

namespace chaintag {
namespace {

// "file:line" of the sentence's first token, for error messages.
std::string Where(const Sentence& sentence) { return Location(sentence); }

}  // namespace

// The model's dictionary never changes, so the featurizer may remember ids per word.
Tagger::Tagger(const Model& model) : model_(&model), featurizer_(model.spec()) {
  featurizer_.EnableValueCache(&model.attributes());
}

absl::Status Tagger::BuildLattice(const Sentence& sentence, Lattice* lattice) {
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

void Tagger::AddEmissions(const Sentence& sentence, Lattice* lattice) const {
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

void Tagger::ScoreFeaturized(Lattice* lattice) const {
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

absl::StatusOr<Labeling> Tagger::Tag(const Sentence& sentence) {
  if (model_->family() == ModelFamily::kLmsbn) {
    absl::StatusOr<BranchAndBoundResult> found = SearchLeftToRight(sentence, {});
    if (!found.ok()) return found.status();
    Labeling best;
    best.labels = std::move(found->solutions[0].labels);
    best.score = found->solutions[0].score;
    return best;
  }
  if (absl::Status status = BuildLattice(sentence, &lattice_); !status.ok()) return status;
  if (model_->latent()) {
    absl::StatusOr<LatentDecodeResult> ldi =
        LdiDecode(lattice_, model_->latent_layout(), LdiOptions(), &latent_scratch_);
    if (!ldi.ok()) {
      return absl::Status(ldi.status().code(),
                          absl::StrCat(Where(sentence), ": ", ldi.status().message()));
    }
    Labeling best;
    best.labels = std::move(ldi->solutions[0].labels);
    best.score = ldi->solutions[0].log_score;
    return best;
  }
  absl::StatusOr<Labeling> best = ViterbiDecode(lattice_, &viterbi_);
  if (!best.ok()) {
    return absl::Status(best.status().code(),
                        absl::StrCat(Where(sentence), ": ", best.status().message()));
  }
  return best;
}

absl::StatusOr<Tagger::Analysis> Tagger::Analyze(const Sentence& sentence) {
  if (model_->family() == ModelFamily::kLmsbn) {
    return absl::InvalidArgumentError(
        "marginals: an lmsbn model has no probabilities (it is a large-margin model decoded by "
        "branch-and-bound)");
  }
  if (model_->latent()) {
    absl::StatusOr<Labeling> best = Tag(sentence);  // builds the lattice
    if (!best.ok()) return best.status();
    Analysis analysis;
    absl::StatusOr<std::vector<double>> marginals =
        LatentLabelMarginals(lattice_, model_->latent_layout(), &analysis.log_z, &latent_scratch_);
    if (!marginals.ok()) {
      return absl::Status(marginals.status().code(),
                          absl::StrCat(Where(sentence), ": ", marginals.status().message()));
    }
    analysis.best = *std::move(best);
    analysis.marginals.log_z = analysis.log_z;
    analysis.marginals.unary = *std::move(marginals);
    return analysis;
  }
  if (absl::Status status = BuildLattice(sentence, &lattice_); !status.ok()) return status;
  absl::StatusOr<Labeling> best = ViterbiDecode(lattice_, &viterbi_);
  if (!best.ok()) {
    return absl::Status(best.status().code(),
                        absl::StrCat(Where(sentence), ": ", best.status().message()));
  }
  absl::StatusOr<Marginals> marginals = ForwardBackward(lattice_, &forward_backward_);
  if (!marginals.ok()) {
    return absl::Status(marginals.status().code(),
                        absl::StrCat(Where(sentence), ": ", marginals.status().message()));
  }
  Analysis analysis;
  analysis.best = *std::move(best);
  analysis.log_z = marginals->log_z;
  analysis.marginals = *std::move(marginals);
  return analysis;
}

}  // namespace chaintag
