// Decoding requests from Python keyword arguments: each keyword is a field of the request table
// (tagging/request_table.h), its value converted from python-crfsuite-like shapes.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "chaintag/model.h"
#include "chaintag/tagging.h"
#include "python/convert.h"
#include "python/extras.h"
#include "tagging/request_table.h"

namespace chaintag::python {

// A keyword argument as the request table's value of `field` (python-crfsuite-like shapes:
// counts as a dict or list, score_range as a pair, exclude as a list of label lists).
namespace {

RequestValue ValueFromPython(const RequestField& field, py::handle v) {
  const std::string key(field.name);
  switch (field.type) {
    case RequestFieldType::kBool:
      return BoolOf(v, key);
    case RequestFieldType::kInt:
      return int64_t{
          IntOf(v, key, static_cast<long long>(field.min), static_cast<long long>(field.max))};
    case RequestFieldType::kNumber:
      return FloatOf(v, key);
    case RequestFieldType::kChoice:
      return StrOf(v, key);
    case RequestFieldType::kText:
      return PathOf(v, key);
    case RequestFieldType::kCounts: {
      // {"chunk:NP": (1, 3), "VB*": (1, None), "B-NP": 2} or ["B-NP=2..4", ...]
      std::vector<std::string> specs;
      if (py::isinstance<py::dict>(v)) {
        for (auto kv : py::reinterpret_borrow<py::dict>(v)) {
          const std::string label = StrOf(kv.first, "counts key");
          py::handle bounds = kv.second;
          auto bound = [&](py::handle b) -> std::string {
            if (b.is_none()) return "";
            if (!py::isinstance<py::int_>(b) || py::isinstance<py::bool_>(b)) {
              throw py::type_error(absl::StrCat("counts['", label,
                                                "']: expected an int, an (int|None, int|None) "
                                                "pair of bounds"));
            }
            return std::to_string(IntOf(b, absl::StrCat("counts['", label, "']")));
          };
          if (py::isinstance<py::tuple>(bounds) || py::isinstance<py::list>(bounds)) {
            py::sequence pair = py::reinterpret_borrow<py::sequence>(bounds);
            if (py::len(pair) != 2) {
              throw py::value_error(
                  absl::StrCat("counts['", label, "']: expected a (lower, upper) pair"));
            }
            specs.push_back(absl::StrCat(label, "=", bound(pair[0]), "..", bound(pair[1])));
          } else {
            specs.push_back(absl::StrCat(label, "=", bound(bounds)));
          }
        }
      } else if (py::isinstance<py::str>(v)) {
        specs.push_back(Utf8(v, "counts"));
      } else {
        for (py::handle spec : v) specs.push_back(StrOf(spec, "counts"));
      }
      return specs;
    }
    case RequestFieldType::kScoreRange: {
      if (!py::isinstance<py::sequence>(v) || py::isinstance<py::str>(v) ||
          py::len(py::reinterpret_borrow<py::sequence>(v)) != 2)
        throw py::type_error("score_range: expected a (lower, upper) pair");
      py::sequence pair = py::reinterpret_borrow<py::sequence>(v);
      ScoreBounds b;
      b.lower = pair[0].is_none() ? -HUGE_VAL : FloatOf(pair[0], "score_range lower bound");
      b.upper = pair[1].is_none() ? HUGE_VAL : FloatOf(pair[1], "score_range upper bound");
      if (std::isnan(b.lower) || std::isnan(b.upper) ||
          (!pair[0].is_none() && !std::isfinite(b.lower)) ||
          (!pair[1].is_none() && !std::isfinite(b.upper))) {
        throw py::value_error("score_range: expected finite numbers (None for an open end)");
      }
      if (b.lower > b.upper) {
        throw py::value_error(absl::StrCat("score_range: empty range ", NumberText(b.lower), "..",
                                           NumberText(b.upper)));
      }
      return b;
    }
    case RequestFieldType::kLabelings: {
      Labelings labelings;
      for (py::handle labeling : v) {
        if (py::isinstance<py::str>(labeling))
          throw py::type_error("exclude: expected a list of labelings (lists of labels)");
        std::vector<std::string> labels;
        for (py::handle l : labeling) labels.push_back(StrOf(l, "exclude"));
        labelings.push_back(std::move(labels));
      }
      return labelings;
    }
    case RequestFieldType::kLabels:
      break;  // forced=: resolved per sentence (ForcedFor)
  }
  throw py::type_error(absl::StrCat(key, ": not a request value"));
}

// tag()'s keyword arguments: the request table's fields Python offers (None = the default).
}  // namespace

RequestArgs ParseRequest(const Model& last, const py::kwargs& kwargs) {
  RequestArgs a;
  RequestBuilder builder(last, kPythonSurface);
  for (auto item : kwargs) {
    const std::string key = StrOf(item.first, "keyword");
    const RequestField* field = FindRequestField(key);
    if (field == nullptr || field->name != key || !field->on(kPythonSurface)) {
      std::vector<std::string> names;
      for (const RequestField& f : RequestFields()) {
        if (f.on(kPythonSurface)) names.emplace_back(f.name);
      }
      throw py::type_error(absl::StrCat("unexpected keyword argument '", key, "'; expected one of ",
                                        absl::StrJoin(names, ", ")));
    }
    if (item.second.is_none()) continue;
    if (field->type == RequestFieldType::kLabels) {
      a.forced_obj = py::reinterpret_borrow<py::object>(item.second);
      a.per_sentence = true;
      continue;
    }
    Check(builder.Set(key, ValueFromPython(*field, item.second)));
  }
  a.request = Check(builder.Build());
  a.exclude = builder.exclude();
  a.per_sentence |= a.request.exclusions;
  return a;
}

// forced= for a sentence of m tokens: {position: label} or a list of labels / None / "_".
std::vector<std::string> ForcedFor(const py::object& f, int m) {
  std::vector<std::string> forced(m, "_");
  if (f.is_none()) return {};
  if (py::isinstance<py::dict>(f)) {
    for (auto kv : py::reinterpret_borrow<py::dict>(f)) {
      const long long t = IntOf(kv.first, "forced position");
      if (t < -m || t >= m) {
        throw py::value_error(
            absl::StrCat("forced: position ", t, " is outside the sentence (", m, " tokens)"));
      }
      forced[t < 0 ? t + m : t] = StrOf(kv.second, "forced label");
    }
  } else {
    py::sequence seq = py::reinterpret_borrow<py::sequence>(f);
    if (static_cast<int>(py::len(seq)) != m) {
      throw py::value_error(absl::StrCat(
          "forced: expected ", m, " labels (one per token, None for free), found ", py::len(seq)));
    }
    for (int t = 0; t < m; ++t) {
      if (!seq[t].is_none()) forced[t] = StrOf(seq[t], "forced label");
    }
  }
  return forced;
}

}  // namespace chaintag::python
