// Python token lists, column tuples and attribute dicts as Sentences (the input side of
// chaintag._core: tag()'s x and the sequences chaintag.train reads from memory).
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cmath>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "chaintag/corpus.h"
#include "chaintag/model.h"
#include "chaintag/tagging.h"
#include "model/model_file.h"
#include "python/convert.h"
#include "python/extras.h"

namespace chaintag::python {
namespace {

// Builds the attributes of one token the way python-crfsuite's ItemSequence reads an item: a dict
// maps names to weights (a str value v gives the attribute "name=v" with weight 1, a nested dict
// gives "name:inner" names, bool and numbers are weights), a list/tuple/set of str names has
// weight 1 each.
class AttributeBuilder {
 public:
  AttributeBuilder(Sentence* sentence, const char* what) : s_(sentence), what_(what) {}

  void Token(const py::handle& item, size_t t) {
    t_ = t;
    fields_.clear();
    if (py::isinstance<py::dict>(item)) {
      std::string prefix;
      AddDict(py::reinterpret_borrow<py::dict>(item), &prefix, 0);
    } else if (py::isinstance<py::list>(item) || py::isinstance<py::tuple>(item) ||
               py::isinstance<py::set>(item) || py::isinstance<py::frozenset>(item)) {
      for (py::handle v : item) {
        if (!py::isinstance<py::str>(v)) {
          throw py::type_error(absl::StrCat(what_, ": token ", t_,
                                            ": expected str attribute names in a list, found ",
                                            TypeName(v), " (use a dict for weights)"));
        }
        Add(Utf8(v, Where("attribute name")), 1.0);
      }
    } else {
      throw py::type_error(absl::StrCat(what_, ": token ", t_,
                                        ": expected a dict of attribute weights or a list of "
                                        "attribute names, found ",
                                        TypeName(item)));
    }
    s_->attribute_offsets.push_back(static_cast<int32_t>(s_->attribute_names.size()));
    s_->columns[0].push_back(std::move(fields_));
  }

 private:
  // Nested dicts deeper than this are refused: a dict that contains itself would never end.
  static constexpr int kMaxNesting = 100;

  std::string Where(const std::string& what) const {
    return absl::StrCat(what_, ": token ", t_, ": ", what);
  }

  void AddDict(const py::dict& d, std::string* prefix, int depth) {
    if (depth >= kMaxNesting) {
      throw py::value_error(absl::StrCat(what_, ": token ", t_, ": attribute '",
                                         prefix->substr(0, 60), prefix->size() > 60 ? "...'" : "'",
                                         ": expected feature dicts nested at most ", kMaxNesting,
                                         " deep (does a dict contain itself?)"));
    }
    const size_t keep = prefix->size();
    for (auto kv : d) {
      if (!py::isinstance<py::str>(kv.first)) {
        throw py::type_error(absl::StrCat(
            what_, ": token ", t_, ": expected str attribute names, found ", TypeName(kv.first)));
      }
      prefix->resize(keep);
      *prefix += Utf8(kv.first, Where("attribute name"));
      py::handle v = kv.second;
      if (py::isinstance<py::str>(v)) {
        Add(absl::StrCat(*prefix, "=", Utf8(v, Where(absl::StrCat("attribute '", *prefix, "'")))),
            1.0);
      } else if (py::isinstance<py::dict>(v)) {
        *prefix += ':';
        AddDict(py::reinterpret_borrow<py::dict>(v), prefix, depth + 1);
      } else {
        PyObject* number = PyNumber_Float(v.ptr());
        if (number == nullptr) {
          PyErr_Clear();
          throw py::type_error(absl::StrCat(what_, ": token ", t_, ": attribute '", *prefix,
                                            "': expected a number, bool, str or dict value, found ",
                                            TypeName(v)));
        }
        const double w = PyFloat_AsDouble(number);
        Py_DECREF(number);
        Add(*prefix, w);
      }
    }
    prefix->resize(keep);
  }

  void Add(const std::string& name, double weight) {
    if (name.empty()) {
      throw py::value_error(
          absl::StrCat(what_, ": token ", t_, ": expected a non-empty attribute name"));
    }
    bool ascii = true;
    for (char c : name) {
      if (static_cast<unsigned char>(c) < 0x20) {
        throw py::value_error(absl::StrCat(what_, ": token ", t_, ": attribute '", name,
                                           "': expected a name without tabs, line breaks or "
                                           "control characters"));
      }
      ascii &= static_cast<unsigned char>(c) < 0x7F;
    }
    // DEL and the C1 controls, which a model file refuses, checked now rather than at save.
    if (!ascii) {
      if (absl::Status st = model_file::CheckModelString(name, model_file::StringRule::kLine,
                                                         "the attribute name",
                                                         absl::StrCat(what_, ": token ", t_));
          !st.ok()) {
        throw py::value_error(std::string(st.message()));
      }
    }
    if (!std::isfinite(weight) || std::abs(weight) > kMaxAttributeWeight) {
      throw py::value_error(absl::StrCat(
          what_, ": token ", t_, ": attribute '", name, "': expected a finite weight between -",
          kMaxAttributeWeight, " and ", kMaxAttributeWeight, ", found ", NumberText(weight),
          " (training sums weights in fixed point; scale the feature)"));
    }
    const float w = static_cast<float>(weight);
    if (!fields_.empty()) fields_.push_back('\t');
    fields_ += FormatAttributeField(name, w);
    s_->attribute_names.push_back(name);
    s_->attribute_values.push_back(w);
  }

