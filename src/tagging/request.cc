// The textual forms of a decode request (--count, --score-range, exclusion lines) and its checks.
#include <cmath>
#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "chaintag/tagging.h"
#include "collective/collective.h"
#include "corpus/line_reader.h"
#include "decode/latent.h"
#include "string_view_compat.h"

namespace chaintag {

namespace {

absl::Status ParseBound(absl::string_view text, int* value, absl::string_view spec) {
  if (!absl::SimpleAtoi(text, value) || *value < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("--count '", spec,
                     "': expected a non-negative integer bound below 2^31, found '", text, "'"));
  }
  return absl::OkStatus();
}

}  // namespace

const char* SentenceStatusName(SentenceStatus status) {
  switch (status) {
    case SentenceStatus::kOk:
      return "ok";
    case SentenceStatus::kInfeasible:
      return "infeasible";
    case SentenceStatus::kTooLarge:
      return "too_large";
  }
  return "unknown";
}

absl::Status ParseScoreRange(std::string_view text_in, double* lower, double* upper) {
  const absl::string_view text = ToAbsl(text_in);
  const size_t dots = text.find("..");
  *lower = -HUGE_VAL;
  *upper = HUGE_VAL;
  auto number = [&](absl::string_view s, double* out) -> absl::Status {
    if (!absl::SimpleAtod(s, out) || !std::isfinite(*out)) {
      return absl::InvalidArgumentError(
          absl::StrCat("expected a range A..B of finite numbers, found '", text, "'"));
    }
    return absl::OkStatus();
  };
  if (dots == absl::string_view::npos) {
    return absl::InvalidArgumentError(absl::StrCat("expected a range A..B, found '", text, "'"));
  }
  absl::string_view a(text.data(), dots), b(text.data() + dots + 2, text.size() - dots - 2);
  if (!a.empty()) {
    if (absl::Status s = number(a, lower); !s.ok()) return s;
  }
  if (!b.empty()) {
    if (absl::Status s = number(b, upper); !s.ok()) return s;
  }
  if (*lower >= *upper) {
    return absl::InvalidArgumentError(absl::StrCat(
        "empty range '", text, "': the lower end ",
        *lower == *upper ? "equals the upper (a range needs width)" : "exceeds the upper"));
  }
  return absl::OkStatus();
}

absl::StatusOr<CountConstraint> ParseCountConstraint(std::string_view text_in,
                                                     const std::vector<std::string>& labels) {
  const absl::string_view text = ToAbsl(text_in);
  CountConstraint spec;
  const size_t eq = text.rfind('=');
  if (eq == absl::string_view::npos || eq == 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--count '", text,
        "': expected LABELS=RANGE, e.g. 'B-NP=2..4', 'NN,NNS=..3', 'VB*=1..' or 'chunk:NP=3'"));
  }
  absl::string_view what(text.data(), eq);
  const absl::string_view range(text.data() + eq + 1, text.size() - eq - 1);
  if (absl::ConsumePrefix(&what, "chunk:")) spec.chunks = true;
  std::optional<ChunkTable> chunks;
  if (spec.chunks) chunks.emplace(labels);
  for (absl::string_view item : absl::StrSplit(what, ',')) {
    if (item.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("--count '", text, "': empty label in the list"));
    }
    if (spec.chunks) {
      int type = -1;
      for (int k = 0; k < chunks->num_types(); ++k) {
        if (chunks->type_name(k) == item) type = k;
      }
      if (type < 0) {
        std::vector<std::string> names;
        for (int k = 0; k < chunks->num_types(); ++k) names.push_back(chunks->type_name(k));
        return absl::InvalidArgumentError(
            absl::StrCat("--count '", text, "': the model has no chunk type '", item,
                         "'; its types are: ", absl::StrJoin(names, " ")));
      }
      spec.ids.push_back(type);
      continue;
    }
    const bool prefix = item.back() == '*';
    if (prefix) item.remove_suffix(1);
    bool found = false;
    for (int y = 0; y < static_cast<int>(labels.size()); ++y) {
      if (prefix ? absl::StartsWith(labels[y], item) : labels[y] == item) {
        spec.ids.push_back(y);
        found = true;
      }
    }
    if (!found) {
      return absl::InvalidArgumentError(
          absl::StrCat("--count '", text, "': no label of the model matches '", item,
                       prefix ? "*" : "", "'; its labels are: ", absl::StrJoin(labels, " ")));
    }
  }
  const size_t dots = range.find("..");
  if (dots == absl::string_view::npos) {
    if (absl::Status s = ParseBound(range, &spec.lower, text); !s.ok()) return s;
    spec.upper = spec.lower;
  } else {
    absl::string_view a = range.substr(0, dots), b = range.substr(dots + 2);
    if (a.empty() && b.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("--count '", text, "': the range has no bound"));
    }
    if (!a.empty()) {
      if (absl::Status s = ParseBound(a, &spec.lower, text); !s.ok()) return s;
    }
    if (!b.empty()) {
      if (absl::Status s = ParseBound(b, &spec.upper, text); !s.ok()) return s;
    }
    if (spec.upper >= 0 && spec.lower > spec.upper) {
      return absl::InvalidArgumentError(
          absl::StrCat("--count '", text, "': the lower bound exceeds the upper"));
    }
  }
  return spec;
}

