// Cliques as JSON lines: a small strict JSON parser (RFC 8259 values, nesting and sizes capped)
// and the mapping of its values onto Clique and CliquePotential.
#include <charconv>
#include <cmath>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "chaintag/collective.h"
#include "json_string.h"

namespace chaintag {

namespace {

constexpr int kMaxJsonDepth = 16;
// Values in one line: a clique's cells plus a potential's table, with room to spare.
constexpr int64_t kMaxJsonValues = 3 * kMaxCliqueCells;

struct JsonValue {
  enum class Type { kNull, kBool, kNumber, kString, kArray, kObject };
  Type type = Type::kNull;
  bool boolean = false;
  double number = 0;
  std::string string;
  std::vector<JsonValue> array;
  // An object's members: keys[i] names members[i] (a vector of pairs would need JsonValue
  // complete here).
  std::vector<std::string> keys;
  std::vector<JsonValue> members;

  const JsonValue* Find(std::string_view key) const {
    for (size_t i = 0; i < keys.size(); ++i) {
      if (keys[i] == key) return &members[i];
    }
    return nullptr;
  }
};

class JsonParser {
 public:
  explicit JsonParser(std::string_view text) : text_(text) {}

  absl::StatusOr<JsonValue> ParseDocument() {
    JsonValue value;
    if (auto s = Parse(&value, 0); !s.ok()) return s;
    SkipSpace();
    if (pos_ != text_.size()) return Error("unexpected text after the JSON value");
    return value;
  }