  Sentence* s_;
  const char* what_;
  size_t t_ = 0;
  std::string fields_;
};

// x for a model trained on attributes: a list of per-token dicts or lists of names.
}  // namespace

Sentence AttributeSentenceFrom(const py::handle& x, const char* what) {
  if (py::isinstance<py::str>(x) || py::isinstance<py::bytes>(x) ||
      !py::isinstance<py::sequence>(x)) {
    throw py::type_error(absl::StrCat(what,
                                      ": expected a list of per-token attribute dicts or lists "
                                      "(the model was trained on attributes)"));
  }
  py::sequence seq = py::reinterpret_borrow<py::sequence>(x);
  const size_t m = py::len(seq);
  if (m == 0) throw py::value_error(absl::StrCat(what, ": expected at least one token"));
  Sentence s;
  s.file = what;
  s.columns.resize(1);
  s.columns[0].reserve(m);
  s.attribute_offsets.reserve(m + 1);
  s.attribute_offsets.push_back(0);
  AttributeBuilder builder(&s, what);
  for (size_t t = 0; t < m; ++t) builder.Token(seq[t], t);
  s.token_lines.assign(m, 0);
  return s;
}

// Whether a token list looks like attribute input (its first token is a dict).
bool LooksLikeAttributes(const py::handle& x) {
  if (py::isinstance<py::str>(x) || !py::isinstance<py::sequence>(x)) return false;
  py::sequence seq = py::reinterpret_borrow<py::sequence>(x);
  return py::len(seq) > 0 && py::isinstance<py::dict>(seq[0]);
}

// x: a list of str (one column) or of tuples/lists of str (columns, the word first); with
// `attributes` (a model trained on attributes), per-token attribute dicts or lists of names.
Sentence SentenceFrom(const py::handle& x, const char* what, bool attributes) {
  if (attributes) return AttributeSentenceFrom(x, what);
  if (LooksLikeAttributes(x)) {
    throw py::type_error(absl::StrCat(what,
                                      ": feature dicts are for models trained on attributes; "
                                      "this model reads tokens or column tuples"));
  }
  if (py::isinstance<py::str>(x) || py::isinstance<py::bytes>(x)) {
    throw py::type_error(absl::StrCat(what,
                                      ": expected a list of tokens or of column tuples, found a "
                                      "string (tag_text() takes raw text)"));
  }
  py::sequence seq = py::reinterpret_borrow<py::sequence>(x);
  if (!py::isinstance<py::sequence>(x)) {
    throw py::type_error(absl::StrCat(what, ": expected a list of tokens or of column tuples"));
  }
  const size_t m = py::len(seq);
  if (m == 0) throw py::value_error(absl::StrCat(what, ": expected at least one token"));
  Sentence s;
  s.file = what;
  for (size_t t = 0; t < m; ++t) {
    py::handle item = seq[t];
    if (py::isinstance<py::str>(item)) {
      if (s.columns.empty()) s.columns.resize(1);
      if (s.columns.size() != 1) {
        throw py::value_error(absl::StrCat(what, ": token ", t,
                                           " is a string, but earlier tokens are column tuples"));
      }
      s.columns[0].push_back(Utf8(item, absl::StrCat(what, ": token ", t)));
    } else if (py::isinstance<py::tuple>(item) || py::isinstance<py::list>(item)) {
      py::sequence cols = py::reinterpret_borrow<py::sequence>(item);
      const size_t n = py::len(cols);
      if (t == 0) {
        if (n == 0 || n > static_cast<size_t>(DecodeRequest::kMaxColumns)) {
          throw py::value_error(absl::StrCat(what, ": expected 1 to ", DecodeRequest::kMaxColumns,
                                             " columns per token, found ", n));
        }
        s.columns.resize(n);
      } else if (n != s.columns.size()) {
        throw py::value_error(absl::StrCat(what, ": expected ", s.columns.size(),
                                           " columns at token ", t, " (as at token 0), found ", n));
      }
      for (size_t c = 0; c < n; ++c) {
        py::handle v = cols[c];
        if (!py::isinstance<py::str>(v)) {
          throw py::type_error(absl::StrCat(what, ": expected str columns, found ", TypeName(v),
                                            " at token ", t, " column ", c));
        }
        s.columns[c].push_back(Utf8(v, absl::StrCat(what, ": token ", t, " column ", c)));
      }
    } else {
      throw py::type_error(absl::StrCat(what,
                                        ": expected a token (str) or a column tuple at position ",
                                        t, ", found ", TypeName(item)));
    }
  }
  for (const std::string& w : s.columns[0]) {
    if (w.empty()) throw py::value_error(absl::StrCat(what, ": expected non-empty tokens"));
  }
  s.token_lines.assign(m, 0);
  return s;
}

}  // namespace chaintag::python
