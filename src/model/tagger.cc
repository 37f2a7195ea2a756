// Tagger: featurize with the model's dictionary, score, mask, decode.
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "chaintag/model.h"

namespace chaintag {
namespace {

// "file:line" of the sentence's first token, for error messages.
std::string Where(const Sentence& sentence) {
  std::string where = sentence.file.empty() ? std::string("<input>") : sentence.file;
  if (!sentence.token_lines.empty()) absl::StrAppend(&where, ":", sentence.token_lines[0]);
  return where;
}

}  // namespace

Tagger::Tagger(const Model& model) : model_(&model), featurizer_(model.spec()) {}

absl::Status Tagger::BuildLattice(const Sentence& sentence, Lattice* lattice) {
  const int needed = model_->spec().num_input_columns();
  if (sentence.num_columns() < needed) {
    return absl::InvalidArgumentError(absl::StrCat(
        Where(sentence), ": expected at least ", needed,
        " input column(s) (the model's templates read them), found ", sentence.num_columns()));
  }
  for (int c = 0; c < sentence.num_columns(); ++c) {
    if (static_cast<int>(sentence.columns[c].size()) != sentence.size()) {
      return absl::InvalidArgumentError(
          absl::StrCat(Where(sentence), ": expected ", sentence.size(), " entries in column ", c + 1,
                       ", found ", sentence.columns[c].size()));
    }
  }
  if (absl::Status status = featurizer_.CheckColumns(sentence); !status.ok()) {
    return absl::Status(status.code(), absl::StrCat(Where(sentence), ": ", status.message()));
  }
  featurizer_.Featurize(sentence, model_->attributes(), &featurized_);
  const ModelParameters& parameters = model_->parameters();
  parameters.Score(featurized_, parameters.weights, lattice);
  if (model_->transition_mask().num_labels == model_->num_labels()) {
    ApplyTransitionMask(model_->transition_mask(), lattice);
  }
  return absl::OkStatus();
}

absl::StatusOr<Labeling> Tagger::Tag(const Sentence& sentence) {
  if (absl::Status status = BuildLattice(sentence, &lattice_); !status.ok()) return status;
  absl::StatusOr<Labeling> best = ViterbiDecode(lattice_, &viterbi_);
  if (!best.ok()) {
    return absl::Status(best.status().code(),
                        absl::StrCat(Where(sentence), ": ", best.status().message()));
  }
  return best;
}

absl::StatusOr<Tagger::Analysis> Tagger::Analyze(const Sentence& sentence) {
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
