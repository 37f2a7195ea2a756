// Losses: parsing, binding to a label inventory, direct evaluation, and their AuxDp statistics.
#include "train/losses.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <numeric>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "string_view_compat.h"

namespace chaintag {
namespace {

// Loss names as --loss spells them (fbeta:B is parsed separately; f1 is fbeta with B = 1).
struct NamedLoss {
  std::string_view name;
  LossKind kind;
};
constexpr NamedLoss kNamedLosses[] = {
    {"none", LossKind::kNone},           {"hamming", LossKind::kHamming},
    {"normalized-hamming", LossKind::kNormalizedHamming},
    {"weighted-hamming", LossKind::kWeightedHamming},
    {"zero-one", LossKind::kZeroOne},    {"fp", LossKind::kFalsePositives},
    {"precision", LossKind::kPrecision}, {"recall", LossKind::kRecall},
    {"f1", LossKind::kFBeta},            {"iou", LossKind::kIou},
    {"label-count", LossKind::kLabelCount},
};
constexpr const char* kLossNames =
    "none, hamming, normalized-hamming, weighted-hamming, zero-one, fp, precision, recall, f1, "
    "fbeta:B, iou, label-count";
// Weights are stored in hundredths; the largest integer unit count accepted (keeps sums in int).
constexpr double kWeightScale = 100.0;
constexpr double kMaxWeightUnits = 1e6;

bool IsLevelled(LossKind kind) {
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

absl::StatusOr<LossLevel> ParseLevel(std::string_view level) {
  if (level == "token") return LossLevel::kToken;
  if (level == "chunk") return LossLevel::kChunk;
  return absl::InvalidArgumentError(absl::StrCat(
      "unknown loss level '", ToAbsl(level), "': expected token or chunk"));
}

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

absl::StatusOr<LossSpec> ParseLossSpec(std::string_view loss, std::string_view level) {
  LossSpec spec;
  std::string_view name = loss;
  // A "/level" suffix (as LossSpecName writes it) overrides `level`.
  if (const size_t slash = name.find('/'); slash != std::string_view::npos) {
    level = name.substr(slash + 1);
    name = name.substr(0, slash);
  }
  absl::StatusOr<LossLevel> parsed_level = ParseLevel(level);
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
      return absl::InvalidArgumentError(absl::StrCat(
          "loss '", ToAbsl(loss), "': expected fbeta:B with a finite B > 0, found B = '", text, "'"));
    }
    spec.beta = beta;
  } else {
    return absl::InvalidArgumentError(
        absl::StrCat("unknown loss '", ToAbsl(loss), "': expected one of ", kLossNames));
  }
  if (spec.level == LossLevel::kChunk && !IsLevelled(spec.kind)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "loss '", ToAbsl(name),
        "' is defined on tokens only: expected --loss-level token, found chunk (chunk level "
        "applies to fp, precision, recall, f1, fbeta:B, iou, label-count)"));
  }
  return spec;
}

