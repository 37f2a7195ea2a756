// The three family implementations (chain, latent-dynamic chain, left-to-right LMSBN) and the
// factory that picks one from the model's family section.
#include "model/family.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "decode/branch_and_bound.h"
#include "decode/latent.h"
#include "model/lmsbn_scorer.h"
#include "model/parameters.h"

namespace chaintag {

// request.h is public and does not include the branch-and-bound header: one default, kept equal.
static_assert(DecodeRequest::kDefaultBbMaxNodes == BranchAndBoundOptions::kDefaultMaxNodes);
namespace {

// An error of a decoder on `sentence`, prefixed with where the sentence is.
absl::Status At(const Sentence& sentence, const absl::Status& status) {
  return absl::Status(status.code(), absl::StrCat(Location(sentence), ": ", status.message()));
}

// Records a search that ended without solutions as the sentence's status (infeasible, or too
// large with the reason); false for a real error.
bool RecordedAsStatus(const absl::Status& status, TagResult* r) {
  if (IsInfeasible(status)) {
    r->status = SentenceStatus::kInfeasible;
    return true;
  }
  if (status.code() != absl::StatusCode::kResourceExhausted) return false;
  r->status = SentenceStatus::kTooLarge;
  r->status_reason = std::string(status.message());
  return true;
}

// How a model decodes, from its family section: the one place that tells families apart.
enum class FamilyKind { kChain, kLatent, kLeftToRight };
FamilyKind KindOf(const Model& model) {
  if (model.family() == ModelFamily::kLmsbn) return FamilyKind::kLeftToRight;
  if (model.latent()) return FamilyKind::kLatent;
  return FamilyKind::kChain;  // first or second order; LMBM weights are ordinary chain scores
}

// Linear chains of order 1 or 2 (CRF, SSVM, perceptron, LMBM, ...): Viterbi and the AuxDp
// requests on the label lattice (aux_dp.h).
class ChainFamily : public Family {
 public:
  using Family::Family;

  absl::Status Decode(const DecodeRequest& request, SentenceConstraints constraints,
                      TagResult* r) override {
    if (!constraints.forced.empty()) ApplyForcedLabels(constraints.forced, &lattice_);
    decoder_.set_max_bytes(request.max_memory_bytes);
    std::vector<const Statistic*>& statistics = constraints.counts;
    std::vector<std::vector<int>>& excluded = constraints.excluded;
    // Score ranges and diverse k-best exclude labelings by Hamming statistics (2 states each);
    // the others by k-best, linear in the number of exclusions.
    std::vector<std::unique_ptr<Statistic>> owned;
    if (request.score_range || request.diverse > 0) {
      for (std::vector<int>& ids : excluded) {
        owned.push_back(std::make_unique<HammingDistanceStatistic>(std::move(ids), 1));
        statistics.push_back(owned.back().get());
      }
      excluded.clear();
    }
    absl::StatusOr<std::vector<Labeling>> found;
    auto one = [&found](absl::StatusOr<Labeling> best) {
      if (best.ok()) {
        found = std::vector<Labeling>{std::move(*best)};
      } else {
        found = best.status();
      }
    };
    if (constraints.infeasible) {
      found = absl::NotFoundError("infeasible: a count's lower bound exceeds the sentence length");
    } else if (request.score_range) {
      one(ScoreRangeDecode(lattice_, request.score_lower, request.score_upper,
                           request.score_resolution, statistics, &r->score_resolution,
                           request.score_max_states, request.max_memory_bytes));
    } else if (request.diverse > 0) {
      found = DiverseKBest(lattice_, request.diverse, request.min_distance, statistics,
                           request.chunk_diversity ? constraints.chunks : nullptr, &decoder_);
    } else if (request.kbest > 0) {
      // The K best that are not excluded are among the K + |E| best.
      const int64_t k = std::min<int64_t>(int64_t{request.kbest} + excluded.size(), INT32_MAX);
      found = KBestDecode(lattice_, static_cast<int>(k), statistics, &decoder_);
      if (found.ok() && !excluded.empty()) {
        std::vector<Labeling> kept;
        for (Labeling& l : *found) {
          if (static_cast<int>(kept.size()) == request.kbest) break;
          if (std::find(excluded.begin(), excluded.end(), l.labels) == excluded.end()) {
            kept.push_back(std::move(l));
          }
        }
        if (kept.empty()) {
          found =
              absl::NotFoundError("infeasible: every labeling satisfying the request is excluded");
        } else {
          found = std::move(kept);
        }
      }
    } else if (!excluded.empty()) {
      one(ExclusionDecode(lattice_, excluded, statistics, &decoder_));
    } else if (!statistics.empty()) {
      one(ConstrainedDecode(lattice_, statistics, &decoder_));
    } else {
      one(ViterbiDecode(lattice_, &viterbi_));
    }
    if (!found.ok()) {
      return RecordedAsStatus(found.status(), r) ? absl::OkStatus() : found.status();
    }
    double log_z = 0.0;
    if (request.marginals) {
      auto marginals = ForwardBackward(lattice_, &forward_backward_);
      if (!marginals.ok()) return marginals.status();
      log_z = marginals->log_z;
      r->marginals = std::move(marginals->unary);
    } else if (request.probability) {
      auto z = LogPartition(lattice_, &forward_backward_);
      if (!z.ok()) return z.status();
      log_z = *z;
    }
    for (Labeling& l : *found) {
      const double probability = request.probability ? std::exp(l.score - log_z) : 0.0;
      AddSolution(std::move(l.labels), l.score, probability, 0.0, r);
    }
    return absl::OkStatus();
  }

