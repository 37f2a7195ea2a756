// The loss grammar (--loss, --loss-level), canonical loss names and weighted-Hamming weight
// files.
#include <cmath>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "chaintag/train.h"
#include "string_view_compat.h"
#include "train/losses.h"

namespace chaintag {
namespace {

// Loss names as --loss spells them (fbeta:B is parsed separately; f1 is fbeta with B = 1).
struct NamedLoss {
  std::string_view name;
  LossKind kind;
};
constexpr NamedLoss kNamedLosses[] = {
    {"none", LossKind::kNone},
    {"hamming", LossKind::kHamming},
    {"normalized-hamming", LossKind::kNormalizedHamming},
    {"weighted-hamming", LossKind::kWeightedHamming},
    {"zero-one", LossKind::kZeroOne},
    {"fp", LossKind::kFalsePositives},
    {"precision", LossKind::kPrecision},
    {"recall", LossKind::kRecall},
    {"f1", LossKind::kFBeta},
    {"iou", LossKind::kIou},
    {"label-count", LossKind::kLabelCount},
};
constexpr const char* kLossNames =
    "none, hamming, normalized-hamming, weighted-hamming, zero-one, fp, precision, recall, f1, "
    "fbeta:B, iou, label-count";

}  // namespace

namespace train_internal {

bool IsLevelledLoss(LossKind kind) {
  switch (kind) {
    case LossKind::kFalsePositives:
    case LossKind::kPrecision:
    case LossKind::kRecall:
    case LossKind::kFBeta:
    case LossKind::kIou:
    case LossKind::kLabelCount:
      return true;
    default:
      return false;
  }
}

}  // namespace train_internal

using train_internal::IsLevelledLoss;

absl::StatusOr<LossSpec> ParseLossSpec(std::string_view loss, std::string_view level) {
  LossSpec spec;
  std::string_view name = loss;
  // A "/level" suffix (as LossSpecName writes it) overrides `level`.
  if (const size_t slash = name.find('/'); slash != std::string_view::npos) {
    level = name.substr(slash + 1);
    name = name.substr(0, slash);
  }
  absl::StatusOr<LossLevel> parsed_level = ParseLossLevel(level);
  if (!parsed_level.ok()) return parsed_level.status();
  spec.level = *parsed_level;
  const NamedLoss* named = nullptr;
  for (const NamedLoss& n : kNamedLosses) {
    if (n.name == name) named = &n;
  }
  if (named != nullptr) {
    spec.kind = named->kind;
    if (spec.kind == LossKind::kFBeta) spec.beta = 1.0;  // f1
  } else if (name.substr(0, 6) == "fbeta:") {
    spec.kind = LossKind::kFBeta;
    const std::string text(name.substr(6));
    double beta = 0;
    if (!absl::SimpleAtod(text, &beta) || !std::isfinite(beta) || beta <= 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("loss '", ToAbsl(loss),
                       "': expected fbeta:B with a finite B > 0, found B = '", text, "'"));
    }
    spec.beta = beta;
  } else {
    return absl::InvalidArgumentError(
        absl::StrCat("unknown loss '", ToAbsl(loss), "': expected one of ", kLossNames));
  }
  if (spec.level == LossLevel::kChunk && !IsLevelledLoss(spec.kind)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "loss '", ToAbsl(name),
        "' is defined on tokens only: expected --loss-level token, found chunk (chunk level "
        "applies to fp, precision, recall, f1, fbeta:B, iou, label-count)"));
  }
  return spec;
}

std::string LossKindName(LossKind kind, double beta) {
  if (kind == LossKind::kFBeta && beta != 1.0) {
    // Shortest text that parses back to the same double.
    std::string text;
    for (int digits = 6; digits <= 17; ++digits) {
      text = absl::StrFormat("%.*g", digits, beta);
      double back = 0;
      if (absl::SimpleAtod(text, &back) && back == beta) break;
    }
    return absl::StrCat("fbeta:", text);
  }
  for (const NamedLoss& n : kNamedLosses) {
    if (n.kind == kind) return std::string(n.name);
  }
  return "?";
}

std::string LossSpecName(const LossSpec& spec) {
  std::string name = LossKindName(spec.kind, spec.beta);
  if (IsLevelledLoss(spec.kind)) {
    absl::StrAppend(&name, spec.level == LossLevel::kChunk ? "/chunk" : "/token");
  }
  return name;
}

absl::Status ReadLossWeights(const std::string& path, LossSpec* spec) {
  std::ifstream in(path);
  if (!in) return absl::NotFoundError(absl::StrCat(path, ": cannot open the loss weight file"));
  std::vector<LossSpec::Weight> weights;
  std::string line;
  int line_number = 0;
  while (std::getline(in, line)) {
    ++line_number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    std::vector<std::string> fields =
        absl::StrSplit(line, absl::ByAnyChar(" \t"), absl::SkipEmpty());
    if (fields.empty() || fields[0][0] == '#') continue;
    if (fields.size() != 3) {
      return ErrorAt(
          path, line_number,
          absl::StrCat("expected 'GOLD PREDICTED WEIGHT', found ", fields.size(), " fields"));
    }
    double w = 0;
    if (!absl::SimpleAtod(fields[2], &w) || !std::isfinite(w) || w < 0) {
      return ErrorAt(path, line_number,
                     absl::StrCat("expected a finite weight >= 0, found '", fields[2], "'"));
    }
    weights.push_back({fields[0], fields[1], w});
  }
  if (in.bad()) return absl::DataLossError(absl::StrCat(path, ": read error"));
  spec->weights = std::move(weights);
  return absl::OkStatus();
}

bool IsDecomposable(const LossSpec& spec) {
  return spec.kind == LossKind::kNone || spec.kind == LossKind::kHamming ||
         spec.kind == LossKind::kNormalizedHamming || spec.kind == LossKind::kWeightedHamming;
}

}  // namespace chaintag
