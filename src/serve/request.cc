#include "serve/request.h"

#include <cmath>
#include <iterator>
#include <limits>
#include <optional>
#include <sstream>
#include <utility>
#include <variant>

#include "absl/strings/escaping.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "chaintag/text.h"
#include "cli/tag_output.h"
#include "json_document.h"
#include "tagging/request_table.h"

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

// The parse state: the request table's builder plus what is per sentence.
struct Draft {
  const std::vector<const Model*>* models;
  const RequestLimits* limits;
  RequestBuilder* builder;
  TagRequest out;
  std::optional<std::string> text;
  const json* sentences = nullptr;
  const json* forced = nullptr;      // one sentence's, given at the top level
  bool sentence_exclusions = false;  // some entry of "sentences" has its own "exclude"
  const Model& last() const { return *models->back(); }
};

// Count constraints as the --count specs they stand for: {"chunk:NP": [1, 2], "VB*": [1, null],
// "B-NP": 2, "NN": "..3"}, a list of specs ["B-NP=2..4", ...] or one such string.
absl::StatusOr<std::vector<std::string>> CountSpecs(const json& v) {
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
  return specs;
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

// POST /tag's own fields, the payload; every other field is a decode-request field of the request
// table (tagging/request_table.h), as `tag` and Python take it.
constexpr std::string_view kPayloadFields[] = {"text", "sentences"};

// A JSON value as the request table's value of `field`, in the JSON shapes docs/serve.md lists.
// Only the JSON types are checked here; ranges, choices and what the model supports are the
// table's (RequestBuilder), as for `tag` and Python.
absl::StatusOr<RequestValue> ValueFromJson(const RequestField& field, const json& v) {
  const std::string name(field.name);
  switch (field.type) {
    case RequestFieldType::kBool: {
      auto b = Bool(name, v);
      if (!b.ok()) return b.status();
      return RequestValue(*b);
    }
    case RequestFieldType::kInt:
      if (!v.is_number_integer() && !v.is_number_unsigned()) return Expected(name, "an integer", v);
      // Beyond int64: out of every field's range, reported without wrapping.
      if (v.is_number_unsigned() &&
          v.get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
        return Bad(
            name, absl::StrCat("expected an integer from ", static_cast<int64_t>(field.min), " to ",
                               static_cast<int64_t>(field.max), ", found ", v.get<uint64_t>()));
      }
      return RequestValue(v.get<int64_t>());
    case RequestFieldType::kNumber: {
      auto x = Number(name, v);
      if (!x.ok()) return x.status();
      return RequestValue(*x);
    }
    case RequestFieldType::kChoice:
    case RequestFieldType::kText: {
      auto s = String(name, v);
      if (!s.ok()) return s.status();
      return RequestValue(*std::move(s));
    }
    case RequestFieldType::kCounts: {
      auto specs = CountSpecs(v);
      if (!specs.ok()) return specs.status();
      return RequestValue(*std::move(specs));
    }
    case RequestFieldType::kScoreRange: {
      // "A..B" (the table parses it) or [lower, upper] with null for an open end.
      if (v.is_string()) return RequestValue(v.get<std::string>());
      if (!v.is_array() || v.size() != 2) {
        return Expected(name, "[lower, upper] (null for an open end) or \"A..B\"", v);
      }
      ScoreBounds b{-HUGE_VAL, HUGE_VAL};
      for (int end = 0; end < 2; ++end) {
        if (v[end].is_null()) continue;
        auto x = Number(absl::StrCat(name, "[", end, "]"), v[end]);
        if (!x.ok()) return x.status();
        (end == 0 ? b.lower : b.upper) = *x;
      }
      return RequestValue(b);
    }
    case RequestFieldType::kLabelings: {
      auto labelings = Exclusions(name, v);
      if (!labelings.ok()) return labelings.status();
      return RequestValue(*std::move(labelings));
    }
    case RequestFieldType::kLabels:
      break;  // forced: resolved per sentence (its length), as Python does
  }
  return absl::InternalError(absl::StrCat(name, ": not a request value"));
}

// Why a field a client might try is refused, if it is one: models and anything naming a file or
// a column on the server (the table's fields the JSON surface leaves out).
std::optional<std::string> RefusedField(std::string_view name) {
  if (name == "model" || name == "models" || name == "m") {
    return "requests cannot choose models: the server's models are fixed when it starts (GET "
           "/models lists them)";
  }
  const RequestField* f = FindRequestField(name);
  if ((f != nullptr && f->name == name && !f->on(kJsonSurface)) || name == "exclude_file" ||
      name == "output") {
    return "requests cannot name files or columns on the server; give exclusions and forced "
           "labels in the request (\"exclude\", \"forced\")";
  }
  return std::nullopt;
}

// One top-level field: the payload, or a table field into the builder, within the server's limits
// (kbest/diverse at most --max-kbest, max_memory_mb at most --decode-memory-mb).
absl::Status ApplyField(const std::string& key, const json& value, Draft* d) {
  if (key == "text") {
    auto s = String("text", value);
    if (!s.ok()) return s.status();
    d->text = *std::move(s);
    return absl::OkStatus();
  }
  if (key == "sentences") {
    if (!value.is_array()) return Expected("sentences", "a list of sentences", value);
    d->sentences = &value;
    return absl::OkStatus();
  }
  if (auto why = RefusedField(key); why.has_value()) return Bad(key, *why);
  const RequestField* field = FindRequestField(key);
  if (field == nullptr || field->name != key || !field->on(kJsonSurface)) {
    return absl::InvalidArgumentError(absl::StrCat("unknown field \"", absl::CHexEscape(key),
                                                   "\"; expected one of ",
                                                   absl::StrJoin(TagRequestFields(), ", ")));
  }
  if (field->type == RequestFieldType::kLabels) {
    d->forced = &value;
    return absl::OkStatus();
  }
  if (key == "collective" && value == "majority") {
    return Bad(key,
               "\"majority\" needs weights estimated from a training file, which a request "
               "cannot name; use \"potts\"");
  }
  auto v = ValueFromJson(*field, value);
  if (!v.ok()) return v.status();
  if (absl::Status s = d->builder->Set(key, *v); !s.ok()) return s;
  int64_t server_max = -1;
  if (key == "kbest" || key == "diverse") server_max = d->limits->max_kbest;
  if (key == "max_memory_mb") server_max = d->limits->max_decode_memory_bytes >> 20;
  if (server_max >= 0 && std::get<int64_t>(*v) > server_max) {
    return Bad(key, absl::StrCat("expected an integer from ", static_cast<int64_t>(field->min),
                                 " to ", server_max, ", found ", std::get<int64_t>(*v)));
  }
  return absl::OkStatus();
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
    d->sentence_exclusions = true;
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
    auto* v = new std::vector<std::string>(std::begin(kPayloadFields), std::end(kPayloadFields));
    for (const RequestField& f : RequestFields()) {
      if (f.on(kJsonSurface)) v->emplace_back(f.name);
    }
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
  RequestBuilder builder(*models.back(), kJsonSurface);
  Draft d;
  d.models = &models;
  d.limits = &limits;
  d.builder = &builder;
  for (const auto& [key, value] : doc->items()) {
    if (absl::Status s = ApplyField(key, value, &d); !s.ok()) return s;
  }
  if (d.text.has_value() == (d.sentences != nullptr)) {
    return absl::InvalidArgumentError(
        "expected \"text\" (raw text) or \"sentences\" (token lists), exactly one of them");
  }
  // The server's decoding memory stands for the table's default (--decode-memory-mb).
  if (!builder.has("max_memory_mb")) {
    if (absl::Status s = builder.Set("max_memory_mb", limits.max_decode_memory_bytes >> 20);
        !s.ok()) {
      return absl::InternalError(s.message());
    }
  }
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
  const bool exclude = builder.has("exclude");
  if (d.forced != nullptr || exclude) {
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
    if (exclude) {
      if (d.sentence_exclusions) return Bad("exclude", "given both here and in sentences[0]");
      r.excluded = builder.exclude();
    }
  } else if (d.sentence_exclusions) {
    // Per-sentence exclusions, as `tag --exclude FILE` gives them: the table's exclude switch.
    if (absl::Status s = builder.Set("exclude", Labelings()); !s.ok()) {
      return absl::InternalError(s.message());
    }
  }
  for (const Model* model : models) {
    if (model->input_options().format == CorpusFormat::kAttributes) {
      return absl::InvalidArgumentError("the server's models read attribute files, not tokens");
    }
  }
  // Counts against the model's labels, what the model supports, DecodeRequest::Validate and the
  // collective checks: the table's, as for `tag` and Python. No file is read (majority refused).
  auto decode = builder.Build();
  if (!decode.ok()) return absl::InvalidArgumentError(decode.status().message());
  d.out.decode = *std::move(decode);
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