absl::StatusOr<std::vector<std::vector<std::string>>> ParseExclusionLine(std::string_view line_in) {
  const absl::string_view line = ToAbsl(line_in);
  bool is_nul = false, all_ascii = false;
  if (const int64_t bad = corpus_internal::FindInvalidUtf8(line_in, &is_nul, &all_ascii);
      bad >= 0) {
    return absl::InvalidArgumentError(absl::StrCat("expected UTF-8 labels, found ",
                                                   is_nul ? "a NUL byte" : "invalid UTF-8",
                                                   " at byte ", bad + 1));
  }
  for (size_t i = 0; i < line.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(line[i]);
    if ((c < 0x20 && c != '\t') || c == 0x7f) {
      return absl::InvalidArgumentError(absl::StrCat(
          "expected labels separated by spaces and labelings by '|', found control character ",
          corpus_internal::QuoteLine(line_in.substr(i, 1)), " at byte ", i + 1));
    }
  }
  std::vector<std::vector<std::string>> labelings;
  for (absl::string_view labeling : absl::StrSplit(line, '|', absl::SkipWhitespace())) {
    labelings.emplace_back();
    for (absl::string_view label :
         absl::StrSplit(labeling, absl::ByAnyChar(" \t"), absl::SkipEmpty())) {
      labelings.back().emplace_back(label);
    }
  }
  return labelings;
}

absl::StatusOr<LatentDecoder> ParseLatentDecoder(std::string_view name) {
  if (name == "ldi") return LatentDecoder::kLdi;
  if (name == "bhp") return LatentDecoder::kBhp;
  if (name == "marginal") return LatentDecoder::kMarginal;
  return absl::InvalidArgumentError(absl::StrCat(
      "--latent-decoder: expected ldi, bhp or marginal, found \"", ToAbsl(name), "\""));
}