 private:
  absl::Status Error(std::string_view what) const {
    return absl::InvalidArgumentError(
        absl::StrCat("invalid JSON at byte ", pos_ + 1, ": ", std::string(what)));
  }
  void SkipSpace() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t' ||
                                   text_[pos_] == '\n' || text_[pos_] == '\r'))
      ++pos_;
  }
  bool Literal(std::string_view word) {
    if (text_.substr(pos_, word.size()) != word) return false;
    pos_ += word.size();
    return true;
  }

  absl::Status Parse(JsonValue* value, int depth) {
    if (depth > kMaxJsonDepth) return Error("nesting deeper than 16 levels");
    if (++values_ > kMaxJsonValues) return Error("more than 3,000,000 values on one line");
    SkipSpace();
    if (pos_ >= text_.size()) return Error("expected a value, found the end of the line");
    const char c = text_[pos_];
    if (c == '{') return ParseObject(value, depth);
    if (c == '[') return ParseArray(value, depth);
    if (c == '"') {
      value->type = JsonValue::Type::kString;
      return ParseString(&value->string);
    }
    if (Literal("true")) {
      value->type = JsonValue::Type::kBool;
      value->boolean = true;
      return absl::OkStatus();
    }
    if (Literal("false")) {
      value->type = JsonValue::Type::kBool;
      return absl::OkStatus();
    }
    if (Literal("null")) return absl::OkStatus();
    if (c == '-' || (c >= '0' && c <= '9')) return ParseNumber(value);
    return Error(absl::StrCat("expected a value, found '", std::string(1, c), "'"));
  }

  absl::Status ParseNumber(JsonValue* value) {
    // JSON grammar: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
    const size_t start = pos_;
    auto digits = [&] {
      size_t from = pos_;
      while (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9') ++pos_;
      return pos_ > from;
    };
    if (text_[pos_] == '-') ++pos_;
    if (pos_ < text_.size() && text_[pos_] == '0') {
      ++pos_;
    } else if (!digits()) {
      return Error("malformed number");
    }
    if (pos_ < text_.size() && text_[pos_] == '.') {
      ++pos_;
      if (!digits()) return Error("malformed number: digits expected after '.'");
    }
    if (pos_ < text_.size() && (text_[pos_] == 'e' || text_[pos_] == 'E')) {
      ++pos_;
      if (pos_ < text_.size() && (text_[pos_] == '+' || text_[pos_] == '-')) ++pos_;
      if (!digits()) return Error("malformed number: digits expected in the exponent");
    }
    double v = 0;
    auto [ptr, ec] = std::from_chars(text_.data() + start, text_.data() + pos_, v);
    if (ec != std::errc() || ptr != text_.data() + pos_ || !std::isfinite(v)) {
      pos_ = start;
      return Error("number out of range");
    }
    value->type = JsonValue::Type::kNumber;
    value->number = v;
    return absl::OkStatus();
  }

  absl::Status ParseString(std::string* out) {
    ++pos_;  // opening quote
    while (pos_ < text_.size()) {
      const unsigned char c = text_[pos_];
      if (c == '"') {
        ++pos_;
        return absl::OkStatus();
      }
      if (c < 0x20) return Error("control character in a string");
      if (c != '\\') {
        out->push_back(static_cast<char>(c));
        ++pos_;
        continue;
      }
      if (++pos_ >= text_.size()) break;
      const char e = text_[pos_++];
      switch (e) {
        case '"':
        case '\\':
        case '/':
          out->push_back(e);
          break;
        case 'b':
          out->push_back('\b');
          break;
        case 'f':
          out->push_back('\f');
          break;
        case 'n':
          out->push_back('\n');
          break;
        case 'r':
          out->push_back('\r');
          break;
        case 't':
          out->push_back('\t');
          break;
        case 'u': {
          // Keys and type names are ASCII; \u escapes are kept as the code unit's UTF-8 form.
          if (pos_ + 4 > text_.size()) return Error("truncated \\u escape");
          unsigned code = 0;
          for (int i = 0; i < 4; ++i) {
            const char h = text_[pos_++];
            code <<= 4;
            if (h >= '0' && h <= '9') {
              code |= h - '0';
            } else if (h >= 'a' && h <= 'f') {
              code |= h - 'a' + 10;
            } else if (h >= 'A' && h <= 'F') {
              code |= h - 'A' + 10;
            } else {
              return Error("bad hex digit in a \\u escape");
            }
          }
          if (code < 0x80) {
            out->push_back(static_cast<char>(code));
          } else if (code < 0x800) {
            out->push_back(static_cast<char>(0xC0 | (code >> 6)));
            out->push_back(static_cast<char>(0x80 | (code & 0x3F)));
          } else {
            out->push_back(static_cast<char>(0xE0 | (code >> 12)));
            out->push_back(static_cast<char>(0x80 | ((code >> 6) & 0x3F)));
            out->push_back(static_cast<char>(0x80 | (code & 0x3F)));
          }
          break;
        }
        default:
          --pos_;
          return Error("unknown escape in a string");
      }
    }
    return Error("unterminated string");
  }

  absl::Status ParseArray(JsonValue* value, int depth) {
    value->type = JsonValue::Type::kArray;
    ++pos_;
    SkipSpace();
    if (pos_ < text_.size() && text_[pos_] == ']') {
      ++pos_;
      return absl::OkStatus();
    }
    while (true) {
      value->array.emplace_back();
      if (auto s = Parse(&value->array.back(), depth + 1); !s.ok()) return s;
      SkipSpace();
      if (pos_ >= text_.size()) return Error("unterminated array");
      if (text_[pos_] == ',') {
        ++pos_;
        continue;
      }
      if (text_[pos_] == ']') {
        ++pos_;
        return absl::OkStatus();
      }
      return Error("expected ',' or ']' in an array");
    }
  }

  absl::Status ParseObject(JsonValue* value, int depth) {
    value->type = JsonValue::Type::kObject;
    ++pos_;
    SkipSpace();
    if (pos_ < text_.size() && text_[pos_] == '}') {
      ++pos_;
      return absl::OkStatus();
    }
    while (true) {
      SkipSpace();
      if (pos_ >= text_.size() || text_[pos_] != '"') return Error("expected a key string");
      std::string key;
      if (auto s = ParseString(&key); !s.ok()) return s;
      if (value->Find(key) != nullptr)
        return Error(absl::StrCat("duplicate key ", JsonString(key)));
      SkipSpace();
      if (pos_ >= text_.size() || text_[pos_] != ':') return Error("expected ':' after a key");
      ++pos_;
      JsonValue member;
      if (auto s = Parse(&member, depth + 1); !s.ok()) return s;
      value->keys.push_back(std::move(key));
      value->members.push_back(std::move(member));
      SkipSpace();
      if (pos_ >= text_.size()) return Error("unterminated object");
      if (text_[pos_] == ',') {
        ++pos_;
        continue;
      }
      if (text_[pos_] == '}') {
        ++pos_;
        return absl::OkStatus();
      }
      return Error("expected ',' or '}' in an object");
    }
  }

  std::string_view text_;
  size_t pos_ = 0;
  int64_t values_ = 0;
};

absl::Status Expect(bool ok, std::string_view message) {
  return ok ? absl::OkStatus() : absl::InvalidArgumentError(std::string(message));
}

