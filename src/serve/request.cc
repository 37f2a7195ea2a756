#include "serve/request.h"

#include <cmath>
#include <functional>
#include <limits>
#include <optional>
#include <sstream>
#include <utility>

#include "absl/strings/escaping.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "chaintag/text.h"
#include "cli/tag_output.h"
#include "json_document.h"

namespace chaintag::serve {

namespace {

using nlohmann::json;

// Nesting a request needs: body, sentences, sentence object, tokens, columns of a token.
constexpr JsonLimits kRequestJsonLimits{8, 4000000};

absl::Status Bad(absl::string_view field, absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat(field, ": ", what));
}

absl::Status Expected(absl::string_view field, absl::string_view expected, const json& found) {
  return Bad(field, absl::StrCat("expected ", expected, ", found ", JsonTypeName(found)));
}

absl::StatusOr<int64_t> Integer(absl::string_view field, const json& v, int64_t lo, int64_t hi) {
  if (!v.is_number_integer() && !v.is_number_unsigned()) return Expected(field, "an integer", v);
  // Unsigned values above int64 range compare as out of range rather than wrapping.
  if (v.is_number_unsigned() && v.get<uint64_t>() > static_cast<uint64_t>(hi)) {
    return Bad(field, absl::StrCat("expected an integer from ", lo, " to ", hi, ", found ",
                                   v.get<uint64_t>()));
  }
  const int64_t x = v.get<int64_t>();
  if (x < lo || x > hi) {
    return Bad(field, absl::StrCat("expected an integer from ", lo, " to ", hi, ", found ", x));
  }
  return x;
}

absl::StatusOr<double> Number(absl::string_view field, const json& v) {
  if (!v.is_number()) return Expected(field, "a number", v);
  return v.get<double>();
}

absl::StatusOr<bool> Bool(absl::string_view field, const json& v) {
  if (!v.is_boolean()) return Expected(field, "true or false", v);
  return v.get<bool>();
}

absl::StatusOr<std::string> String(absl::string_view field, const json& v) {
  if (!v.is_string()) return Expected(field, "a string", v);
  return v.get<std::string>();
}

// A label, token or column value: a non-empty string without control characters.
absl::StatusOr<std::string> Token(absl::string_view field, const json& v) {
  auto s = String(field, v);
  if (!s.ok()) return s.status();
  if (s->empty()) return Bad(field, "expected a non-empty string");
  for (unsigned char c : *s) {
    if (c < 0x20 || c == 0x7f) {
      return Bad(field, absl::StrCat("control character U+", absl::Hex(c, absl::kZeroPad4),
                                     " in \"", absl::CHexEscape(*s), "\""));
    }
  }
  return s;
}

// The parse state: the decode request being filled plus what is per sentence.
struct Draft {
  const std::vector<const Model*>* models;
  const RequestLimits* limits;
  TagRequest out;
  std::optional<std::string> text;
  const json* sentences = nullptr;
  const json* exclude = nullptr;  // one sentence's, given at the top level
  const json* forced = nullptr;
  bool probability_set = false;
  std::optional<CollectiveOptions> collective;
  std::vector<std::string> collective_fields;  // collective_* fields given
  const Model& last() const { return *models->back(); }
  CollectiveOptions& Collective(std::string_view field) {
    collective_fields.emplace_back(field);
    if (!collective.has_value()) collective.emplace();
    return *collective;
  }
};

// Count constraints: {"chunk:NP": [1, 2], "VB*": [1, null], "B-NP": 2, "NN": "..3"} or a list of
// the CLI's specs ["B-NP=2..4", ...] or one such string.
absl::Status ParseCounts(const json& v, Draft* d) {
  std::vector<std::string> specs;
  if (v.is_object()) {
    for (const auto& [labels, bounds] : v.items()) {
      const std::string field = absl::StrCat("counts[\"", absl::CHexEscape(labels), "\"]");
      auto bound = [&](const json& b) -> absl::StatusOr<std::string> {
        if (b.is_null()) return std::string();
        auto x = Integer(field, b, 0, std::numeric_limits<int32_t>::max());
        if (!x.ok()) return x.status();
        return absl::StrCat(*x);
      };
      if (bounds.is_array()) {
        if (bounds.size() != 2) {
          return Bad(field, "expected [lower, upper] (null for an open end) or one integer");
        }
        auto lo = bound(bounds[0]);
        if (!lo.ok()) return lo.status();
        auto hi = bound(bounds[1]);
        if (!hi.ok()) return hi.status();
        specs.push_back(absl::StrCat(labels, "=", *lo, "..", *hi));
      } else if (bounds.is_string()) {
        specs.push_back(absl::StrCat(labels, "=", bounds.get<std::string>()));
      } else {
        auto exact = bound(bounds);
        if (!exact.ok()) return exact.status();
        if (exact->empty()) return Bad(field, "expected [lower, upper] or one integer, found null");
        specs.push_back(absl::StrCat(labels, "=", *exact));
      }
    }
  } else if (v.is_array()) {
    for (size_t i = 0; i < v.size(); ++i) {
      auto spec = String(absl::StrCat("counts[", i, "]"), v[i]);
      if (!spec.ok()) return spec.status();
      specs.push_back(*std::move(spec));
    }
  } else if (v.is_string()) {
    specs.push_back(v.get<std::string>());
  } else {
    return Expected("counts", "an object {\"LABELS\": [lower, upper]}, a list or a string", v);
  }
  for (const std::string& spec : specs) {
    auto parsed = ParseCountConstraint(spec, d->last().labels());
    if (!parsed.ok()) return Bad("counts", parsed.status().message());
    d->out.decode.counts.push_back(*std::move(parsed));
  }
  return absl::OkStatus();
}

// score_range: [lower, upper] (null for an open end) or "A..B".
absl::Status ParseScoreRangeField(const json& v, Draft* d) {
  DecodeRequest& q = d->out.decode;
  q.score_range = true;
  if (v.is_string()) {
    absl::Status s = ParseScoreRange(v.get<std::string>(), &q.score_lower, &q.score_upper);
    return s.ok() ? s : Bad("score_range", s.message());
  }
  if (!v.is_array() || v.size() != 2) {
    return Expected("score_range", "[lower, upper] (null for an open end) or \"A..B\"", v);
  }
  q.score_lower = -HUGE_VAL;
  q.score_upper = HUGE_VAL;
  if (!v[0].is_null()) {
    auto x = Number("score_range[0]", v[0]);
    if (!x.ok()) return x.status();
    q.score_lower = *x;
  }
  if (!v[1].is_null()) {
    auto x = Number("score_range[1]", v[1]);
    if (!x.ok()) return x.status();
    q.score_upper = *x;
  }
  if (q.score_lower > q.score_upper) return Bad("score_range", "the lower end exceeds the upper");
  return absl::OkStatus();
}

// Sets `*target` from an integer field in [lo, hi].
template <typename T>
absl::Status SetInt(absl::string_view field, const json& v, int64_t lo, int64_t hi, T* target) {
  auto x = Integer(field, v, lo, hi);
  if (!x.ok()) return x.status();
  *target = static_cast<T>(*x);
  return absl::OkStatus();
}

absl::Status SetNumber(absl::string_view field, const json& v, double* target) {
  auto x = Number(field, v);
  if (!x.ok()) return x.status();
  *target = *x;
  return absl::OkStatus();
}

absl::Status SetBool(absl::string_view field, const json& v, bool* target) {
  auto x = Bool(field, v);
  if (!x.ok()) return x.status();
  *target = *x;
  return absl::OkStatus();
}

constexpr int64_t kIntMax = std::numeric_limits<int32_t>::max();

// Every field of a POST /tag body, each named once: how its value goes into the draft. Ranges the
// library checks itself (DecodeRequest::Validate) are left to it.
struct Field {
  const char* name;
  std::function<absl::Status(const json&, Draft*)> apply;
};

const std::vector<Field>& Fields() {
  static const auto* fields = new std::vector<Field>{
      {"text",
       [](const json& v, Draft* d) {
         auto s = String("text", v);
         if (!s.ok()) return s.status();
         d->text = *std::move(s);
         return absl::OkStatus();
       }},
      {"sentences",
       [](const json& v, Draft* d) {
         if (!v.is_array()) return Expected("sentences", "a list of sentences", v);
         d->sentences = &v;
         return absl::OkStatus();
       }},
      {"kbest",
       [](const json& v, Draft* d) {
         return SetInt("kbest", v, 0, d->limits->max_kbest, &d->out.decode.kbest);
       }},
      {"diverse",
       [](const json& v, Draft* d) {
         return SetInt("diverse", v, 0, d->limits->max_kbest, &d->out.decode.diverse);
       }},
      {"min_distance",
       [](const json& v, Draft* d) {
         return SetInt("min_distance", v, 1, kIntMax, &d->out.decode.min_distance);
       }},
      {"diversity",
       [](const json& v, Draft* d) {
         auto s = String("diversity", v);
         if (!s.ok()) return s.status();
         if (*s != "hamming" && *s != "chunks") {
           return Bad("diversity", absl::StrCat("expected \"hamming\" or \"chunks\", found \"",
                                                absl::CHexEscape(*s), "\""));
         }
         d->out.decode.chunk_diversity = *s == "chunks";
         return absl::OkStatus();
       }},
      {"counts", ParseCounts},
      {"score_range", ParseScoreRangeField},
      {"score_resolution",
       [](const json& v, Draft* d) {
         return SetNumber("score_resolution", v, &d->out.decode.score_resolution);
       }},
      {"score_max_states",
       [](const json& v, Draft* d) {
         return SetInt("score_max_states", v, 2, DecodeRequest::kMaxScoreStates,
                       &d->out.decode.score_max_states);
       }},
      {"exclude",
       [](const json& v, Draft* d) {
         d->exclude = &v;
         return absl::OkStatus();
       }},
      {"forced",
       [](const json& v, Draft* d) {
         d->forced = &v;
         return absl::OkStatus();
       }},
      {"marginals",
       [](const json& v, Draft* d) { return SetBool("marginals", v, &d->out.decode.marginals); }},
      {"marginals_min",
       [](const json& v, Draft* d) {
         return SetNumber("marginals_min", v, &d->out.decode.marginals_min);
       }},
      {"probability",
       [](const json& v, Draft* d) {
         d->probability_set = true;
         return SetBool("probability", v, &d->out.decode.probability);
       }},
      {"max_memory_mb",
       [](const json& v, Draft* d) {
         auto mb = Integer("max_memory_mb", v, 1, d->limits->max_decode_memory_bytes >> 20);
         if (!mb.ok()) return mb.status();
         d->out.decode.max_memory_bytes = *mb << 20;
         return absl::OkStatus();
       }},
      {"latent_decoder",
       [](const json& v, Draft* d) {
         auto s = String("latent_decoder", v);
         if (!s.ok()) return s.status();
         auto decoder = ParseLatentDecoder(*s);
         if (!decoder.ok()) return Bad("latent_decoder", decoder.status().message());
         d->out.decode.latent_decoder = *decoder;
         return absl::OkStatus();
       }},
      {"ldi_max_paths",
       [](const json& v, Draft* d) {
         return SetInt("ldi_max_paths", v, 1, LdiOptions::kMaxPaths, &d->out.decode.ldi_max_paths);
       }},
      {"bb_max_nodes",
       [](const json& v, Draft* d) {
         return SetInt("bb_max_nodes", v, 1, DecodeRequest::kMaxBbNodes,
                       &d->out.decode.bb_max_nodes);
       }},
      {"bb_bound",
       [](const json& v, Draft* d) { return SetNumber("bb_bound", v, &d->out.decode.bb_bound); }},
      {"collective",
       [](const json& v, Draft* d) {
         auto s = String("collective", v);
         if (!s.ok()) return s.status();
         auto kind = ParseCollectivePotentialKind(*s);
         if (!kind.ok()) return Bad("collective", kind.status().message());
         if (*kind == CollectivePotentialKind::kMajority) {
           return Bad("collective",
                      "\"majority\" needs weights estimated from a training file, which a request "
                      "cannot name; use \"potts\"");
         }
         if (!d->collective.has_value()) d->collective.emplace();
         d->collective->potential = *kind;
         return absl::OkStatus();
       }},
      {"collective_key",
       [](const json& v, Draft* d) {
         auto s = String("collective_key", v);
         if (!s.ok()) return s.status();
         auto key = ParseCollectiveKey(*s);
         if (!key.ok()) return Bad("collective_key", key.status().message());
         d->Collective("collective_key").key = *key;
         return absl::OkStatus();
       }},
      {"collective_capitalised",
       [](const json& v, Draft* d) {
         return SetBool("collective_capitalised", v,
                        &d->Collective("collective_capitalised").capitalised_only);
       }},
      {"collective_unseen",
       [](const json& v, Draft* d) {
         return SetBool("collective_unseen", v, &d->Collective("collective_unseen").unseen_only);
       }},
      {"collective_iterations",
       [](const json& v, Draft* d) {
         return SetInt("collective_iterations", v, 1, CollectiveDecodeOptions::kMaxIterations,
                       &d->Collective("collective_iterations").iterations);
       }},
      {"collective_lambda",
       [](const json& v, Draft* d) {
         return SetNumber("collective_lambda", v, &d->Collective("collective_lambda").c);
       }},
      {"collective_max_clique",
       [](const json& v, Draft* d) {
         return SetInt("collective_max_clique", v, 2, kMaxCliqueNodes,
                       &d->Collective("collective_max_clique").max_clique_nodes);
       }},
      {"collective_max_sentences",
       [](const json& v, Draft* d) {
         return SetInt("collective_max_sentences", v, 1,
                       CollectiveOptions::kMaxDocumentSentencesCap,
                       &d->Collective("collective_max_sentences").max_document_sentences);
       }},
      {"collective_max_tokens",
       [](const json& v, Draft* d) {
         return SetInt("collective_max_tokens", v, 1, CollectiveOptions::kMaxDocumentTokensCap,
                       &d->Collective("collective_max_tokens").max_document_tokens);
       }},
  };
  return *fields;
}

// Why a field a client might try is not accepted.
std::optional<std::string> RefusedField(std::string_view name) {
  if (name == "model" || name == "models" || name == "m") {
    return "requests cannot choose models: the server's models are fixed when it starts (GET "
           "/models lists them)";
  }
  if (name == "collective_train" || name == "exclude_file" || name == "output" ||
      name == "forced_column") {
    return "requests cannot name files or columns on the server; give exclusions and forced "
           "labels in the request (\"exclude\", \"forced\")";
  }
  return std::nullopt;
}

// forced for a sentence of m tokens: a list of labels (null or "_" for a free token) or
// {"position": label}.
absl::StatusOr<std::vector<std::string>> ForcedLabels(const std::string& field, const json& f,
                                                      int m) {
  std::vector<std::string> forced(m, "_");
  if (f.is_object()) {
    for (const auto& [key, label] : f.items()) {
      int64_t t = 0;
      if (!absl::SimpleAtoi(key, &t) || t < -m || t >= m) {
        return Bad(field, absl::StrCat("expected token positions 0 to ", m - 1,
                                       " (negative from the end) as keys, found \"",
                                       absl::CHexEscape(key), "\""));
      }
      auto name = Token(absl::StrCat(field, "[\"", key, "\"]"), label);
      if (!name.ok()) return name.status();
      forced[t < 0 ? t + m : t] = *std::move(name);
    }
    return forced;
  }
  if (!f.is_array()) return Expected(field, "a list of labels or {\"position\": label}", f);
  if (static_cast<int>(f.size()) != m) {
    return Bad(field, absl::StrCat("expected ", m,
                                   " labels (one per token, null or \"_\" for a "
                                   "free token), found ",
                                   f.size()));
  }
  for (int t = 0; t < m; ++t) {
    if (f[t].is_null()) continue;
    auto name = Token(absl::StrCat(field, "[", t, "]"), f[t]);
    if (!name.ok()) return name.status();
    forced[t] = *std::move(name);
  }
  return forced;
}

// exclude: a list of labelings, each a list of labels.
absl::StatusOr<std::vector<std::vector<std::string>>> Exclusions(const std::string& field,
                                                                 const json& e) {
  if (!e.is_array()) return Expected(field, "a list of labelings (lists of labels)", e);
  std::vector<std::vector<std::string>> labelings;
  for (size_t i = 0; i < e.size(); ++i) {
    const std::string item = absl::StrCat(field, "[", i, "]");
    if (!e[i].is_array()) return Expected(item, "a list of labels", e[i]);
    std::vector<std::string> labels;
    for (size_t t = 0; t < e[i].size(); ++t) {
      auto name = Token(absl::StrCat(item, "[", t, "]"), e[i][t]);
      if (!name.ok()) return name.status();
      labels.push_back(*std::move(name));
    }
    labelings.push_back(std::move(labels));
  }
  return labelings;
}

// One entry of "sentences": a list of tokens (strings) or of column lists, or an object with
// "tokens" (either form) and optionally "forced" and "exclude".
absl::Status AddSentence(size_t index, const json& item, Draft* d) {
  const std::string where = absl::StrCat("sentences[", index, "]");
  const json* tokens = &item;
  const json* forced = nullptr;
  const json* exclude = nullptr;
  if (item.is_object()) {
    for (const auto& [key, value] : item.items()) {
      if (key == "tokens") {
        tokens = &value;
      } else if (key == "forced") {
        forced = &value;
      } else if (key == "exclude") {
        exclude = &value;
      } else {
        return Bad(where, absl::StrCat("unknown field \"", absl::CHexEscape(key),
                                       "\" (expected \"tokens\", \"forced\", \"exclude\")"));
      }
    }
    if (tokens == &item) return Bad(where, "expected a \"tokens\" list");
  }
  const std::string tokens_field = tokens == &item ? where : absl::StrCat(where, ".tokens");
  if (!tokens->is_array()) {
    return Expected(tokens_field, "a list of tokens or of column lists", *tokens);
  }
  const size_t m = tokens->size();
  if (m == 0) return Bad(tokens_field, "expected at least one token");
  if (static_cast<int64_t>(m) > d->limits->max_sentence_tokens) {
    return absl::ResourceExhaustedError(
        absl::StrCat(tokens_field, ": ", m, " tokens, more than the server's limit of ",
                     d->limits->max_sentence_tokens, " per sentence (--max-sentence-tokens)"));
  }
  d->out.tokens += static_cast<int64_t>(m);
  if (d->out.tokens > d->limits->max_tokens) {
    return absl::ResourceExhaustedError(absl::StrCat("the request has more than ",
                                                     d->limits->max_tokens,
                                                     " tokens, the server's limit (--max-tokens)"));
  }
  TagResult r;
  Sentence& s = r.sentence;
  s.file = where;
  for (size_t t = 0; t < m; ++t) {
    const json& token = (*tokens)[t];
    const std::string field = absl::StrCat(tokens_field, "[", t, "]");
    if (token.is_string()) {
      if (s.columns.size() > 1 || (t > 0 && s.columns.empty())) {
        return Bad(field, "a string, but earlier tokens are column lists");
      }
      s.columns.resize(1);
      auto word = Token(field, token);
      if (!word.ok()) return word.status();
      s.columns[0].push_back(*std::move(word));
    } else if (token.is_array()) {
      const size_t n = token.size();
      if (t == 0) {
        if (n == 0 || n > static_cast<size_t>(DecodeRequest::kMaxColumns)) {
          return Bad(field, absl::StrCat("expected 1 to ", DecodeRequest::kMaxColumns,
                                         " columns, found ", n));
        }
        s.columns.resize(n);
      } else if (n != s.columns.size() || !(*tokens)[0].is_array()) {
        return Bad(field, absl::StrCat("expected ", (*tokens)[0].is_array() ? s.columns.size() : 0,
                                       " columns as at token 0, found ", n));
      }
      for (size_t c = 0; c < n; ++c) {
        auto value = Token(absl::StrCat(field, "[", c, "]"), token[c]);
        if (!value.ok()) return value.status();
        s.columns[c].push_back(*std::move(value));
      }
    } else {
      return Expected(field, "a token (string) or a list of columns", token);
    }
  }
  if (forced != nullptr) {
    auto f = ForcedLabels(absl::StrCat(where, ".forced"), *forced, static_cast<int>(m));
    if (!f.ok()) return f.status();
    r.forced = *std::move(f);
  }
  if (exclude != nullptr) {
    auto e = Exclusions(absl::StrCat(where, ".exclude"), *exclude);
    if (!e.ok()) return e.status();
    r.excluded = *std::move(e);
    d->out.decode.exclusions = true;
  }
  s.new_document = index == 0;  // a request is one document (collective tagging)
  d->out.inputs.push_back(std::move(r));
  return absl::OkStatus();
}

absl::Status AddText(const std::string& text, Draft* d) {
  TextOptions options;
  options.max_sentence_tokens = d->limits->max_sentence_tokens;
  auto sentences = SegmentText(text, options, "text");
  if (!sentences.ok()) return Bad("text", sentences.status().message());
  for (Sentence& s : *sentences) {
    d->out.tokens += s.size();
    if (d->out.tokens > d->limits->max_tokens) {
      return absl::ResourceExhaustedError(
          absl::StrCat("the request has more than ", d->limits->max_tokens,
                       " tokens, the server's limit (--max-tokens)"));
    }
    s.new_document = d->out.inputs.empty();  // one text is one document, as one file for tag
    TagResult r;
    r.sentence = std::move(s);
    d->out.inputs.push_back(std::move(r));
  }
  return absl::OkStatus();
}

}  // namespace

