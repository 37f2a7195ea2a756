// A loss bound to a label inventory: positives, chunk types and weight units resolved to label
// ids; direct evaluation of Delta and the per-token costs of decomposable losses.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "chaintag/train.h"
#include "option_error.h"
#include "train/losses.h"

namespace chaintag {
namespace {

// Weights are stored in hundredths; the largest integer unit count accepted (keeps sums in int).
constexpr double kWeightScale = 100.0;
constexpr double kMaxWeightUnits = 1e6;

// Conlleval chunks of a labeling as (begin, end, type) with only counted types.
struct SpanChunk {
  int begin, end, type;
  bool operator==(const SpanChunk&) const = default;
};
std::vector<SpanChunk> CountedChunks(const ChunkTable& table, const std::vector<char>& counted,
                                     absl::Span<const int> labels) {
  std::vector<SpanChunk> out;
  const int m = static_cast<int>(labels.size());
  int open = -1;
  for (int t = 0; t <= m; ++t) {
    const int prev = t == 0 ? -1 : labels[t - 1];
    const int cur = t < m ? labels[t] : -1;
    if (open >= 0 && (table.Ends(prev, cur) || table.Starts(prev, cur))) {
      if (counted[prev]) out.push_back({open, t, table.TypeOf(prev)});
      open = -1;
    }
    if (cur >= 0 && table.Starts(prev, cur)) open = t;
  }
  return out;
}

}  // namespace

using train_internal::IsLevelledLoss;

bool BoundLoss::IsErrorLoss() const {
  return spec_.kind == LossKind::kHamming || spec_.kind == LossKind::kNormalizedHamming ||
         spec_.kind == LossKind::kWeightedHamming || spec_.kind == LossKind::kZeroOne;
}

double BoundLoss::FromErrors(int64_t errors, int m) const {
  switch (spec_.kind) {
    case LossKind::kHamming:
      return static_cast<double>(errors);
    case LossKind::kNormalizedHamming:
      return m == 0 ? 0.0 : static_cast<double>(errors) / m;
    case LossKind::kWeightedHamming:
      return static_cast<double>(errors) * unit_;
    case LossKind::kZeroOne:
      return errors > 0 ? 1.0 : 0.0;
    default:
      return 0.0;
  }
}

double BoundLoss::FromCounts(int tp, int fp, int gold) const {
  const int predicted = tp + fp;
  switch (spec_.kind) {
    case LossKind::kFalsePositives:
      return fp;
    case LossKind::kPrecision:
      if (predicted == 0) return gold == 0 ? 0.0 : 1.0;
      return 1.0 - static_cast<double>(tp) / predicted;
    case LossKind::kRecall:
      return gold == 0 ? 0.0 : 1.0 - static_cast<double>(tp) / gold;
    case LossKind::kFBeta: {
      if (gold == 0 && predicted == 0) return 0.0;
      const double b2 = spec_.beta * spec_.beta;
      return 1.0 - (1.0 + b2) * tp / (b2 * gold + predicted);
    }
    case LossKind::kIou:
      if (gold == 0 && predicted == 0) return 0.0;
      return 1.0 - static_cast<double>(tp) / (gold + fp);
    case LossKind::kLabelCount:
      return std::abs(predicted - gold);
    default:
      return 0.0;
  }
}

absl::StatusOr<std::shared_ptr<const BoundLoss>> BindLoss(const LossSpec& spec,
                                                          const std::vector<std::string>& labels) {
  if (spec.level == LossLevel::kChunk && !IsLevelledLoss(spec.kind)) {
    return absl::InvalidArgumentError(
        absl::StrCat("loss '", LossSpecName(spec), "' is defined on tokens only, not on chunks"));
  }
  if (spec.kind == LossKind::kFBeta && !(std::isfinite(spec.beta) && spec.beta > 0)) {
    return absl::InvalidArgumentError(
        absl::StrCat("loss fbeta: expected a finite beta > 0, found ", spec.beta));
  }
  std::shared_ptr<BoundLoss> loss(new BoundLoss(labels));
  loss->spec_ = spec;
  const int n = static_cast<int>(labels.size());
  auto label_id = [&](const std::string& name) {
    const auto it = std::find(labels.begin(), labels.end(), name);
    return it == labels.end() ? -1 : static_cast<int>(it - labels.begin());
  };
  loss->counted_.assign(n, 0);
  if (spec.level == LossLevel::kToken) {
    if (spec.positives.empty()) {
      for (int y = 0; y < n; ++y) loss->counted_[y] = labels[y] != "O";
    }
    for (const std::string& p : spec.positives) {
      const int id = label_id(p);
      if (id < 0) {
        return OptionError(absl::StrCat("option positives: positive label '", p,
                                        "' is not a label of the training data (", n, " labels)"));
      }
      loss->counted_[id] = 1;
    }
  } else {
    const ChunkTable& table = loss->chunks_;
    std::vector<char> type_counted(table.num_types(), spec.positives.empty() ? 1 : 0);
    for (const std::string& p : spec.positives) {
      int type = -1;
      for (int k = 0; k < table.num_types(); ++k) {
        if (table.type_name(k) == p) type = k;
      }
      if (type < 0) {
        return OptionError(absl::StrCat("option positives: positive chunk type '", p,
                                        "' is not a chunk type of the training data's labels"));
      }
      type_counted[type] = 1;
    }
    for (int y = 0; y < n; ++y) {
      const int type = table.TypeOf(y);
      loss->counted_[y] = type >= 0 && type_counted[type];
    }
  }
  // Hamming-type losses: integer weight units per (gold, predicted).
  loss->units_.assign(static_cast<size_t>(n) * n, 0);
  if (loss->IsErrorLoss()) {
    std::vector<int64_t> hundredths(static_cast<size_t>(n) * n, 0);
    for (int g = 0; g < n; ++g) {
      for (int y = 0; y < n; ++y) hundredths[static_cast<size_t>(g) * n + y] = g == y ? 0 : 100;
    }
    if (spec.kind == LossKind::kWeightedHamming) {
      for (const LossSpec::Weight& w : spec.weights) {
        const int g = label_id(w.gold);
        const int y = label_id(w.predicted);
        if (g < 0 || y < 0) {
          return absl::InvalidArgumentError(
              absl::StrCat("loss weight ", w.gold, " ", w.predicted, " ", w.weight, ": label '",
                           g < 0 ? w.gold : w.predicted, "' is not a label of the model"));
        }
        const double scaled = w.weight * kWeightScale;
        const double rounded = std::round(scaled);
        if (!std::isfinite(w.weight) || w.weight < 0 || rounded > kMaxWeightUnits ||
            std::abs(scaled - rounded) > 1e-9 * std::max(1.0, std::abs(scaled))) {
          return absl::InvalidArgumentError(absl::StrCat(
              "loss weight ", w.gold, " ", w.predicted, " ", w.weight,
              ": expected a weight >= 0 with at most two decimals (weight x 100 an integer <= ",
              kMaxWeightUnits, ") so the slack-scaling state is exact"));
        }
        hundredths[static_cast<size_t>(g) * n + y] = static_cast<int64_t>(rounded);
      }
    }
    int64_t divisor = 0;
    for (int64_t h : hundredths) divisor = std::gcd(divisor, h);
    if (divisor == 0) divisor = 100;
    for (size_t i = 0; i < hundredths.size(); ++i) loss->units_[i] = hundredths[i] / divisor;
    loss->unit_ = static_cast<double>(divisor) / kWeightScale;
  }
  LossView& view = loss->view_;
  view.num_labels = n;
  view.counted_labels = loss->counted_;
  view.weight_units = loss->units_;
  view.max_errors = spec.kind == LossKind::kZeroOne ? 1 : -1;
  switch (spec.kind) {
    case LossKind::kRecall:
      view.count_mode = CountSpace::Mode::kTp;
      break;
    case LossKind::kFalsePositives:
      view.count_mode = CountSpace::Mode::kFp;
      break;
    case LossKind::kLabelCount:
      view.count_mode = CountSpace::Mode::kSum;
      break;
    default:
      view.count_mode = CountSpace::Mode::kTpFp;
  }
  const BoundLoss* self = loss.get();
  view.from_errors = [self](int64_t errors, int m) { return self->FromErrors(errors, m); };
  view.from_counts = [self](int tp, int fp, int gold) { return self->FromCounts(tp, fp, gold); };
  return std::shared_ptr<const BoundLoss>(std::move(loss));
}

namespace train_internal {

ConfusionCounts CountConfusion(const BoundLoss& loss, absl::Span<const int> gold,
                               absl::Span<const int> predicted) {
  ConfusionCounts c;
  const std::vector<char>& counted = loss.counted_labels();
  if (loss.level() == LossLevel::kToken) {
    for (size_t t = 0; t < gold.size(); ++t) {
      c.gold += counted[gold[t]];
      if (counted[predicted[t]]) (predicted[t] == gold[t] ? c.tp : c.fp) += 1;
    }
    return c;
  }
  const std::vector<SpanChunk> g = CountedChunks(loss.chunks(), counted, gold);
  const std::vector<SpanChunk> p = CountedChunks(loss.chunks(), counted, predicted);
  c.gold = static_cast<int>(g.size());
  for (const SpanChunk& chunk : p) {
    (std::find(g.begin(), g.end(), chunk) != g.end() ? c.tp : c.fp) += 1;
  }
  return c;
}

}  // namespace train_internal

double EvaluateLoss(const BoundLoss& loss, absl::Span<const int> gold,
                    absl::Span<const int> predicted) {
  if (loss.kind() == LossKind::kNone) return 0.0;
  if (loss.IsErrorLoss()) {
    int64_t errors = 0;
    for (size_t t = 0; t < gold.size(); ++t) errors += loss.weight_units(gold[t], predicted[t]);
    return loss.FromErrors(errors, static_cast<int>(gold.size()));
  }
  const train_internal::ConfusionCounts c = train_internal::CountConfusion(loss, gold, predicted);
  return loss.FromCounts(c.tp, c.fp, c.gold);
}

absl::Status DecomposedLossCosts(const BoundLoss& loss, absl::Span<const int> gold,
                                 std::vector<double>* costs) {
  if (!IsDecomposable(loss.spec())) {
    return absl::InvalidArgumentError(absl::StrCat(
        "loss '", LossSpecName(loss.spec()),
        "' does not decompose over tokens (decomposable: none, hamming, normalized-hamming, "
        "weighted-hamming)"));
  }
  const int m = static_cast<int>(gold.size());
  const int n = loss.num_labels();
  costs->assign(static_cast<size_t>(m) * n, 0.0);
  if (loss.kind() == LossKind::kNone) return absl::OkStatus();
  for (int t = 0; t < m; ++t) {
    if (gold[t] < 0 || gold[t] >= n) {
      return absl::InvalidArgumentError(
          absl::StrCat("gold label ", gold[t], " at position ", t, "; expected 0..", n - 1));
    }
    for (int y = 0; y < n; ++y) {
      (*costs)[static_cast<size_t>(t) * n + y] = loss.FromErrors(loss.weight_units(gold[t], y), m);
    }
  }
  return absl::OkStatus();
}

}  // namespace chaintag