  absl::StatusOr<Labeling> Best(const Sentence& sentence) override {
    if (absl::Status s = Prepare(sentence); !s.ok()) return s;
    absl::StatusOr<Labeling> best = ViterbiDecode(lattice_, &viterbi_);
    if (!best.ok()) return At(sentence, best.status());
    return best;
  }

  absl::StatusOr<Tagger::Analysis> Analyze(const Sentence& sentence) override {
    absl::StatusOr<Labeling> best = Best(sentence);
    if (!best.ok()) return best.status();
    absl::StatusOr<Marginals> marginals = ForwardBackward(lattice_, &forward_backward_);
    if (!marginals.ok()) return At(sentence, marginals.status());
    Tagger::Analysis analysis;
    analysis.best = *std::move(best);
    analysis.log_z = marginals->log_z;
    analysis.marginals = *std::move(marginals);
    return analysis;
  }

 private:
  AuxDpDecoder decoder_;
  ViterbiScratch viterbi_;
  ForwardBackwardScratch forward_backward_;
};

// Latent-dynamic chains (objective ldcrf): a lattice over hidden states, labelings by LDI, the
// best hidden path or label marginals (latent.h).
class LatentFamily : public Family {
 public:
  using Family::Family;

  absl::Status Decode(const DecodeRequest& request, SentenceConstraints constraints,
                      TagResult* r) override {
    const LatentLayout& layout = model_->latent_layout();
    if (!constraints.forced.empty()) ApplyLatentForcedLabels(constraints.forced, layout, &lattice_);
    absl::StatusOr<LatentDecodeResult> result;
    std::vector<double> marginals;
    switch (request.latent_decoder) {
      case LatentDecoder::kLdi: {
        LdiOptions options;
        options.k = std::max(1, request.kbest);
        options.max_paths = request.ldi_max_paths;
        options.max_bytes = request.max_memory_bytes;
        result = LdiDecode(lattice_, layout, options, &scratch_);
        break;
      }
      case LatentDecoder::kBhp:
        result = BestHiddenPathDecode(lattice_, layout, &scratch_);
        break;
      case LatentDecoder::kMarginal:
        result = MarginalLatentDecode(lattice_, layout, &scratch_, &marginals);
        break;
    }
    if (!result.ok()) {
      if (IsInfeasible(result.status())) {
        r->status = SentenceStatus::kInfeasible;
        return absl::OkStatus();
      }
      return result.status();
    }
    if (request.marginals) {
      if (marginals.empty()) {
        absl::StatusOr<std::vector<double>> m =
            LatentLabelMarginals(lattice_, layout, nullptr, &scratch_);
        if (!m.ok()) return m.status();
        marginals = *std::move(m);
      }
      r->marginals = std::move(marginals);
    }
    r->search.exact = result->exact;
    r->search.hidden_paths = result->hidden_paths;
    for (LatentSolution& l : result->solutions) {
      AddSolution(std::move(l.labels), l.log_score, l.probability, 0.0, r);
    }
    return absl::OkStatus();
  }

