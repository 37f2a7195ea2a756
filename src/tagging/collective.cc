// Collective tagging helpers: word keys and filters for the cliques of a document, the seen-word
// test, the request check, and MAJORITY weights from labelled documents (Gupta, Diwan and
// Sarawagi, ICML 2007, Sections 2.1 and 4).
#include "collective/collective.h"

#include <unicode/locid.h>
#include <unicode/uchar.h>
#include <unicode/unistr.h>
#include <unicode/utf8.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "chaintag/tagging.h"

namespace chaintag {

std::string CollectiveWordKey(std::string_view word, CollectiveKey key) {
  if (key == CollectiveKey::kForm) return std::string(word);
  icu::UnicodeString text = icu::UnicodeString::fromUTF8(
      icu::StringPiece(word.data(), static_cast<int32_t>(word.size())));
  text.toLower(icu::Locale::getRoot());
  std::string out;
  text.toUTF8String(out);
  return out;
}

bool IsCapitalised(std::string_view word) {
  if (word.empty()) return false;
  int32_t i = 0;
  UChar32 c = 0;
  U8_NEXT(reinterpret_cast<const uint8_t*>(word.data()), i, static_cast<int32_t>(word.size()), c);
  return c >= 0 && (u_isupper(c) || u_istitle(c));
}

absl::StatusOr<SeenWordTest> SeenWordTest::ForModel(const Model& model) {
  SeenWordTest test;
  test.model_ = &model;
  bool found_lower = false;
  std::string lower_prefix;
  for (absl::string_view raw : absl::StrSplit(model.spec().text(), '\n')) {
    std::string_view line(raw.data(), raw.size());
    while (!line.empty() && (line.back() == ' ' || line.back() == '\r')) line.remove_suffix(1);
    const size_t colon = line.find(':');
    if (colon == std::string_view::npos || line.empty() || line[0] == '#') continue;
    const std::string_view body = line.substr(colon + 1);
    if (body == "%x[0,0]") {
      test.prefix_ = std::string(line.substr(0, colon + 1));
      test.lower_ = false;
      return test;
    }
    if (body == "lower(%x[0,0])" && !found_lower) {
      found_lower = true;
      lower_prefix = std::string(line.substr(0, colon + 1));
    }
  }
  if (found_lower) {
    test.prefix_ = lower_prefix;
    test.lower_ = true;
    return test;
  }
  return absl::NotFoundError(
      "--collective-unseen needs a model with a current-word template (NAME:%x[0,0] or "
      "NAME:lower(%x[0,0])) to tell the words it saw in training");
}

bool SeenWordTest::Seen(std::string_view word) const {
  const std::string attribute =
      prefix_ + (lower_ ? CollectiveWordKey(word, CollectiveKey::kLower) : std::string(word));
  return model_->attributes().Find(attribute) >= 0;
}

absl::Status CheckCollectiveRequest(const Model& model, const DecodeRequest& request) {
  if (!request.collective.has_value()) return absl::OkStatus();
  if (absl::Status s = request.Validate(); !s.ok()) return s;
  const CollectiveOptions& c = *request.collective;
  if (const ModelCapabilities caps = model.Capabilities(); !caps.collective) {
    return absl::InvalidArgumentError(absl::StrCat("--collective is not supported on ",
                                                   caps.description,
                                                   "; it needs a first-order linear-chain model"));
  }
  if (c.potential == CollectivePotentialKind::kMajority) {
    const size_t m = model.num_labels();
    if (c.majority_weights.size() != m * m) {
      return absl::InvalidArgumentError(
          absl::StrCat("--collective majority needs a ", m, " x ", m,
                       " weight matrix over the model's labels (--collective-train FILE), found ",
                       c.majority_weights.size(), " weights"));
    }
  }
  if (c.unseen_only) {
    if (auto test = SeenWordTest::ForModel(model); !test.ok()) return test.status();
  }
  return absl::OkStatus();
}

MajorityWeightEstimator::MajorityWeightEstimator(const Model& model,
                                                 const CollectiveOptions& options)
    : model_(&model), options_(options) {
  counts_.assign(static_cast<size_t>(model.num_labels()) * model.num_labels(), 0.0);
}

absl::Status MajorityWeightEstimator::Add(const Sentence& sentence) {
  if (sentence.new_document) EndDocument();
  if (!sentence.has_labels()) {
    return ErrorAt(sentence, 0, "expected gold labels to estimate MAJORITY weights, found none");
  }
  for (int t = 0; t < sentence.size(); ++t) {
    const int y = model_->LabelId(sentence.labels[t]);
    if (y < 0) {
      return ErrorAt(
          sentence, t,
          absl::StrCat("expected a label of the model, found '", sentence.labels[t], "'"));
    }
    const std::string& word = sentence.word(t);
    if (options_.capitalised_only && !IsCapitalised(word)) continue;
    if (static_cast<int64_t>(document_.size()) >= options_.max_document_tokens) EndDocument();
    document_.emplace_back(CollectiveWordKey(word, options_.key), y);
  }
  return absl::OkStatus();
}

void MajorityWeightEstimator::EndDocument() {
  const int m = model_->num_labels();
  // Group the occurrences by key (stable, so the order inside a key is the document's).
  std::stable_sort(document_.begin(), document_.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<int> counts(m);
  for (size_t i = 0; i < document_.size();) {
    size_t j = i;
    while (j < document_.size() && document_[j].first == document_[i].first) ++j;
    if (j - i >= 2) {
      std::fill(counts.begin(), counts.end(), 0);
      for (size_t k = i; k < j; ++k) ++counts[document_[k].second];
      const int a = CliquePotential::MajorityLabel(counts);
      for (int y = 0; y < m; ++y) counts_[static_cast<size_t>(a) * m + y] += counts[y];
      ++cliques_;
    }
    i = j;
  }
  document_.clear();
}

absl::StatusOr<std::vector<double>> MajorityWeightEstimator::Finish() {
  EndDocument();
  if (cliques_ == 0) {
    return absl::FailedPreconditionError(
        "no word occurs twice in a document of the training data: no MAJORITY weights");
  }
  const int m = model_->num_labels();
  std::vector<double> w(static_cast<size_t>(m) * m);
  for (int a = 0; a < m; ++a) {
    const double* row = &counts_[static_cast<size_t>(a) * m];
    // P(y | a) / max_y' P(y' | a) - 1 = (c_ay + 1) / (max_y' c_ay' + 1) - 1, in (-1, 0].
    const double top = *std::max_element(row, row + m);
    for (int y = 0; y < m; ++y) {
      w[static_cast<size_t>(a) * m + y] = (row[y] + 1.0) / (top + 1.0) - 1.0;
    }
  }
  return w;
}

}  // namespace chaintag