absl::Status DecodeRequest::Validate() const {
  if (ldi_max_paths < 1 || ldi_max_paths > LdiOptions::kMaxPaths) {
    return absl::InvalidArgumentError(
        absl::StrCat("--ldi-max-paths must be between 1 and ", LdiOptions::kMaxPaths));
  }
  if (kbest < 0 || diverse < 0)
    return absl::InvalidArgumentError("--kbest and --diverse must be >= 0");
  if (kbest > 0 && diverse > 0)
    return absl::InvalidArgumentError("give --kbest or --diverse, not both");
  if (min_distance < 1) return absl::InvalidArgumentError("--min-distance must be >= 1");
  for (const CountConstraint& c : counts) {
    if (c.lower < 0 || (c.upper >= 0 && c.upper < c.lower) || c.ids.empty()) {
      return absl::InvalidArgumentError(
          "--count: expected a label set and bounds 0 <= lower <= upper");
    }
  }
  if (score_range) {
    if (!(score_lower < score_upper) || std::isnan(score_lower) || std::isnan(score_upper)) {
      return absl::InvalidArgumentError("--score-range: expected A..B with A < B");
    }
    if (!(score_resolution > 0) || !std::isfinite(score_resolution)) {
      return absl::InvalidArgumentError("--score-resolution must be a finite number > 0");
    }
    if (score_max_states < 2 || score_max_states > kMaxScoreStates) {
      return absl::InvalidArgumentError(
          absl::StrCat("--score-max-states must be between 2 and ", kMaxScoreStates));
    }
    if (kbest > 0 || diverse > 0) {
      return absl::InvalidArgumentError("--score-range does not combine with --kbest or --diverse");
    }
  }
  if (bb_max_nodes < 1 || bb_max_nodes > kMaxBbNodes) {
    return absl::InvalidArgumentError(
        absl::StrCat("--bb-max-nodes must be between 1 and ", kMaxBbNodes));
  }
  if (!(bb_bound > 0)) return absl::InvalidArgumentError("--bb-bound must be a number > 0");
  if (!(marginals_min >= 0 && marginals_min <= 1)) {
    return absl::InvalidArgumentError("--marginals-min must be between 0 and 1");
  }
  if (forced_column < -1 || forced_column >= kMaxColumns) {
    return absl::InvalidArgumentError(
        absl::StrCat("--forced-column must be between 1 and ", kMaxColumns));
  }
  if (max_memory_bytes < (int64_t{1} << 20)) {
    return absl::InvalidArgumentError("the decoding memory limit must be at least 1 MB");
  }
  if (collective.has_value()) {
    const CollectiveOptions& c = *collective;
    if (Constrained()) {
      return absl::InvalidArgumentError(
          "--collective does not combine with --count, --score-range, --kbest, --diverse, "
          "--exclude or --forced-column");
    }
    if (c.iterations < 1 || c.iterations > CollectiveDecodeOptions::kMaxIterations) {
      return absl::InvalidArgumentError(
          absl::StrCat("--collective-iterations must be between 1 and ",
                       CollectiveDecodeOptions::kMaxIterations));
    }
    if (!(c.c >= 0) || !std::isfinite(c.c) || c.c > 1e6) {
      return absl::InvalidArgumentError("--collective-lambda must be a number from 0 to 1e6");
    }
    if (c.max_clique_nodes < 2 || c.max_clique_nodes > kMaxCliqueNodes) {
      return absl::InvalidArgumentError(
          absl::StrCat("--collective-max-clique must be between 2 and ", kMaxCliqueNodes));
    }
    if (c.max_document_sentences < 1 ||
        c.max_document_sentences > CollectiveOptions::kMaxDocumentSentencesCap ||
        c.max_document_tokens < 1 ||
        c.max_document_tokens > CollectiveOptions::kMaxDocumentTokensCap) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--collective-max-sentences must be between 1 and ",
          CollectiveOptions::kMaxDocumentSentencesCap,
          " and --collective-max-tokens between 1 and ", CollectiveOptions::kMaxDocumentTokensCap));
    }
    for (double w : c.majority_weights) {
      if (!std::isfinite(w)) {
        return absl::InvalidArgumentError("collective MAJORITY weights must be finite");
      }
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<CollectivePotentialKind> ParseCollectivePotentialKind(std::string_view name) {
  if (name == "potts") return CollectivePotentialKind::kPotts;
  if (name == "majority") return CollectivePotentialKind::kMajority;
  return absl::InvalidArgumentError(absl::StrCat(
      "collective potential: expected potts or majority, found '", std::string(name), "'"));
}

std::string_view CollectivePotentialKindName(CollectivePotentialKind kind) {
  return kind == CollectivePotentialKind::kPotts ? "potts" : "majority";
}

absl::StatusOr<CollectiveKey> ParseCollectiveKey(std::string_view name) {
  if (name == "form") return CollectiveKey::kForm;
  if (name == "lower") return CollectiveKey::kLower;
  return absl::InvalidArgumentError(
      absl::StrCat("collective key: expected form or lower, found '", std::string(name), "'"));
}

std::string_view CollectiveKeyName(CollectiveKey key) {
  return key == CollectiveKey::kForm ? "form" : "lower";
}

}  // namespace chaintag