  absl::StatusOr<Labeling> Best(const Sentence& sentence) override {
    if (absl::Status s = Prepare(sentence); !s.ok()) return s;
    absl::StatusOr<LatentDecodeResult> ldi =
        LdiDecode(lattice_, model_->latent_layout(), LdiOptions(), &scratch_);
    if (!ldi.ok()) return At(sentence, ldi.status());
    Labeling best;
    best.labels = std::move(ldi->solutions[0].labels);
    best.score = ldi->solutions[0].log_score;
    return best;
  }

  absl::StatusOr<Tagger::Analysis> Analyze(const Sentence& sentence) override {
    absl::StatusOr<Labeling> best = Best(sentence);
    if (!best.ok()) return best.status();
    Tagger::Analysis analysis;
    absl::StatusOr<std::vector<double>> marginals =
        LatentLabelMarginals(lattice_, model_->latent_layout(), &analysis.log_z, &scratch_);
    if (!marginals.ok()) return At(sentence, marginals.status());
    analysis.best = *std::move(best);
    analysis.marginals.log_z = analysis.log_z;
    analysis.marginals.unary = *std::move(marginals);
    return analysis;
  }

 private:
  LatentScratch scratch_;
};

// Left-to-right LMSBN: every position scored from the input and the whole label history,
// decoded by branch-and-bound with the request's constraints inside the search
// (branch_and_bound.h). The observation scores are the prepared lattice.
class LeftToRightFamily : public Family {
 public:
  explicit LeftToRightFamily(const Model& model) : Family(model), scorer_(model) {}

  absl::Status Prepare(const Sentence& sentence) override {
    if (absl::Status s = Family::Prepare(sentence); !s.ok()) return s;
    scorer_.Prepare(sentence, lattice_);
    sentence_ = &sentence;
    return absl::OkStatus();
  }

  absl::Status Decode(const DecodeRequest& request, SentenceConstraints constraints,
                      TagResult* r) override {
    r->search.cost = true;
    r->search.nodes = 0;
    r->search.optimal = true;  // an infeasible request is proved so
    if (constraints.infeasible) {
      r->status = SentenceStatus::kInfeasible;
      return absl::OkStatus();
    }
    BranchAndBoundOptions options;
    options.kbest = std::max(request.kbest, 1);
    options.max_nodes = request.bb_max_nodes;
    options.bound = request.bb_bound;
    if (!constraints.forced.empty()) options.forced = std::move(constraints.forced);
    options.constraints = std::move(constraints.counts);
    // Exclusions are Hamming statistics inside the search (a branch that already differs from
    // an excluded labeling is never checked again).
    std::vector<std::unique_ptr<Statistic>> owned;
    for (std::vector<int>& ids : constraints.excluded) {
      owned.push_back(std::make_unique<HammingDistanceStatistic>(std::move(ids), 1));
      options.constraints.push_back(owned.back().get());
    }
    absl::StatusOr<BranchAndBoundResult> found = Search(options);
    if (!found.ok()) {
      if (!RecordedAsStatus(found.status(), r)) return found.status();
      if (r->status == SentenceStatus::kTooLarge) {
        r->search.nodes = std::max<int64_t>(request.bb_max_nodes, size());
        r->search.optimal = false;
      }
      return absl::OkStatus();
    }
    r->search.nodes = found->nodes;
    r->search.optimal = found->optimal;
    for (BranchAndBoundSolution& l : found->solutions) {
      AddSolution(std::move(l.labels), l.score, 0.0, l.cost, r);
    }
    return absl::OkStatus();
  }