// An array of arrays of numbers, every row the same length (`what` names it in errors).
absl::StatusOr<std::vector<std::vector<double>>> Matrix(const JsonValue* v,
                                                        const std::string& what) {
  if (v == nullptr) return absl::InvalidArgumentError(absl::StrCat("missing \"", what, "\""));
  if (v->type != JsonValue::Type::kArray || v->array.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("\"", what, "\" must be a non-empty array of arrays of numbers"));
  }
  std::vector<std::vector<double>> rows;
  rows.reserve(v->array.size());
  for (size_t i = 0; i < v->array.size(); ++i) {
    const JsonValue& row = v->array[i];
    if (row.type != JsonValue::Type::kArray || row.array.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("\"", what, "\"[", i, "] must be a non-empty array of numbers"));
    }
    if (row.array.size() != v->array[0].array.size()) {
      return absl::InvalidArgumentError(absl::StrCat("\"", what, "\"[", i, "] has ",
                                                     row.array.size(), " values, \"", what,
                                                     "\"[0] has ", v->array[0].array.size()));
    }
    std::vector<double> values;
    values.reserve(row.array.size());
    for (size_t j = 0; j < row.array.size(); ++j) {
      if (row.array[j].type != JsonValue::Type::kNumber) {
        return absl::InvalidArgumentError(
            absl::StrCat("\"", what, "\"[", i, "][", j, "] must be a number"));
      }
      values.push_back(row.array[j].number);
    }
    rows.push_back(std::move(values));
  }
  return rows;
}

absl::StatusOr<double> Number(const JsonValue& object, const std::string& key,
                              std::optional<double> fallback = std::nullopt) {
  const JsonValue* v = object.Find(key);
  if (v == nullptr) {
    if (fallback) return *fallback;
    return absl::InvalidArgumentError(absl::StrCat("the potential needs \"", key, "\""));
  }
  if (v->type != JsonValue::Type::kNumber) {
    return absl::InvalidArgumentError(absl::StrCat("\"", key, "\" must be a number"));
  }
  return v->number;
}

