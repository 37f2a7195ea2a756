#include "cli/tag_decode.h"

#include <cmath>
#include <cstdlib>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace chaintag::cli {

namespace {

absl::Status ParseBound(absl::string_view text, int* value, const std::string& spec) {
  if (!absl::SimpleAtoi(text, value) || *value < 0) {
    return absl::InvalidArgumentError(absl::StrCat("--count '", spec, "': expected a non-negative integer bound, found '", text, "'"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status ParseRange(const std::string& text, double* lower, double* upper) {
  const size_t dots = text.find("..");
  *lower = -HUGE_VAL;
  *upper = HUGE_VAL;
  auto number = [&](absl::string_view s, double* out) -> absl::Status {
    if (!absl::SimpleAtod(s, out) || std::isnan(*out)) {
      return absl::InvalidArgumentError(absl::StrCat("expected a range A..B of numbers, found '", text, "'"));
    }
    return absl::OkStatus();
  };
  if (dots == std::string::npos) {
    return absl::InvalidArgumentError(absl::StrCat("expected a range A..B, found '", text, "'"));
  }
  absl::string_view a(text.data(), dots), b(text.data() + dots + 2, text.size() - dots - 2);
  if (!a.empty()) {
    if (absl::Status s = number(a, lower); !s.ok()) return s;
  }
  if (!b.empty()) {
    if (absl::Status s = number(b, upper); !s.ok()) return s;
  }
  if (*lower > *upper) {
    return absl::InvalidArgumentError(absl::StrCat("empty range '", text, "': the lower end exceeds the upper"));
  }
  return absl::OkStatus();
}

absl::StatusOr<CountSpec> ParseCountSpec(const std::string& text, const Model& model,
                                         const ChunkTable& chunks) {
  CountSpec spec;
  const size_t eq = text.rfind('=');
  if (eq == std::string::npos || eq == 0) {
    return absl::InvalidArgumentError(absl::StrCat("--count '", text, "': expected LABELS=RANGE, e.g. 'B-NP=2..4', 'NN,NNS=..3', 'VB*=1..' or 'chunk:NP=3'"));
  }
  absl::string_view what(text.data(), eq);
  const std::string range = text.substr(eq + 1);
  if (absl::ConsumePrefix(&what, "chunk:")) spec.chunks = true;
  for (absl::string_view item : absl::StrSplit(what, ',')) {
    if (item.empty()) return absl::InvalidArgumentError(absl::StrCat("--count '", text, "': empty label in the list"));
    if (spec.chunks) {
      int type = -1;
      for (int k = 0; k < chunks.num_types(); ++k) {
        if (chunks.type_name(k) == item) type = k;
      }
      if (type < 0) {
        std::vector<std::string> names;
        for (int k = 0; k < chunks.num_types(); ++k) names.push_back(chunks.type_name(k));
        return absl::InvalidArgumentError(absl::StrCat("--count '", text, "': the model has no chunk type '", item,
                                                       "'; its types are: ", absl::StrJoin(names, " ")));
      }
      spec.ids.push_back(type);
      continue;
    }
    const bool prefix = !item.empty() && item.back() == '*';
    if (prefix) item.remove_suffix(1);
    bool found = false;
    for (int y = 0; y < model.num_labels(); ++y) {
      const std::string& label = model.labels()[y];
      if (prefix ? absl::StartsWith(label, item) : label == item) {
        spec.ids.push_back(y);
        found = true;
      }
    }
    if (!found) {
      return absl::InvalidArgumentError(absl::StrCat("--count '", text, "': no label of the model matches '", item,
                                                     prefix ? "*" : "", "'; its labels are: ",
                                                     absl::StrJoin(model.labels(), " ")));
    }
  }
  const size_t dots = range.find("..");
  if (dots == std::string::npos) {
    if (absl::Status s = ParseBound(range, &spec.lower, text); !s.ok()) return s;
    spec.upper = spec.lower;
  } else {
    absl::string_view a(range.data(), dots), b(range.data() + dots + 2, range.size() - dots - 2);
    if (!a.empty()) {
      if (absl::Status s = ParseBound(a, &spec.lower, text); !s.ok()) return s;
    }
    if (!b.empty()) {
      if (absl::Status s = ParseBound(b, &spec.upper, text); !s.ok()) return s;
    }
    if (a.empty() && b.empty()) return absl::InvalidArgumentError(absl::StrCat("--count '", text, "': the range has no bound"));
    if (spec.upper >= 0 && spec.lower > spec.upper) {
      return absl::InvalidArgumentError(absl::StrCat("--count '", text, "': the lower bound exceeds the upper"));
    }
  }
  return spec;
}

Pipeline::Pipeline(const std::vector<const Model*>& models, const DecodeRequest& request,
                   std::string exclude_file)
    : models_(models),
      request_(request),
      exclude_file_(std::move(exclude_file)),
      chunk_table_(models.back()->labels()) {
  for (const Model* m : models) taggers_.emplace_back(*m);
  for (const CountSpec& c : request_.counts) {
    if (c.chunks) {
      count_statistics_.push_back(std::make_unique<ChunkCountStatistic>(chunk_table_, c.ids, c.lower, c.upper));
    } else {
      count_statistics_.push_back(
          std::make_unique<LabelCountStatistic>(models.back()->num_labels(), c.ids, c.lower, c.upper));
    }
  }
}

void Pipeline::Run(Result* r) {
  for (size_t k = 0; k < taggers_.size(); ++k) {
    const Sentence* input = &r->sentence;
    if (k > 0) {
      // The word column plus the previous models' predictions. The word column, lines and file
      // name are borrowed from the sentence (swapped in and back), not copied.
      stage_.columns.resize(1 + k);
      stage_.columns[0].swap(r->sentence.columns[0]);
      stage_.token_lines.swap(r->sentence.token_lines);
      stage_.file.swap(r->sentence.file);
      const Model& prev = *models_[k - 1];
      auto& col = stage_.columns[k];
      const std::vector<int>& layer = r->layers[k - 1];
      // Assigning into kept strings reuses their buffers: no allocation per token once warm.
      col.resize(layer.size());
      for (size_t t = 0; t < layer.size(); ++t) col[t] = prev.labels()[layer[t]];
      input = &stage_;
    }
    absl::Status status;
    if (k + 1 == taggers_.size()) {
      status = RunLast(*input, r);
    } else if (auto labeling = taggers_[k].Tag(*input); labeling.ok()) {
      r->layers.push_back(std::move(labeling->labels));
    } else {
      status = labeling.status();
    }
    if (k > 0) {
      stage_.columns[0].swap(r->sentence.columns[0]);
      stage_.token_lines.swap(r->sentence.token_lines);
      stage_.file.swap(r->sentence.file);
    }
    if (!status.ok()) {
      r->status = status;
      return;
    }
  }
}

absl::Status Pipeline::RunLast(const Sentence& input, Result* r) {
  Tagger& tagger = taggers_.back();
  const Model& model = *models_.back();
  if (absl::Status s = tagger.BuildLattice(input, &lattice_); !s.ok()) return s;

  std::vector<const Statistic*> constraints;
  for (const auto& s : count_statistics_) constraints.push_back(s.get());
  std::vector<std::unique_ptr<Statistic>> exclusions;
  for (const auto& labels : r->excluded) {
    if (static_cast<int>(labels.size()) != input.size()) {
      return absl::InvalidArgumentError(absl::StrCat(exclude_file_, ":", r->exclude_line, ": expected labelings of ",
                                                     input.size(), " labels (the sentence's length), found ",
                                                     labels.size()));
    }
    std::vector<int> ids;
    for (const std::string& label : labels) {
      const int y = model.LabelId(label);
      if (y < 0) {
        return absl::InvalidArgumentError(absl::StrCat(exclude_file_, ":", r->exclude_line, ": expected a label of the model, found '", label, "'"));
      }
      ids.push_back(y);
    }
    exclusions.push_back(std::make_unique<HammingDistanceStatistic>(std::move(ids), 1));
    constraints.push_back(exclusions.back().get());
  }

  absl::StatusOr<std::vector<Labeling>> found;
  if (request_.score_range) {
    auto best = ScoreRangeDecode(lattice_, request_.score_lower, request_.score_upper, request_.score_resolution,
                                 constraints, &r->score_resolution, request_.score_max_states);
    if (best.ok()) found = std::vector<Labeling>{std::move(*best)};
    else found = best.status();
  } else if (request_.diverse > 0) {
    found = DiverseKBest(lattice_, request_.diverse, request_.min_distance, constraints,
                         request_.chunk_diversity ? &chunk_table_ : nullptr, &decoder_);
  } else if (request_.kbest > 0) {
    found = KBestDecode(lattice_, request_.kbest, constraints, &decoder_);
  } else if (!constraints.empty()) {
    auto best = ConstrainedDecode(lattice_, constraints, &decoder_);
    if (best.ok()) found = std::vector<Labeling>{std::move(*best)};
    else found = best.status();
  } else {
    auto best = ViterbiDecode(lattice_, &viterbi_);
    if (best.ok()) found = std::vector<Labeling>{std::move(*best)};
    else found = best.status();
  }
  if (!found.ok()) {
    if (!IsInfeasible(found.status())) return found.status();
    r->infeasible = true;
    return absl::OkStatus();
  }
  double log_z = 0.0;
  if (request_.marginals) {
    auto marginals = ForwardBackward(lattice_, &forward_backward_);
    if (!marginals.ok()) return marginals.status();
    log_z = marginals->log_z;
    r->marginals = std::move(marginals->unary);
  } else if (request_.probability) {
    auto z = LogPartition(lattice_, &forward_backward_);
    if (!z.ok()) return z.status();
    log_z = *z;
  }
  for (Labeling& l : *found) {
    Solution s;
    s.score = l.score;
    s.probability = request_.probability ? std::exp(l.score - log_z) : 0.0;
    s.labels = std::move(l.labels);
    r->solutions.push_back(std::move(s));
  }
  return absl::OkStatus();
}

}  // namespace chaintag::cli