  absl::StatusOr<Labeling> Best(const Sentence& sentence) override {
    absl::StatusOr<BranchAndBoundResult> found = Search(sentence, {});
    if (!found.ok()) return found.status();
    Labeling best;
    best.labels = std::move(found->solutions[0].labels);
    best.score = found->solutions[0].score;
    return best;
  }

  absl::StatusOr<Tagger::Analysis> Analyze(const Sentence&) override {
    return absl::InvalidArgumentError(
        "marginals: an lmsbn model has no probabilities (it is a large-margin model decoded by "
        "branch-and-bound)");
  }

  // Prepares `sentence`, then searches it.
  absl::StatusOr<BranchAndBoundResult> Search(const Sentence& sentence,
                                              const BranchAndBoundOptions& options) {
    if (absl::Status s = Prepare(sentence); !s.ok()) return s;
    return Search(options);
  }

 private:
  // Branch-and-bound over the prepared sentence; errors other than infeasibility name it.
  absl::StatusOr<BranchAndBoundResult> Search(const BranchAndBoundOptions& options) {
    absl::StatusOr<BranchAndBoundResult> result = BranchAndBoundDecode(scorer_, options);
    if (!result.ok() && !IsInfeasible(result.status())) return At(*sentence_, result.status());
    return result;
  }

  LmsbnScorer scorer_;
  const Sentence* sentence_ = nullptr;  // the prepared sentence, for messages
};

}  // namespace

absl::Status Family::Prepare(const Sentence& sentence) { return BuildLattice(sentence, &lattice_); }

void Family::AddSolution(std::vector<int> labels, double score, double probability, double cost,
                         TagResult* r) const {
  Solution s;
  s.rank = static_cast<int>(r->solutions.size()) + 1;
  s.names.reserve(labels.size());
  for (const int y : labels) s.names.push_back(model_->labels()[y]);
  s.score = score;
  s.probability = probability;
  s.cost = cost;
  s.labels = std::move(labels);
  r->solutions.push_back(std::move(s));
}

std::unique_ptr<Family> MakeFamily(const Model& model) {
  switch (KindOf(model)) {
    case FamilyKind::kLeftToRight:
      return std::make_unique<LeftToRightFamily>(model);
    case FamilyKind::kLatent:
      return std::make_unique<LatentFamily>(model);
    case FamilyKind::kChain:
      break;
  }
  return std::make_unique<ChainFamily>(model);
}

ModelCapabilities Model::Capabilities() const {
  ModelCapabilities c;
  switch (KindOf(*this)) {
    case FamilyKind::kLeftToRight:
      // Branch-and-bound over label histories: constraints inside the search, no partition
      // function.
      c.score_range = c.diverse = c.marginals = c.probabilities = false;
      c.label_lattice = c.collective = c.weights = false;
      c.description = "an lmsbn model (branch-and-bound search)";
      break;
    case FamilyKind::kLatent:
      // Statistics read labels, but the lattice is over hidden states.
      c.counts = c.score_range = c.diverse = c.exclusions = false;
      c.label_lattice = c.collective = false;
      c.latent_decoder = true;
      c.description = "a latent-dynamic model (objective ldcrf)";
      break;
    case FamilyKind::kChain:
      if (order() == 2) {
        c.collective = false;
        c.description = "a second-order linear-chain model";
      }
      break;
  }
  return c;
}

absl::StatusOr<BranchAndBoundResult> SearchLeftToRight(Family& family, const Sentence& sentence,
                                                       const BranchAndBoundOptions& options) {
  if (KindOf(family.model()) != FamilyKind::kLeftToRight) {
    return absl::FailedPreconditionError(
        "branch-and-bound search: expected an lmsbn model, found a linear-chain model");
  }
  return static_cast<LeftToRightFamily&>(family).Search(sentence, options);
}

}  // namespace chaintag
