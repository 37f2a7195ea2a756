// The decode-request table and RequestBuilder (request_table.h).
#include "tagging/request_table.h"

#include <climits>
#include <cmath>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "collective/collective.h"
#include "decode/latent.h"
#include "string_view_compat.h"

namespace chaintag {

namespace {

using Get = std::optional<RequestValue> (*)(const RequestDraft&);
using Set = void (*)(RequestValue, RequestDraft*);

constexpr unsigned kAll = kCliSurface | kPythonSurface | kJsonSurface;
constexpr double kIntMax = INT_MAX;

std::string_view LatentDecoderName(LatentDecoder d) {
  switch (d) {
    case LatentDecoder::kLdi:
      return "ldi";
    case LatentDecoder::kBhp:
      return "bhp";
    case LatentDecoder::kMarginal:
      return "marginal";
  }
  return "ldi";
}

int64_t AsInt(const RequestValue& v) { return std::get<int64_t>(v); }
double AsNumber(const RequestValue& v) { return std::get<double>(v); }
std::string AsText(RequestValue v) { return std::get<std::string>(std::move(v)); }

// The table. Defaults come from the structs (get on a default draft), never from here.
const std::vector<RequestField>& Table() {
  static const std::vector<RequestField>* table = new std::vector<RequestField>{
      {"kbest", "kbest", RequestFieldType::kInt, kAll, "decoding", 0, kIntMax, false, "",
       "the K best distinct labelings, best first",
       [](const RequestDraft& d) -> std::optional<RequestValue> {
         return int64_t{d.request.kbest};
       },
       [](RequestValue v, RequestDraft* d) { d->request.kbest = static_cast<int>(AsInt(v)); }},
      {"diverse", "diverse", RequestFieldType::kInt, kAll, "decoding", 0, kIntMax, false, "",
       "diverse K-best: each labeling at distance >= min-distance from all earlier ones",
       [](const RequestDraft& d) -> std::optional<RequestValue> {
         return int64_t{d.request.diverse};
       },
       [](RequestValue v, RequestDraft* d) { d->request.diverse = static_cast<int>(AsInt(v)); }},
      {"min_distance", "min-distance", RequestFieldType::kInt, kAll, "decoding", 1, kIntMax, false,
       "", "diverse K-best: minimum distance D",
       [](const RequestDraft& d) -> std::optional<RequestValue> {
         return int64_t{d.request.min_distance};
       },
       [](RequestValue v, RequestDraft* d) {
         d->request.min_distance = static_cast<int>(AsInt(v));
       }},
      {"diversity", "diversity", RequestFieldType::kChoice, kAll, "decoding", 0, 0, false,
       "hamming|chunks", "diverse K-best distance: hamming (tokens) or chunks (chunks not shared)",
       [](const RequestDraft& d) -> std::optional<RequestValue> {
         return std::string(d.request.chunk_diversity ? "chunks" : "hamming");
       },
       [](RequestValue v, RequestDraft* d) { d->request.chunk_diversity = AsText(v) == "chunks"; }},
      {"counts", "count", RequestFieldType::kCounts, kAll, "decoding", 0, 0, false, "",
       "label-count constraint, repeatable: 'B-NP=2..4', 'NN,NNS=..3', 'VB*=1..', 'chunk:NP=3' "
       "(Python: also a dict {'chunk:NP': (1, 3), 'B-NP': 2}, None for an open bound)",
       [](const RequestDraft& d) -> std::optional<RequestValue> {
         if (d.count_specs.empty()) return std::nullopt;
         return d.count_specs;
       },
       [](RequestValue v, RequestDraft* d) {
         for (std::string& s : std::get<std::vector<std::string>>(v))
           d->count_specs.push_back(std::move(s));
       }},
      {"score_range", "score-range", RequestFieldType::kScoreRange, kAll, "decoding", 0, 0, false,
       "",
       "best labeling whose model score lies in A..B (use --score-range=A..B for negative A; "
       "Python: a pair, None for an open end)",
       [](const RequestDraft& d) -> std::optional<RequestValue> {
         if (!d.request.score_range) return std::nullopt;
         return ScoreBounds{d.request.score_lower, d.request.score_upper};
       },
       [](RequestValue v, RequestDraft* d) {
         const ScoreBounds b = std::get<ScoreBounds>(v);
         d->request.score_range = true;
         d->request.score_lower = b.lower;
         d->request.score_upper = b.upper;
       }},
      {"score_resolution", "score-resolution", RequestFieldType::kNumber, kAll, "decoding", 0,
       HUGE_VAL, true, "",
       "score quantisation step for score-range (coarsened per sentence to fit score-max-states; "
       "jsonl reports the step used)",
       [](const RequestDraft& d) -> std::optional<RequestValue> {
         return d.request.score_resolution;
       },
       [](RequestValue v, RequestDraft* d) { d->request.score_resolution = AsNumber(v); }},
      {"score_max_states", "score-max-states", RequestFieldType::kInt, kAll, "decoding", 2,
       DecodeRequest::kMaxScoreStates, false, "",
       "score-range: most quantised score states per position (time and memory grow with it)",
       [](const RequestDraft& d) -> std::optional<RequestValue> {
         return int64_t{d.request.score_max_states};
       },
       [](RequestValue v, RequestDraft* d) {
         d->request.score_max_states = static_cast<int>(AsInt(v));
       }},
      {"exclude", "exclude", RequestFieldType::kLabelings, kAll, "decoding", 0, 0, false, "",
       "labelings that must not be returned (command line: a file with one line per sentence, "
       "labelings separated by '|'; Python: a list of labelings)",
       [](const RequestDraft& d) -> std::optional<RequestValue> {
         if (!d.request.exclusions) return std::nullopt;
         return d.exclude;
       },
       [](RequestValue v, RequestDraft* d) {
         d->request.exclusions = true;
         d->exclude = std::get<Labelings>(std::move(v));
       }},
      {"forced_column", "forced-column", RequestFieldType::kInt, kCliSurface, "decoding", 1,
       DecodeRequest::kMaxColumns, false, "",
       "corpus input: 1-based column holding per token a label the last model must give, or _ "
       "(free)",
       [](const RequestDraft& d) -> std::optional<RequestValue> {
         if (d.request.forced_column < 0) return std::nullopt;
         return int64_t{d.request.forced_column + 1};
       },
       [](RequestValue v, RequestDraft* d) {
         d->request.forced_column = static_cast<int>(AsInt(v)) - 1;
       }},
      {"forced", "", RequestFieldType::kLabels, kPythonSurface | kJsonSurface, "decoding", 0, 0,
       false, "", "labels fixed at positions: {3: 'B-NP'}, or a label or None per token",
       [](const RequestDraft& d) -> std::optional<RequestValue> {
         if (d.forced.empty()) return std::nullopt;
         return d.forced;
       },
       [](RequestValue v, RequestDraft* d) {
         d->forced = std::get<std::vector<std::string>>(std::move(v));
       }},
      {"marginals", "marginals", RequestFieldType::kBool, kAll, "decoding", 0, 0, false, "",
       "per-token label probabilities of the last model (command line: jsonl output; Python: "
       "Sentence.marginals, a numpy array M x N)",
       [](const RequestDraft& d) -> std::optional<RequestValue> { return d.request.marginals; },
       [](RequestValue v, RequestDraft* d) { d->request.marginals = std::get<bool>(v); }},
      // Written output only: Python's marginals are the whole M x N array.
      {"marginals_min", "marginals-min", RequestFieldType::kNumber, kCliSurface | kJsonSurface,
       "decoding", 0, 1, false, "",
       "marginals: omit labels whose probability is below this (0 lists every label)",
       [](const RequestDraft& d) -> std::optional<RequestValue> { return d.request.marginals_min; },
       [](RequestValue v, RequestDraft* d) { d->request.marginals_min = AsNumber(v); }},
      // The command line computes P(y|x) whenever its output shows it.
      {"probability", "", RequestFieldType::kBool, kPythonSurface | kJsonSurface, "decoding", 0, 0,
       false, "", "compute P(y|x) of each solution (default: when the model has probabilities)",
       [](const RequestDraft& d) -> std::optional<RequestValue> {
         if (!d.probability.has_value()) return std::nullopt;
         return *d.probability;
       },
       [](RequestValue v, RequestDraft* d) { d->probability = std::get<bool>(v); }},
      {"max_memory_mb", "decode-memory-mb", RequestFieldType::kInt, kAll, "decoding", 1, kIntMax,
       false, "",
       "memory one sentence's constrained decoding may use (per thread); a sentence needing more "
       "gets status too_large",
       [](const RequestDraft& d) -> std::optional<RequestValue> {
         return int64_t{d.request.max_memory_bytes >> 20};
       },
       [](RequestValue v, RequestDraft* d) { d->request.max_memory_bytes = AsInt(v) << 20; }},
      {"latent_decoder", "latent-decoder", RequestFieldType::kChoice, kAll, "decoding", 0, 0, false,
       "ldi|bhp|marginal",
       "latent-dynamic models (train --objective ldcrf): ldi (most probable labeling, certified "
       "exact unless ldi-max-paths stops the search), bhp (labeling of the best hidden path) or "
       "marginal (per token the label with the largest marginal)",
       [](const RequestDraft& d) -> std::optional<RequestValue> {
         return std::string(LatentDecoderName(d.request.latent_decoder));
       },
       [](RequestValue v, RequestDraft* d) {
         d->request.latent_decoder = *ParseLatentDecoder(AsText(v));
       }},
      {"ldi_max_paths", "ldi-max-paths", RequestFieldType::kInt, kAll, "decoding", 1,
       static_cast<double>(LdiOptions::kMaxPaths), false, "",
       "latent models, ldi: most hidden paths the search enumerates per sentence (jsonl reports "
       "exact and hidden_paths)",
       [](const RequestDraft& d) -> std::optional<RequestValue> { return d.request.ldi_max_paths; },
       [](RequestValue v, RequestDraft* d) { d->request.ldi_max_paths = AsInt(v); }},
      {"bb_max_nodes", "bb-max-nodes", RequestFieldType::kInt, kAll, "decoding", 1,
       static_cast<double>(DecodeRequest::kMaxBbNodes), false, "",
       "lmsbn models: nodes one sentence's branch-and-bound search may expand (at least the "
       "sentence length; 1 = the greedy labeling); a search stopped early reports optimal: false",
       [](const RequestDraft& d) -> std::optional<RequestValue> { return d.request.bb_max_nodes; },
       [](RequestValue v, RequestDraft* d) { d->request.bb_max_nodes = AsInt(v); }},
      {"bb_bound", "bb-bound", RequestFieldType::kNumber, kAll, "decoding", 0, HUGE_VAL, true, "",
       "lmsbn models: initial cost bound S; only labelings costing less are found (default: the "
       "greedy labeling's cost)",
       [](const RequestDraft& d) -> std::optional<RequestValue> {
         if (std::isinf(d.request.bb_bound)) return std::nullopt;
         return d.request.bb_bound;
       },
       [](RequestValue v, RequestDraft* d) { d->request.bb_bound = AsNumber(v); }},
      {"collective", "collective", RequestFieldType::kChoice, kAll, "collective", 0, 0, false,
       "potts|majority",
       "decode each document jointly, joining repeated words by cliques: potts (lambda = c/n) or "
       "majority (W estimated from collective-train)",
       [](const RequestDraft& d) -> std::optional<RequestValue> {
         if (!d.collective_potential.has_value()) return std::nullopt;
         return *d.collective_potential;
       },
       [](RequestValue v, RequestDraft* d) { d->collective_potential = AsText(v); }},
      {"collective_key", "collective-key", RequestFieldType::kChoice, kAll, "collective", 0, 0,
       false, "form|lower", "words that share a clique: form (as written) or lower (lower case)",
       [](const RequestDraft& d) -> std::optional<RequestValue> {
         return std::string(CollectiveKeyName(d.collective.key));
       },
       [](RequestValue v, RequestDraft* d) { d->collective.key = *ParseCollectiveKey(AsText(v)); }},
      {"collective_capitalised", "collective-capitalised", RequestFieldType::kBool, kAll,
       "collective", 0, 0, false, "",
       "only tokens whose first character is a capital letter join cliques",
       [](const RequestDraft& d) -> std::optional<RequestValue> {
         return d.collective.capitalised_only;
       },
       [](RequestValue v, RequestDraft* d) { d->collective.capitalised_only = std::get<bool>(v); }},
      {"collective_unseen", "collective-unseen", RequestFieldType::kBool, kAll, "collective", 0, 0,
       false, "", "only words the model did not see in training join cliques",
       [](const RequestDraft& d) -> std::optional<RequestValue> {
         return d.collective.unseen_only;
       },
       [](RequestValue v, RequestDraft* d) { d->collective.unseen_only = std::get<bool>(v); }},
      {"collective_iterations", "collective-iterations", RequestFieldType::kInt, kAll, "collective",
       1, CollectiveDecodeOptions::kMaxIterations, false, "",
       "message-passing rounds at most (stops earlier when no label changes)",
       [](const RequestDraft& d) -> std::optional<RequestValue> {
         return int64_t{d.collective.iterations};
       },
       [](RequestValue v, RequestDraft* d) {
         d->collective.iterations = static_cast<int>(AsInt(v));
       }},
      {"collective_lambda", "collective-lambda", RequestFieldType::kNumber, kAll, "collective", 0,
       1e6, false, "",
       "clique strength c: Potts lambda = c/n for a clique of n words; majority: c * W",
       [](const RequestDraft& d) -> std::optional<RequestValue> { return d.collective.c; },
       [](RequestValue v, RequestDraft* d) { d->collective.c = AsNumber(v); }},
      // A file on the machine that decodes: never a service request's (docs/serve.md).
      {"collective_train", "collective-train", RequestFieldType::kText,
       kCliSurface | kPythonSurface, "collective", 0, 0, false, "",
       "majority: labelled corpus (documents as above) to estimate W from",
       [](const RequestDraft& d) -> std::optional<RequestValue> {
         if (d.collective_train.empty()) return std::nullopt;
         return d.collective_train;
       },
       [](RequestValue v, RequestDraft* d) { d->collective_train = AsText(v); }},
      {"collective_max_clique", "collective-max-clique", RequestFieldType::kInt, kAll, "collective",
       2, kMaxCliqueNodes, false, "", "cliques larger than this are split into consecutive pieces",
       [](const RequestDraft& d) -> std::optional<RequestValue> {
         return int64_t{d.collective.max_clique_nodes};
       },
       [](RequestValue v, RequestDraft* d) {
         d->collective.max_clique_nodes = static_cast<int>(AsInt(v));
       }},
      {"collective_max_sentences", "collective-max-sentences", RequestFieldType::kInt, kAll,
       "collective", 1, CollectiveOptions::kMaxDocumentSentencesCap, false, "",
       "a document with more sentences is tagged sentence by sentence (with a warning)",
       [](const RequestDraft& d) -> std::optional<RequestValue> {
         return int64_t{d.collective.max_document_sentences};
       },
       [](RequestValue v, RequestDraft* d) {
         d->collective.max_document_sentences = static_cast<int>(AsInt(v));
       }},
      {"collective_max_tokens", "collective-max-tokens", RequestFieldType::kInt, kAll, "collective",
       1, static_cast<double>(CollectiveOptions::kMaxDocumentTokensCap), false, "",
       "a document with more tokens is tagged sentence by sentence (with a warning)",
       [](const RequestDraft& d) -> std::optional<RequestValue> {
         return d.collective.max_document_tokens;
       },
       [](RequestValue v, RequestDraft* d) { d->collective.max_document_tokens = AsInt(v); }},
  };
  return *table;
}

absl::Status ReadAll(const std::string& path, const ReaderOptions& options,
                     MajorityWeightEstimator* estimator) {
  auto reader = OpenSentenceReader(path, options);
  if (!reader.ok()) return reader.status();
  while (true) {
    auto next = (*reader)->Next();
    if (!next.ok()) return next.status();
    if (!next->has_value()) return absl::OkStatus();
    if (absl::Status s = estimator->Add(**next); !s.ok()) return s;
  }
}

std::string NumberText(double x) {
  if (x == std::floor(x) && std::fabs(x) < 1e15) return absl::StrCat(static_cast<int64_t>(x));
  return absl::StrCat(x);
}

std::string ValueText(const RequestValue& v) {
  struct Visitor {
    std::string operator()(bool b) const { return b ? "true" : "false"; }
    std::string operator()(int64_t i) const { return absl::StrCat(i); }
    std::string operator()(double x) const { return absl::StrCat(x); }
    std::string operator()(const std::string& s) const { return s; }
    std::string operator()(const std::vector<std::string>& l) const {
      return absl::StrJoin(l, " ");
    }
    std::string operator()(const ScoreBounds& b) const {
      return absl::StrCat(std::isinf(b.lower) ? "" : NumberText(b.lower), "..",
                          std::isinf(b.upper) ? "" : NumberText(b.upper));
    }
    std::string operator()(const Labelings& l) const {
      std::vector<std::string> parts;
      for (const auto& labeling : l) parts.push_back(absl::StrJoin(labeling, " "));
      return absl::StrJoin(parts, " | ");
    }
  };
  return std::visit(Visitor(), v);
}

// Range of a number field, in the words DecodeRequest::Validate uses.
absl::Status CheckRange(const RequestField& f, double x, const std::string& name) {
  const bool below = f.min_exclusive ? !(x > f.min) : !(x >= f.min);
  if (!below && x <= f.max && !std::isnan(x)) return absl::OkStatus();
  if (f.min_exclusive) {
    return absl::InvalidArgumentError(
        absl::StrCat(name, " must be a finite number > ", NumberText(f.min)));
  }
  if (f.max >= kIntMax && x < f.min) {
    return absl::InvalidArgumentError(absl::StrCat(name, " must be >= ", NumberText(f.min)));
  }
  return absl::InvalidArgumentError(
      absl::StrCat(name, " must be between ", NumberText(f.min), " and ", NumberText(f.max)));
}

}  // namespace

std::string RequestField::Spelling(RequestSurface s) const {
  if (s == kCliSurface && !option.empty()) return absl::StrCat("--", ToAbsl(option));
  return std::string(name);
}

std::string RequestField::DefaultText() const {
  std::optional<RequestValue> v = get(RequestDraft());
  return v.has_value() ? ValueText(*v) : "";
}

absl::Span<const RequestField> RequestFields() { return Table(); }

const RequestField* FindRequestField(std::string_view name) {
  for (const RequestField& f : Table()) {
    if (f.name == name || (!f.option.empty() && f.option == name)) return &f;
  }
  return nullptr;
}

absl::StatusOr<RequestValue> ParseRequestValue(const RequestField& field, std::string_view text) {
  const absl::string_view t = ToAbsl(text);
  switch (field.type) {
    case RequestFieldType::kBool:
      if (t == "true" || t == "1") return RequestValue(true);
      if (t == "false" || t == "0") return RequestValue(false);
      return absl::InvalidArgumentError(absl::StrCat("expected true or false, found '", t, "'"));
    case RequestFieldType::kInt: {
      int64_t x;
      if (!absl::SimpleAtoi(t, &x))
        return absl::InvalidArgumentError(absl::StrCat("expected an integer, found '", t, "'"));
      return RequestValue(x);
    }
    case RequestFieldType::kNumber: {
      double x;
      if (!absl::SimpleAtod(t, &x) || std::isnan(x))
        return absl::InvalidArgumentError(absl::StrCat("expected a number, found '", t, "'"));
      return RequestValue(x);
    }
    case RequestFieldType::kChoice:
    case RequestFieldType::kText:
      return RequestValue(std::string(text));
    case RequestFieldType::kCounts:
      return RequestValue(std::vector<std::string>{std::string(text)});
    case RequestFieldType::kScoreRange: {
      ScoreBounds b;
      if (absl::Status s = ParseScoreRange(text, &b.lower, &b.upper); !s.ok()) return s;
      return RequestValue(b);
    }
    case RequestFieldType::kLabelings: {
      auto labelings = ParseExclusionLine(text);
      if (!labelings.ok()) return labelings.status();
      return RequestValue(*std::move(labelings));
    }
    case RequestFieldType::kLabels: {
      std::vector<std::string> labels =
          absl::StrSplit(t, absl::ByAnyChar(" \t"), absl::SkipEmpty());
      return RequestValue(std::move(labels));
    }
  }
  return absl::InternalError("unknown field type");
}

std::string RequestFieldsHelp(RequestSurface surface, int indent, int width) {
  constexpr size_t kLineWidth = 99;
  std::string out;
  for (const RequestField& f : Table()) {
    if (!f.on(surface)) continue;
    std::string head = surface == kCliSurface ? f.Spelling(surface) : std::string(f.name);
    std::string d = f.DefaultText();
    if (surface == kPythonSurface && f.type == RequestFieldType::kBool) {
      d = d == "true" ? "True" : "False";
    } else if (!d.empty() && f.type == RequestFieldType::kChoice) {
      d = absl::StrCat("\"", d, "\"");
    }
    if (!d.empty()) absl::StrAppend(&head, "=", d);
    std::string line = std::string(indent, ' ') + head;
    const std::string margin(indent + width, ' ');
    if (static_cast<int>(head.size()) + 1 > width) {
      absl::StrAppend(&out, line, "\n");
      line = margin;
    } else {
      line.append(width - head.size(), ' ');
    }
    std::string help(f.help);
    if (f.type == RequestFieldType::kChoice) absl::StrAppend(&help, " [", ToAbsl(f.choices), "]");
    bool first = true;
    for (absl::string_view word : absl::StrSplit(help, ' ', absl::SkipEmpty())) {
      if (!first && line.size() + 1 + word.size() > kLineWidth) {
        absl::StrAppend(&out, line, "\n");
        line = margin;
        first = true;
      }
      absl::StrAppend(&line, first ? "" : " ", word);
      first = false;
    }
    absl::StrAppend(&out, line, "\n");
  }
  return out;
}

absl::Status RequestBuilder::Set(std::string_view name, RequestValue value) {
  const RequestField* f = FindRequestField(name);
  if (f == nullptr || !f->on(surface_)) {
    return absl::InvalidArgumentError(absl::StrCat("unknown request field '", ToAbsl(name), "'"));
  }
  const std::string spelled = f->Spelling(surface_);
  auto wrong = [&](std::string_view expected) {
    return absl::InvalidArgumentError(absl::StrCat(spelled, ": expected ", ToAbsl(expected)));
  };
  if (std::holds_alternative<std::string>(value) && f->type != RequestFieldType::kChoice &&
      f->type != RequestFieldType::kText) {
    auto parsed = ParseRequestValue(*f, std::get<std::string>(value));
    if (!parsed.ok())
      return absl::InvalidArgumentError(absl::StrCat(spelled, ": ", parsed.status().message()));
    value = *std::move(parsed);
  }
  switch (f->type) {
    case RequestFieldType::kBool:
      if (!std::holds_alternative<bool>(value)) return wrong("true or false");
      break;
    case RequestFieldType::kInt:
      if (!std::holds_alternative<int64_t>(value)) return wrong("an integer");
      if (absl::Status s = CheckRange(*f, static_cast<double>(std::get<int64_t>(value)), spelled);
          !s.ok()) {
        return s;
      }
      break;
    case RequestFieldType::kNumber:
      if (std::holds_alternative<int64_t>(value))
        value = static_cast<double>(std::get<int64_t>(value));
      if (!std::holds_alternative<double>(value)) return wrong("a number");
      if (absl::Status s = CheckRange(*f, std::get<double>(value), spelled); !s.ok()) return s;
      break;
    case RequestFieldType::kChoice: {
      if (!std::holds_alternative<std::string>(value)) return wrong("text");
      const std::vector<std::string> choices = absl::StrSplit(ToAbsl(f->choices), '|');
      bool known = false;
      for (const std::string& c : choices) known |= c == std::get<std::string>(value);
      if (!known) {
        return absl::InvalidArgumentError(absl::StrCat(spelled, ": expected ",
                                                       absl::StrJoin(choices, " or "), ", found '",
                                                       std::get<std::string>(value), "'"));
      }
      break;
    }
    case RequestFieldType::kText:
      if (!std::holds_alternative<std::string>(value)) return wrong("text");
      break;
    case RequestFieldType::kCounts:
    case RequestFieldType::kLabels:
      if (!std::holds_alternative<std::vector<std::string>>(value)) return wrong("a list of text");
      break;
    case RequestFieldType::kScoreRange: {
      if (!std::holds_alternative<ScoreBounds>(value)) return wrong("a range A..B");
      const ScoreBounds b = std::get<ScoreBounds>(value);
      if (std::isnan(b.lower) || std::isnan(b.upper) || !(b.lower <= b.upper)) {
        return absl::InvalidArgumentError(
            absl::StrCat(spelled, ": expected A..B with A <= B, finite numbers or open ends"));
      }
      break;
    }
    case RequestFieldType::kLabelings:
      if (!std::holds_alternative<Labelings>(value)) return wrong("a list of labelings");
      break;
  }
  given_[std::string(f->name)] = true;
  f->set(std::move(value), &draft_);
  return absl::OkStatus();
}

absl::Status RequestBuilder::SetText(std::string_view name, std::string_view text) {
  return Set(name, RequestValue(std::string(text)));
}

absl::Status CheckSupported(const Model& model, const DecodeRequest& request, bool exclusions,
                            RequestSurface surface) {
  const ModelCapabilities c = model.Capabilities();
  auto name = [&](std::string_view field) { return FindRequestField(field)->Spelling(surface); };
  const std::string_view forced = surface == kCliSurface ? "forced_column" : "forced";
  // In the order the refusal names them; `given` is whether the request asks for it.
  const struct {
    std::string_view field;
    bool supported;
    bool given;
  } features[] = {
      {"kbest", c.kbest, request.kbest > 0},
      {"counts", c.counts, !request.counts.empty()},
      {"score_range", c.score_range, request.score_range},
      {"diverse", c.diverse, request.diverse > 0},
      {forced, c.forced_labels, request.forced_column >= 0},
      {"exclude", c.exclusions, exclusions},
      {"marginals", c.marginals, request.marginals},
      {"probability", c.probabilities, request.probability},
  };
  for (const auto& refused : features) {
    if (refused.supported || !refused.given) continue;
    std::vector<std::string> offered;
    for (const auto& f : features) {
      if (f.supported && f.field != "probability") offered.push_back(name(f.field));
    }
    std::string use;
    for (size_t i = 0; i < offered.size(); ++i) {
      absl::StrAppend(&use, i == 0 ? "" : i + 1 == offered.size() ? " or " : ", ", offered[i]);
    }
    return absl::InvalidArgumentError(
        absl::StrCat(refused.field == "probability" ? "probabilities" : name(refused.field),
                     " is not supported on ", c.description, "; use ", use));
  }
  if (c.latent_decoder && request.kbest > 0 && request.latent_decoder != LatentDecoder::kLdi) {
    return absl::InvalidArgumentError(absl::StrCat(name("kbest"),
                                                   " on a latent-dynamic model lists the most "
                                                   "probable labelings with ",
                                                   name("latent_decoder"), " ldi only"));
  }
  return absl::OkStatus();
}

absl::StatusOr<DecodeRequest> RequestBuilder::Build(const ReaderOptions& collective_reader,
                                                    bool* read_error,
                                                    std::optional<CorpusFormat> collective_format) {
  DecodeRequest q = draft_.request;
  const Model& last = *last_;
  for (const std::string& spec : draft_.count_specs) {
    auto parsed = ParseCountConstraint(spec, last.labels());
    if (!parsed.ok()) return parsed.status();
    q.counts.push_back(*std::move(parsed));
  }
  // Asked for explicitly on a model without probabilities: refused by CheckSupported, not dropped.
  q.probability = draft_.probability.value_or(last.Capabilities().probabilities);
  if (absl::Status s = CheckSupported(last, q, q.exclusions, surface_); !s.ok()) return s;
  if (!draft_.collective_potential.has_value()) {
    // A collective option alone would be ignored silently.
    for (const RequestField& f : Table()) {
      if (f.group == "collective" && has(f.name)) {
        return absl::InvalidArgumentError(absl::StrCat(
            f.Spelling(surface_), " needs ", FindRequestField("collective")->Spelling(surface_),
            " (", ToAbsl(FindRequestField("collective")->choices), ")"));
      }
    }
  } else {
    CollectiveOptions c = draft_.collective;
    auto kind = ParseCollectivePotentialKind(*draft_.collective_potential);
    if (!kind.ok()) return kind.status();
    c.potential = *kind;
    const std::string train = FindRequestField("collective_train")->Spelling(surface_);
    if (c.potential == CollectivePotentialKind::kMajority) {
      if (draft_.collective_train.empty()) {
        return absl::InvalidArgumentError(
            absl::StrCat(FindRequestField("collective")->Spelling(surface_), " majority needs ",
                         train, " FILE"));
      }
      ReaderOptions options = collective_reader;
      last.input_options().ApplyTo(&options);
      if (collective_format) options.format = *collective_format;
      options.split_long_sentences = false;
      MajorityWeightEstimator estimator(last, c);
      absl::Status read = ReadAll(draft_.collective_train, options, &estimator);
      if (!read.ok()) {
        if (read_error != nullptr) *read_error = true;
        return read;
      }
      absl::StatusOr<std::vector<double>> w = estimator.Finish();
      if (!w.ok()) {
        if (read_error != nullptr) *read_error = true;
        return w.status();
      }
      c.majority_weights = *std::move(w);
    } else if (!draft_.collective_train.empty()) {
      return absl::InvalidArgumentError(absl::StrCat(
          train, " is for ", FindRequestField("collective")->Spelling(surface_), " majority"));
    }
    q.collective = std::move(c);
    if (absl::Status s = CheckCollectiveRequest(last, q); !s.ok()) return s;
  }
  if (absl::Status s = q.Validate(); !s.ok()) return s;
  return q;
}

}  // namespace chaintag
