// The one table of decode-request fields (name, type, default, range, help). The `tag` command's
// options, the Python keyword arguments and their docstring, and the service's JSON fields are
// all made from it; defaults are read from a default-constructed DecodeRequest/CollectiveOptions,
// so each is written once (in tagging.h). RequestBuilder turns named values into a checked
// DecodeRequest for the last model of a pipeline.
#ifndef CHAINTAG_TAGGING_REQUEST_TABLE_H_
#define CHAINTAG_TAGGING_REQUEST_TABLE_H_

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "chaintag/corpus.h"
#include "chaintag/model.h"
#include "chaintag/tagging.h"

namespace chaintag {

enum class RequestFieldType {
  kBool,
  kInt,         // int64_t within [min, max]
  kNumber,      // double within [min, max] (min exclusive when min_exclusive)
  kChoice,      // one of `choices` ("a|b|c")
  kText,        // free text (a file name)
  kCounts,      // label-count specs in the --count grammar ('chunk:NP=..3'), several allowed
  kScoreRange,  // A..B; either end may be open
  kLabelings,   // labelings (lists of labels) to exclude
  kLabels,      // one label per token or "_" (forced labels)
};

// Who offers a field (a bit set).
enum RequestSurface : unsigned { kCliSurface = 1, kPythonSurface = 2, kJsonSurface = 4 };

struct ScoreBounds {
  double lower = 0, upper = 0;  // -inf / +inf: open ends
};
using Labelings = std::vector<std::vector<std::string>>;
using RequestValue = std::variant<bool, int64_t, double, std::string, std::vector<std::string>,
                                  ScoreBounds, Labelings>;

// Where field values land while a request is being built.
struct RequestDraft {
  DecodeRequest request;
  CollectiveOptions collective;
  std::optional<std::string> collective_potential;  // set: collective tagging
  std::string collective_train;
  std::vector<std::string> count_specs;
  Labelings exclude;
  std::vector<std::string> forced;
  std::optional<bool> probability;  // unset: whenever the model has probabilities
};

struct RequestField {
  std::string_view name;    // Python keyword and JSON field
  std::string_view option;  // `tag` option without "--" ("" when the command line lacks it)
  RequestFieldType type;
  unsigned surfaces;        // RequestSurface bits
  std::string_view group;   // "decoding" or "collective" (help sections)
  double min = 0, max = 0;  // kInt/kNumber: inclusive range (min exclusive if min_exclusive)
  bool min_exclusive = false;
  std::string_view choices;  // kChoice
  std::string_view help;
  // The field's value in a draft (its default in a default draft); nullopt: unset.
  std::optional<RequestValue> (*get)(const RequestDraft&) = nullptr;
  // Stores a value already checked against type, range and choices.
  void (*set)(RequestValue value, RequestDraft* draft) = nullptr;

  bool on(RequestSurface s) const { return (surfaces & s) != 0; }
  // The field as a surface spells it in messages: "--min-distance" or "min_distance".
  std::string Spelling(RequestSurface s) const;
  // The default as a user would write it ("" when the field has none).
  std::string DefaultText() const;
};

// Every field, in help order.
absl::Span<const RequestField> RequestFields();
// By name ("min_distance") or option ("min-distance"); nullptr if none.
const RequestField* FindRequestField(std::string_view name);
// A value from its textual form (command line, JSON string): "3", "0.5", "true", "A..B",
// an exclusion line for kLabelings, space-separated labels for kLabels.
absl::StatusOr<RequestValue> ParseRequestValue(const RequestField& field, std::string_view text);
// "name=default  help" lines for the fields a surface offers (Python docstrings).
std::string RequestFieldsHelp(RequestSurface surface, int indent = 2, int width = 21);

// Refuses what `model` cannot decode (Model::Capabilities): the error names the first refused
// field as `surface` spells it and what the model offers instead. `exclusions`: labelings to
// avoid are given (the request's flag or per sentence).
absl::Status CheckSupported(const Model& model, const DecodeRequest& request, bool exclusions,
                            RequestSurface surface);

// Named values -> a checked DecodeRequest for the last model. Errors name the field as
// `surface` spells it.
class RequestBuilder {
 public:
  RequestBuilder(const Model& last, RequestSurface surface) : last_(&last), surface_(surface) {}
  // Type, range and choice checks; an int is accepted where a number is expected, text where a
  // kCounts list or a kScoreRange is expected.
  absl::Status Set(std::string_view name, RequestValue value);
  absl::Status SetText(std::string_view name, std::string_view text);
  bool has(std::string_view name) const { return given_.count(std::string(name)) > 0; }
  // Parses counts against the model's labels, reads collective_train (labelled corpus, read
  // with `collective_reader` plus the model's input options, its format replaced by
  // `collective_format` when given), checks what the model supports, then
  // DecodeRequest::Validate and CheckCollectiveRequest. Errors are the user's request, except
  // those reading collective_train (then *read_error is set, if given).
  absl::StatusOr<DecodeRequest> Build(const ReaderOptions& collective_reader = ReaderOptions(),
                                      bool* read_error = nullptr,
                                      std::optional<CorpusFormat> collective_format = std::nullopt);
  const Labelings& exclude() const { return draft_.exclude; }
  const std::vector<std::string>& forced() const { return draft_.forced; }

 private:
  const Model* last_;
  RequestSurface surface_;
  RequestDraft draft_;
  std::map<std::string, bool> given_;
};

}  // namespace chaintag

#endif  // CHAINTAG_TAGGING_REQUEST_TABLE_H_