const std::vector<std::string>& TagRequestFields() {
  static const auto* names = [] {
    auto* v = new std::vector<std::string>;
    for (const Field& f : Fields()) v->push_back(f.name);
    return v;
  }();
  return *names;
}

absl::StatusOr<TagRequest> ParseTagRequest(std::string_view body,
                                           const std::vector<const Model*>& models,
                                           const RequestLimits& limits) {
  auto doc = ParseJsonDocument(body, kRequestJsonLimits);
  if (!doc.ok()) return doc.status();
  if (!doc->is_object()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "expected a JSON object such as {\"text\": \"...\"}, found ", JsonTypeName(*doc)));
  }
  Draft d;
  d.models = &models;
  d.limits = &limits;
  DecodeRequest& q = d.out.decode;
  q.max_memory_bytes = limits.max_decode_memory_bytes;
  for (const auto& [key, value] : doc->items()) {
    if (auto why = RefusedField(key); why.has_value()) return Bad(key, *why);
    const Field* field = nullptr;
    for (const Field& f : Fields()) {
      if (key == f.name) field = &f;
    }
    if (field == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat("unknown field \"", absl::CHexEscape(key),
                                                     "\"; expected one of ",
                                                     absl::StrJoin(TagRequestFields(), ", ")));
    }
    if (absl::Status s = field->apply(value, &d); !s.ok()) return s;
  }
  if (d.text.has_value() == (d.sentences != nullptr)) {
    return absl::InvalidArgumentError(
        "expected \"text\" (raw text) or \"sentences\" (token lists), exactly one of them");
  }
  if (d.collective.has_value()) {
    if (!doc->contains("collective")) {
      return Bad(d.collective_fields.front(), "needs \"collective\": \"potts\"");
    }
    q.collective = d.collective;
  }
  // An LMSBN model has no probabilities (as tag and Python).
  const bool lmsbn = d.last().family() == ModelFamily::kLmsbn;
  if (!d.probability_set) q.probability = !lmsbn;
  if (d.text.has_value()) {
    if (absl::Status s = AddText(*d.text, &d); !s.ok()) return s;
  } else {
    for (size_t i = 0; i < d.sentences->size(); ++i) {
      if (absl::Status s = AddSentence(i, (*d.sentences)[i], &d); !s.ok()) return s;
    }
  }
  if (d.out.inputs.empty()) {
    return absl::InvalidArgumentError(d.text.has_value() ? "text: no sentences found (empty text)"
                                                         : "sentences: expected at least one");
  }
  // Top-level forced labels and exclusions are those of the request's one sentence.
  if (d.forced != nullptr || d.exclude != nullptr) {
    const char* field = d.forced != nullptr ? "forced" : "exclude";
    if (d.out.inputs.size() != 1) {
      return Bad(field, absl::StrCat("the request has ", d.out.inputs.size(),
                                     " sentences; give forced labels and exclusions per sentence "
                                     "in \"sentences\": [{\"tokens\": [...], \"",
                                     field, "\": ...}]"));
    }
    TagResult& r = d.out.inputs[0];
    if (d.forced != nullptr) {
      if (!r.forced.empty()) return Bad("forced", "given both here and in sentences[0]");
      auto f = ForcedLabels("forced", *d.forced, r.sentence.size());
      if (!f.ok()) return f.status();
      r.forced = *std::move(f);
    }
    if (d.exclude != nullptr) {
      if (!r.excluded.empty()) return Bad("exclude", "given both here and in sentences[0]");
      auto e = Exclusions("exclude", *d.exclude);
      if (!e.ok()) return e.status();
      r.excluded = *std::move(e);
      q.exclusions = true;
    }
  }
  for (const Model* model : models) {
    if (model->input_options().format == CorpusFormat::kAttributes) {
      return absl::InvalidArgumentError("the server's models read attribute files, not tokens");
    }
  }
  if (absl::Status s = q.Validate(); !s.ok()) return absl::InvalidArgumentError(s.message());
  if (q.collective.has_value()) {
    if (absl::Status s = CheckCollectiveRequest(d.last(), q); !s.ok())
      return absl::InvalidArgumentError(s.message());
  }
  return std::move(d.out);
}

absl::StatusOr<std::string> RunTagRequest(TagRequest request,
                                          const std::vector<const Model*>& models) {
  cli::TagWriter writer(models, cli::OutputFormat::kJsonl, /*raw_text=*/false,
                        request.decode.Constrained(), ReaderOptions{},
                        request.decode.marginals_min);
  std::string out = "[";
  std::ostringstream line;
  BatchTagger tagger(models, request.decode, /*threads=*/1, [&](const TagResult& r) {
    line.str("");
    if (absl::Status s = writer.Write(r, line); !s.ok()) return s;
    std::string object = line.str();
    object.pop_back();  // the jsonl line's newline
    if (out.size() > 1) out += ",\n";
    out += object;
    return absl::OkStatus();
  });
  for (TagResult& r : request.inputs) {
    if (absl::Status s = tagger.Add(std::move(r)); !s.ok())
      return absl::InvalidArgumentError(s.message());
  }
  if (absl::Status s = tagger.Flush(); !s.ok()) return absl::InvalidArgumentError(s.message());
  out += "]\n";
  return out;
}

}  // namespace chaintag::serve