absl::Status OnlyKeys(const JsonValue& object, std::initializer_list<const char*> keys,
                      const std::string& where) {
  for (const std::string& k : object.keys) {
    bool known = false;
    for (auto key : keys) known = known || k == key;
    if (!known) {
      std::string list;
      for (auto key : keys) absl::StrAppend(&list, list.empty() ? "" : ", ", "\"", key, "\"");
      return absl::InvalidArgumentError(
          absl::StrCat("unknown key ", JsonString(k), " in ", where, " (expected ", list, ")"));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<CliquePotential> PotentialFrom(const JsonValue& p, int n, int m) {
  if (p.type != JsonValue::Type::kObject) {
    return absl::InvalidArgumentError("\"potential\" must be an object with a \"type\"");
  }
  const JsonValue* type = p.Find("type");
  if (type == nullptr || type->type != JsonValue::Type::kString) {
    return absl::InvalidArgumentError(
        "\"potential\" needs \"type\": \"potts\", \"entropy\", \"makespan\", \"max\", \"sum\" or "
        "\"majority\"");
  }
  const std::string& t = type->string;
  if (t == "potts" || t == "entropy") {
    if (auto s = OnlyKeys(p, {"type", "lambda"}, "the potential"); !s.ok()) return s;
    auto lambda = Number(p, "lambda");
    if (!lambda.ok()) return lambda.status();
    return t == "potts" ? CliquePotential::Potts(*lambda, m, n)
                        : CliquePotential::NegativeEntropy(*lambda, m, n);
  }
  if (t == "makespan") {
    if (auto s = OnlyKeys(p, {"type", "lambda", "power"}, "the potential"); !s.ok()) return s;
    auto lambda = Number(p, "lambda");
    if (!lambda.ok()) return lambda.status();
    auto power = Number(p, "power", 1.0);
    if (!power.ok()) return power.status();
    if (*power != 1.0 && *power != 2.0) {
      return absl::InvalidArgumentError("makespan \"power\" must be 1 (linear) or 2 (square)");
    }
    return CliquePotential::Makespan(*lambda, static_cast<int>(*power), m, n);
  }
  if (t == "max" || t == "sum") {
    if (auto s = OnlyKeys(p, {"type", "table"}, "the potential"); !s.ok()) return s;
    auto table = Matrix(p.Find("table"), "table");
    if (!table.ok()) return table.status();
    if (static_cast<int>(table->size()) != m || static_cast<int>((*table)[0].size()) != n + 1) {
      return absl::InvalidArgumentError(
          absl::StrCat("\"table\" must have one row per label (", m, ") of f_y(0..n) (", n + 1,
                       " values), got ", table->size(), " rows of ", (*table)[0].size()));
    }
    return t == "max" ? CliquePotential::MaxOf(std::move(*table))
                      : CliquePotential::SumOf(std::move(*table));
  }
  if (t == "majority") {
    if (auto s = OnlyKeys(p, {"type", "W"}, "the potential"); !s.ok()) return s;
    auto w = Matrix(p.Find("W"), "W");
    if (!w.ok()) return w.status();
    if (static_cast<int>(w->size()) != m || static_cast<int>((*w)[0].size()) != m) {
      return absl::InvalidArgumentError(
          absl::StrCat("\"W\" must be ", m, " x ", m, ", got ", w->size(), " x ", (*w)[0].size()));
    }
    return CliquePotential::Majority(std::move(*w));
  }
  return absl::InvalidArgumentError(
      absl::StrCat("unknown potential type ", JsonString(t),
                   " (expected potts, entropy, makespan, max, sum or majority)"));
}

}  // namespace

absl::StatusOr<Clique> ParseCliqueJson(std::string_view text) {
  auto doc = JsonParser(text).ParseDocument();
  if (!doc.ok()) return doc.status();
  if (doc->type != JsonValue::Type::kObject) {
    return absl::InvalidArgumentError("a clique must be a JSON object");
  }
  if (auto s = OnlyKeys(*doc, {"potentials", "potential"}, "a clique"); !s.ok()) return s;
  auto phi = Matrix(doc->Find("potentials"), "potentials");
  if (!phi.ok()) return phi.status();
  const int64_t n = phi->size();
  const int64_t m = (*phi)[0].size();
  if (n > kMaxCliqueNodes) {
    return absl::InvalidArgumentError(
        absl::StrCat("the clique has ", n, " nodes, more than the limit ", kMaxCliqueNodes));
  }
  if (m > kMaxCliqueLabels) {
    return absl::InvalidArgumentError(
        absl::StrCat("the clique has ", m, " labels, more than the limit ", kMaxCliqueLabels));
  }
  const JsonValue* p = doc->Find("potential");
  if (auto s = Expect(p != nullptr, "missing \"potential\""); !s.ok()) return s;
  auto potential = PotentialFrom(*p, static_cast<int>(n), static_cast<int>(m));
  if (!potential.ok()) return potential.status();
  std::vector<double> flat;
  flat.reserve(n * m);
  for (const auto& row : *phi) flat.insert(flat.end(), row.begin(), row.end());
  return Clique::Create(static_cast<int>(n), static_cast<int>(m), std::move(flat),
                        std::move(*potential));
}

absl::StatusOr<std::optional<Clique>> CliqueReader::Next() {
  while (true) {
    line_.clear();
    if (!in_.good()) {
      if (in_.bad()) return absl::DataLossError(absl::StrCat(name_, ": read error"));
      return std::nullopt;
    }
    // Bounded getline: an overlong line is refused before it is buffered whole.
    bool got_any = false;
    int c;
    while ((c = in_.get()) != std::char_traits<char>::eof()) {
      got_any = true;
      if (c == '\n') break;
      if (static_cast<int64_t>(line_.size()) >= kMaxLineBytes) {
        return absl::InvalidArgumentError(absl::StrCat(
            name_, ":", line_number_ + 1, ": line longer than ", kMaxLineBytes, " bytes"));
      }
      line_.push_back(static_cast<char>(c));
    }
    if (in_.bad()) return absl::DataLossError(absl::StrCat(name_, ": read error"));
    if (!got_any) return std::nullopt;
    ++line_number_;
    if (!line_.empty() && line_.back() == '\r') line_.pop_back();
    if (line_.find_first_not_of(" \t") == std::string::npos) continue;  // blank line
    auto clique = ParseCliqueJson(line_);
    if (!clique.ok()) {
      return absl::Status(clique.status().code(),
                          absl::StrCat(name_, ":", line_number_, ": ", clique.status().message()));
    }
    return std::optional<Clique>(std::move(*clique));
  }
}

}  // namespace chaintag
