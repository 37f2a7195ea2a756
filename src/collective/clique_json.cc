// Cliques as JSON lines: each line a strict JSON document (json_document.h: nlohmann-json with
// nesting, size and duplicate-key checks), mapped onto Clique and CliquePotential.
#include <cmath>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "collective/collective.h"
#include "json_document.h"
#include "json_string.h"

namespace chaintag {

namespace {

using nlohmann::json;

constexpr int kMaxJsonDepth = 16;
// Values in one line: a clique's cells plus a potential's table, with room to spare.
constexpr int64_t kMaxJsonValues = 3 * kMaxCliqueCells;

// The member `key` of an object, or null when absent.
const json* Find(const json& object, const std::string& key) {
  auto it = object.find(key);
  return it == object.end() ? nullptr : &*it;
}

absl::Status Expect(bool ok, std::string_view message) {
  return ok ? absl::OkStatus() : absl::InvalidArgumentError(std::string(message));
}

// An array of arrays of numbers, every row the same length (`what` names it in errors).
absl::StatusOr<std::vector<std::vector<double>>> Matrix(const json* v, const std::string& what) {
  if (v == nullptr) return absl::InvalidArgumentError(absl::StrCat("missing \"", what, "\""));
  if (!v->is_array() || v->empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("\"", what, "\" must be a non-empty array of arrays of numbers"));
  }
  std::vector<std::vector<double>> rows;
  rows.reserve(v->size());
  for (size_t i = 0; i < v->size(); ++i) {
    const json& row = (*v)[i];
    if (!row.is_array() || row.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("\"", what, "\"[", i, "] must be a non-empty array of numbers"));
    }
    if (row.size() != (*v)[0].size()) {
      return absl::InvalidArgumentError(absl::StrCat("\"", what, "\"[", i, "] has ", row.size(),
                                                     " values, \"", what, "\"[0] has ",
                                                     (*v)[0].size()));
    }
    std::vector<double> values;
    values.reserve(row.size());
    for (size_t j = 0; j < row.size(); ++j) {
      if (!row[j].is_number()) {
        return absl::InvalidArgumentError(
            absl::StrCat("\"", what, "\"[", i, "][", j, "] must be a number"));
      }
      values.push_back(row[j].get<double>());
    }
    rows.push_back(std::move(values));
  }
  return rows;
}

absl::StatusOr<double> Number(const json& object, const std::string& key,
                              std::optional<double> fallback = std::nullopt) {
  const json* v = Find(object, key);
  if (v == nullptr) {
    if (fallback) return *fallback;
    return absl::InvalidArgumentError(absl::StrCat("the potential needs \"", key, "\""));
  }
  if (!v->is_number()) {
    return absl::InvalidArgumentError(absl::StrCat("\"", key, "\" must be a number"));
  }
  return v->get<double>();
}

absl::Status OnlyKeys(const json& object, std::initializer_list<const char*> keys,
                      const std::string& where) {
  for (const auto& [k, value] : object.items()) {
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

absl::StatusOr<CliquePotential> PotentialFrom(const json& p, int n, int m) {
  if (!p.is_object()) {
    return absl::InvalidArgumentError("\"potential\" must be an object with a \"type\"");
  }
  const json* type = Find(p, "type");
  if (type == nullptr || !type->is_string()) {
    return absl::InvalidArgumentError(
        "\"potential\" needs \"type\": \"potts\", \"entropy\", \"makespan\", \"max\", \"sum\" or "
        "\"majority\"");
  }
  const std::string& t = type->get_ref<const std::string&>();
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
    auto table = Matrix(Find(p, "table"), "table");
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
    auto w = Matrix(Find(p, "W"), "W");
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
  auto doc = ParseJsonDocument(text, {kMaxJsonDepth, kMaxJsonValues});
  if (!doc.ok()) return doc.status();
  if (!doc->is_object()) {
    return absl::InvalidArgumentError("a clique must be a JSON object");
  }
  if (auto s = OnlyKeys(*doc, {"potentials", "potential"}, "a clique"); !s.ok()) return s;
  auto phi = Matrix(Find(*doc, "potentials"), "potentials");
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
  const json* p = Find(*doc, "potential");
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