std::string LossSpecName(const LossSpec& spec) {
  std::string name;
  if (spec.kind == LossKind::kFBeta && spec.beta != 1.0) {
    // Shortest text that parses back to the same double.
    std::string beta;
    for (int digits = 6; digits <= 17; ++digits) {
      beta = absl::StrFormat("%.*g", digits, spec.beta);
      double back = 0;
      if (absl::SimpleAtod(beta, &back) && back == spec.beta) break;
    }
    name = absl::StrCat("fbeta:", beta);
  } else {
    for (const NamedLoss& n : kNamedLosses) {
      if (n.kind == spec.kind) name = std::string(n.name);
    }
  }
  if (IsLevelled(spec.kind)) {
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
      return absl::InvalidArgumentError(absl::StrCat(path, ":", line_number,
                                                     ": expected 'GOLD PREDICTED WEIGHT', found ",
                                                     fields.size(), " fields"));
    }
    double w = 0;
    if (!absl::SimpleAtod(fields[2], &w) || !std::isfinite(w) || w < 0) {
      return absl::InvalidArgumentError(absl::StrCat(path, ":", line_number,
                                                     ": expected a finite weight >= 0, found '",
                                                     fields[2], "'"));
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
  if (spec.level == LossLevel::kChunk && !IsLevelled(spec.kind)) {
    return absl::InvalidArgumentError(absl::StrCat("loss '", LossSpecName(spec),
                                                   "' is defined on tokens only, not on chunks"));
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
        return absl::InvalidArgumentError(
            absl::StrCat("positive label '", p, "' is not a label of the model (", n, " labels)"));
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
        return absl::InvalidArgumentError(
            absl::StrCat("positive chunk type '", p, "' is not a chunk type of the labels"));
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
          return absl::InvalidArgumentError(absl::StrCat(
              "loss weight ", w.gold, " ", w.predicted, " ", w.weight, ": label '",
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

CountSpace::Mode CountSpace::ModeFor(LossKind kind) {
  switch (kind) {
    case LossKind::kRecall:
      return Mode::kTp;
    case LossKind::kFalsePositives:
      return Mode::kFp;
    case LossKind::kLabelCount:
      return Mode::kSum;
    default:
      return Mode::kTpFp;
  }
}

void CountSpace::Reset(Mode mode, int tp_max, int fp_max, int total_max) {
  tp_max = std::max(tp_max, 0);
  fp_max = std::max(fp_max, 0);
  switch (mode) {
    case Mode::kTpFp:
      break;
    case Mode::kTp:
      fp_max = 0;
      break;
    case Mode::kFp:
      tp_max = 0;
      break;
    case Mode::kSum:
      tp_max = std::max(0, std::min(tp_max + fp_max, total_max));
      fp_max = 0;
      break;
  }
  tp_of_.clear();
  fp_of_.clear();
  index_.assign(static_cast<size_t>(tp_max + 1) * (fp_max + 1), -1);
  for (int a = 0; a <= tp_max; ++a) {
    for (int b = 0; b <= fp_max && a + b <= std::max(total_max, 0); ++b) {
      index_[static_cast<size_t>(a) * (fp_max + 1) + b] = static_cast<int>(tp_of_.size());
      tp_of_.push_back(a);
      fp_of_.push_back(b);
    }
  }
  const int r = static_cast<int>(tp_of_.size());
  after_tp_.resize(r);
  after_fp_.resize(r);
  // The caps are true upper bounds on reachable counts; saturating only guards the table.
  auto find = [&](int a, int b) {
    a = std::min(a, tp_max);
    b = std::min(b, fp_max);
    int i = index_[static_cast<size_t>(a) * (fp_max + 1) + b];
    while (i < 0 && b > 0) i = index_[static_cast<size_t>(a) * (fp_max + 1) + --b];
    while (i < 0 && a > 0) i = index_[static_cast<size_t>(--a) * (fp_max + 1) + b];
    return std::max(i, 0);
  };
  for (int i = 0; i < r; ++i) {
    const int a = tp_of_[i], b = fp_of_[i];
    switch (mode) {
      case Mode::kTpFp:
        after_tp_[i] = find(a + 1, b);
        after_fp_[i] = find(a, b + 1);
        break;
      case Mode::kTp:
        after_tp_[i] = find(a + 1, 0);
        after_fp_[i] = i;
        break;
      case Mode::kFp:
        after_tp_[i] = i;
        after_fp_[i] = find(0, b + 1);
        break;
      case Mode::kSum:
        after_tp_[i] = after_fp_[i] = find(a + 1, 0);
        break;
    }
  }
}

namespace {

absl::Status CheckGold(const std::vector<int>& gold, int num_labels, const Lattice& lattice,
                       const char* what) {
  if (static_cast<int>(gold.size()) != lattice.size() || num_labels != lattice.num_labels()) {
    return absl::InvalidArgumentError(absl::StrCat(
        what, ": bound to ", gold.size(), " tokens x ", num_labels, " labels; lattice has ",
        lattice.size(), " x ", lattice.num_labels()));
  }
  return absl::OkStatus();
}

}  // namespace

void TokenErrorStatistic::Reset(const BoundLoss& loss, absl::Span<const int> gold) {
  loss_ = &loss;
  gold_.assign(gold.begin(), gold.end());
  const int n = loss.num_labels();
  int64_t total = 0;
  for (int g : gold_) {
    int64_t worst = 0;
    for (int y = 0; y < n; ++y) worst = std::max(worst, loss.weight_units(g, y));
    total += worst;
  }
  if (loss.kind() == LossKind::kZeroOne) total = std::min<int64_t>(total, 1);
  // The engine bounds R far below int range; clamp so an absurd total fails there, not here.
  cap_ = static_cast<int>(std::min<int64_t>(total, int64_t{1} << 30));
}

int TokenErrorStatistic::Next(int state, int position, int, int label) const {
  const int64_t next = state + loss_->weight_units(gold_[position], label);
  return static_cast<int>(std::min<int64_t>(next, cap_));
}

absl::Status TokenErrorStatistic::Validate(const Lattice& lattice) const {
  return CheckGold(gold_, loss_->num_labels(), lattice, "TokenErrorStatistic");
}

void TokenErrorStatistic::FillSuccessors(int position, int num_labels,
                                         absl::Span<int> table) const {
  const int g = gold_[position];
  for (int s = 0; s <= cap_; ++s) {
    int* first = table.data() + static_cast<size_t>(s) * (num_labels + 1) * num_labels;
    for (int y = 0; y < num_labels; ++y) {
      first[y] = static_cast<int>(std::min<int64_t>(s + loss_->weight_units(g, y), cap_));
    }
    for (int prev = 0; prev < num_labels; ++prev) {
      std::copy(first, first + num_labels, first + static_cast<size_t>(prev + 1) * num_labels);
    }
  }
}

void TokenErrorStatistic::StateLosses(std::vector<double>* out) const {
  out->resize(cap_ + 1);
  const int m = static_cast<int>(gold_.size());
  for (int s = 0; s <= cap_; ++s) (*out)[s] = loss_->FromErrors(s, m);
}

void TokenConfusionStatistic::Reset(const BoundLoss& loss, absl::Span<const int> gold) {
  loss_ = &loss;
  gold_.assign(gold.begin(), gold.end());
  const std::vector<char>& positive = loss.counted_labels();
  const int num_positive = static_cast<int>(std::count(positive.begin(), positive.end(), 1));
  num_gold_ = 0;
  int fp_possible = 0;
  for (int g : gold_) {
    num_gold_ += positive[g];
    // An FP needs a positive label other than the gold one.
    fp_possible += num_positive - (positive[g] ? 1 : 0) > 0;
  }
  space_.Reset(CountSpace::ModeFor(loss.kind()), num_gold_, fp_possible,
               static_cast<int>(gold_.size()));
}

int TokenConfusionStatistic::Next(int state, int position, int, int label) const {
  if (!loss_->counted_labels()[label]) return state;
  return label == gold_[position] ? space_.AfterTp(state) : space_.AfterFp(state);
}

absl::Status TokenConfusionStatistic::Validate(const Lattice& lattice) const {
  return CheckGold(gold_, loss_->num_labels(), lattice, "TokenConfusionStatistic");
}

void TokenConfusionStatistic::FillSuccessors(int position, int num_labels,
                                             absl::Span<int> table) const {
  const int g = gold_[position];
  const std::vector<char>& positive = loss_->counted_labels();
  const int r = space_.size();
  for (int s = 0; s < r; ++s) {
    int* first = table.data() + static_cast<size_t>(s) * (num_labels + 1) * num_labels;
    for (int y = 0; y < num_labels; ++y) {
      first[y] = !positive[y] ? s : (y == g ? space_.AfterTp(s) : space_.AfterFp(s));
    }
    for (int prev = 0; prev < num_labels; ++prev) {
      std::copy(first, first + num_labels, first + static_cast<size_t>(prev + 1) * num_labels);
    }
  }
}

void TokenConfusionStatistic::StateLosses(std::vector<double>* out) const {
  const int r = space_.size();
  out->resize(r);
  for (int s = 0; s < r; ++s) (*out)[s] = loss_->FromCounts(space_.tp(s), space_.fp(s), num_gold_);
}

void ChunkConfusionStatistic::Bind(const ChunkTable& table, const std::vector<char>& counted_labels,
                                   CountSpace::Mode mode, const BoundLoss* loss) {
  table_ = &table;
  loss_ = loss;
  mode_ = mode;
  n_ = table.num_labels();
  flag_states_ = mode == CountSpace::Mode::kSum ? 1 : 3;
  counted_.assign(counted_labels.begin(), counted_labels.end());
  type_.assign(n_, -1);
  for (int y = 0; y < n_; ++y) {
    if (counted_[y]) type_[y] = table.TypeOf(y);
  }
  starts_.assign(static_cast<size_t>(n_ + 1) * n_, 0);
  ends_.assign(static_cast<size_t>(n_ + 1) * n_, 0);
  for (int prev = -1; prev < n_; ++prev) {
    for (int y = 0; y < n_; ++y) {
      starts_[static_cast<size_t>(prev + 1) * n_ + y] = table.Starts(prev, y);
      ends_[static_cast<size_t>(prev + 1) * n_ + y] = table.Ends(prev, y);
    }
  }
}

void ChunkConfusionStatistic::Reset(absl::Span<const int> gold) {
  gold_.assign(gold.begin(), gold.end());
  const int m = static_cast<int>(gold_.size());
  gold_start_type_.assign(m, -2);
  gold_ends_.assign(m + 1, 0);
  num_gold_ = 0;
  for (int t = 0; t < m; ++t) {
    const int prev = t == 0 ? -1 : gold_[t - 1];
    if (starts_[static_cast<size_t>(prev + 1) * n_ + gold_[t]] && counted_[gold_[t]]) {
      gold_start_type_[t] = type_[gold_[t]];
      ++num_gold_;
    }
    if (t > 0) gold_ends_[t] = ends_[static_cast<size_t>(prev + 1) * n_ + gold_[t]];
  }
  if (m > 0) gold_ends_[m] = table_->Ends(gold_[m - 1], -1);
  bool any_counted = false;
  for (char c : counted_) any_counted = any_counted || c;
  // Every predicted chunk holds at least one token: at most M of them.
  space_.Reset(mode_, num_gold_, any_counted ? m : 0, m);
}

int ChunkConfusionStatistic::Next(int state, int position, int prev_label, int label) const {
  const size_t cell = static_cast<size_t>(prev_label + 1) * n_ + label;
  const bool starts = starts_[cell];
  const int m = static_cast<int>(gold_.size());
  if (flag_states_ == 1) {  // kSum: count predicted counted chunks as they start
    return starts && counted_[label] ? space_.AfterTp(state) : state;
  }
  int index = state / 3;
  int open = state % 3;
  if (open != 0 && (starts || ends_[cell])) {
    index = open == 1 && gold_ends_[position] ? space_.AfterTp(index) : space_.AfterFp(index);
    open = 0;
  } else if (open == 1 && gold_ends_[position]) {
    open = 2;  // the gold chunk closed inside the predicted one
  }
  if (starts) {
    open = !counted_[label] ? 0 : (gold_start_type_[position] == type_[label] ? 1 : 2);
  }
  if (position == m - 1 && open != 0) {  // the sentence end closes the last chunk
    index = open == 1 && gold_ends_[m] ? space_.AfterTp(index) : space_.AfterFp(index);
    open = 0;
  }
  return 3 * index + open;
}

absl::Status ChunkConfusionStatistic::Validate(const Lattice& lattice) const {
  return CheckGold(gold_, n_, lattice, "ChunkConfusionStatistic");
}

void ChunkConfusionStatistic::FillSuccessors(int position, int num_labels,
                                             absl::Span<int> table) const {
  const int r = NumStates();
  for (int s = 0; s < r; ++s) {
    for (int prev = -1; prev < num_labels; ++prev) {
      int* row = table.data() + (static_cast<size_t>(s) * (num_labels + 1) + prev + 1) * num_labels;
      for (int y = 0; y < num_labels; ++y) row[y] = Next(s, position, prev, y);
    }
  }
}

void ChunkConfusionStatistic::StateLosses(std::vector<double>* out) const {
  const int r = NumStates();
  out->resize(r);
  for (int s = 0; s < r; ++s) {
    const int tp_count = tp(s), fp_count = fp(s);
    if (loss_ != nullptr) {
      (*out)[s] = loss_->FromCounts(tp_count, fp_count, num_gold_);
    } else {
      const int predicted = tp_count + fp_count;
      (*out)[s] = num_gold_ == 0 && predicted == 0
                      ? 0.0
                      : 1.0 - 2.0 * tp_count / static_cast<double>(num_gold_ + predicted);
    }
  }
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
      return absl::InvalidArgumentError(absl::StrCat("gold label ", gold[t], " at position ", t,
                                                     "; expected 0..", n - 1));
    }
    for (int y = 0; y < n; ++y) {
      (*costs)[static_cast<size_t>(t) * n + y] = loss.FromErrors(loss.weight_units(gold[t], y), m);
    }
  }
  return absl::OkStatus();
}

}  // namespace chaintag
