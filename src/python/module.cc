// The Python module chaintag._core (pybind11): models, pipelines, decoding requests, ordered
// multi-threaded batch tagging with the GIL released, and training. Everything here is a call into
// src/tagging and src/train; the pure-Python package chaintag/ re-exports it. Library errors
// become ValueError (FileNotFoundError for missing files); nothing here exits or prints.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <atomic>
#include <charconv>
#include <cmath>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "chaintag/corpus.h"
#include "chaintag/eval.h"
#include "chaintag/features.h"
#include "chaintag/model.h"
#include "chaintag/tagging.h"
#include "chaintag/text.h"
#include "chaintag/train.h"
#include "model/model_file.h"
#include "python/convert.h"
#include "python/extras.h"
#include "tagging/request_table.h"

namespace py = pybind11;

namespace chaintag::python {
namespace {

// Shortest text that reads back as the same double.
std::string NumberText(double x) {
  char buffer[64];
  auto [end, ec] = std::to_chars(buffer, buffer + sizeof(buffer), x);
  return std::string(buffer, end);
}

// ------------------------------------------------------------------------------------------
// Input: token lists and column tuples as Sentences.

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
Sentence SentenceFrom(const py::handle& x, const char* what = "x", bool attributes = false) {
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

// ------------------------------------------------------------------------------------------
// Results.

// What a tagged sentence yields to Python; built from a TagResult without the GIL (ids only),
// turned into Python objects with it.
struct Tagged {
  std::vector<std::vector<int>> layers;
  struct Sol {
    int rank;
    std::vector<int> labels;
    double score, probability, cost;
  };
  std::vector<Sol> solutions;
  SentenceStatus status = SentenceStatus::kOk;
  std::string status_reason;
  double score_resolution = 0.0;
  std::vector<double> marginals;
  std::optional<bool> exact;  // latent models: whether the answer is certified
  int64_t hidden_paths = 0;   // latent models: hidden paths the search enumerated
  int64_t nodes = -1;         // LMSBN models: nodes the branch-and-bound search expanded
  bool optimal = true;        // LMSBN models: the search finished
};

// marginals=True answers a numpy array: without numpy that is said plainly (an interpreter
// such as a pyenv build may lack it), not as pybind11's bare "No module named 'numpy'".
void RequireNumpy() {
  try {
    py::module_::import("numpy");
  } catch (py::error_already_set& e) {
    if (!e.matches(PyExc_ImportError)) throw;
    const std::string python = py::str(py::module_::import("sys").attr("executable"));
    throw py::import_error(
        "marginals=True returns a numpy array, and numpy is not installed for " + python +
        " (Debian: python3-numpy with /usr/bin/python3; pip install numpy); Model.marginal(x, "
        "label, t) needs no numpy");
  }
}

Tagged TaggedOf(const TagResult& r) {
  Tagged t;
  t.layers = r.layers;
  t.solutions.reserve(r.solutions.size());
  for (const Solution& s : r.solutions)
    t.solutions.push_back({s.rank, s.labels, s.score, s.probability, s.cost});
  t.status = r.status;
  t.status_reason = r.status_reason;
  t.score_resolution = r.score_resolution;
  t.marginals = r.marginals;
  t.exact = r.exact;
  t.hidden_paths = r.hidden_paths;
  t.nodes = r.nodes;
  t.optimal = r.optimal;
  return t;
}

// One labeling of the last model.
struct PySolution {
  int rank = 1;
  py::list labels;
  double score = 0.0;
  py::object probability;
  py::object cost = py::none();  // LMSBN models: sum of the per-token hinge losses
};

// One tagged sentence as Python sees it.
struct PySentence {
  py::list tokens;
  py::object offsets = py::none();
  py::list labels;  // one list per model; the last is None when no labeling could be given
  py::object score = py::none();
  py::object probability = py::none();
  std::string status = "ok";
  std::string status_reason;
  py::list solutions;
  py::object marginals = py::none();
  py::list label_names;  // the last model's labels: the columns of `marginals`
  py::object score_resolution = py::none();
  py::object exact = py::none();         // latent models: True when certified
  py::object hidden_paths = py::none();  // latent models: hidden paths enumerated
  py::object optimal = py::none();       // LMSBN models: the search finished
  py::object nodes = py::none();         // LMSBN models: nodes expanded
};

// ------------------------------------------------------------------------------------------
// Requests from keyword arguments.

struct RequestArgs {
  DecodeRequest request;
  std::vector<std::vector<std::string>> exclude;
  std::vector<std::string> forced_spec;  // empty: none; else per token label or "_"
  py::object forced_obj = py::none();    // forced=, resolved per sentence (its length)
  bool per_sentence = false;             // exclude= or forced= given
};

// A keyword argument as the request table's value of `field` (python-crfsuite-like shapes:
// counts as a dict or list, score_range as a pair, exclude as a list of label lists).
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

// ------------------------------------------------------------------------------------------
// Pipelines.

class PyPipeline {
 public:
  explicit PyPipeline(std::vector<std::shared_ptr<const Model>> models)
      : models_(std::move(models)) {
    if (models_.empty()) throw py::value_error("a pipeline needs at least one model");
    for (const auto& m : models_) {
      ptrs_.push_back(m.get());
      py::list names;
      for (const std::string& l : m->labels()) names.append(py::str(l));
      label_strs_.push_back(names);
    }
  }
  const std::vector<std::shared_ptr<const Model>>& models() const { return models_; }
  const std::vector<const Model*>& ptrs() const { return ptrs_; }
  const Model& last() const { return *models_.back(); }
  // Whether the first model reads attributes (per-token feature dicts) instead of columns.
  bool reads_attributes() const { return models_.front()->spec().reads_attributes(); }

  // Python objects for a tagged sentence; `tokens` is a list of str.
  // `probability`: whether P(y|x) was computed (else Solution.probability is None).
  PySentence Convert(const Tagged& t, py::list tokens, py::object offsets, bool probability) const {
    PySentence s;
    s.tokens = std::move(tokens);
    s.offsets = std::move(offsets);
    for (size_t k = 0; k < t.layers.size(); ++k) s.labels.append(Names(k, t.layers[k]));
    const size_t last_index = models_.size() - 1;
    s.label_names = label_strs_[last_index];
    s.status = SentenceStatusName(t.status);
    s.status_reason = t.status_reason;
    for (const Tagged::Sol& sol : t.solutions) {
      PySolution p;
      p.rank = sol.rank;
      p.labels = Names(last_index, sol.labels);
      p.score = sol.score;
      p.probability = probability ? py::object(py::float_(sol.probability)) : py::none();
      if (t.nodes >= 0) p.cost = py::float_(sol.cost);
      s.solutions.append(py::cast(std::move(p)));
    }
    if (t.solutions.empty()) {
      s.labels.append(py::none());
    } else {
      const PySolution& best = s.solutions[0].cast<const PySolution&>();
      s.labels.append(best.labels);
      s.score = py::float_(best.score);
      s.probability = best.probability;
    }
    if (t.score_resolution > 0) s.score_resolution = py::float_(t.score_resolution);
    if (t.exact.has_value()) {
      s.exact = py::bool_(*t.exact);
      s.hidden_paths = py::int_(t.hidden_paths);
    }
    if (t.nodes >= 0) {
      s.optimal = py::bool_(t.optimal);
      s.nodes = py::int_(t.nodes);
    }
    if (!t.marginals.empty()) {
      RequireNumpy();
      const py::ssize_t n = last().num_labels();
      const py::ssize_t m = static_cast<py::ssize_t>(t.marginals.size()) / n;
      py::array_t<double> a({m, n});
      std::copy(t.marginals.begin(), t.marginals.end(), a.mutable_data());
      s.marginals = std::move(a);
    }
    return s;
  }

 private:
  py::list Names(size_t model, const std::vector<int>& ids) const {
    py::list out(ids.size());
    const py::list& names = label_strs_[model];
    for (size_t i = 0; i < ids.size(); ++i) {
      PyObject* o = PyList_GET_ITEM(names.ptr(), ids[i]);
      Py_INCREF(o);
      PyList_SET_ITEM(out.ptr(), i, o);
    }
    return out;
  }
  std::vector<std::shared_ptr<const Model>> models_;
  std::vector<const Model*> ptrs_;
  std::vector<py::list> label_strs_;
};

py::list TokensOf(const Sentence& s) {
  py::list out(s.size());
  for (int t = 0; t < s.size(); ++t) {
    const std::string& w = s.word(t);
    PyObject* o = PyUnicode_DecodeUTF8(w.data(), static_cast<Py_ssize_t>(w.size()), "strict");
    if (o == nullptr) throw py::error_already_set();
    PyList_SET_ITEM(out.ptr(), t, o);
  }
  return out;
}

py::object OffsetsOf(const Sentence& s) {
  if (s.offsets.empty()) return py::none();
  py::list out;
  for (const auto& [b, e] : s.offsets) out.append(py::make_tuple(b, e));
  return out;
}

// Tags sentences in memory (one call, GIL released while tagging).
std::vector<PySentence> TagSentences(PyPipeline& p, std::vector<TagResult> inputs,
                                     const DecodeRequest& request, int threads) {
  std::vector<py::list> tokens;
  std::vector<py::object> offsets;
  for (const TagResult& r : inputs) {
    tokens.push_back(TokensOf(r.sentence));
    offsets.push_back(OffsetsOf(r.sentence));
  }
  std::vector<Tagged> tagged;
  absl::Status status;
  {
    py::gil_scoped_release release;
    BatchTagger tagger(
        p.ptrs(), request, threads,
        [&](const TagResult& r) {
          tagged.push_back(TaggedOf(r));
          return absl::OkStatus();
        },
        "exclude", std::max<size_t>(inputs.size(), 1));
    for (TagResult& r : inputs) {
      status = tagger.Add(std::move(r));
      if (!status.ok()) break;
    }
    if (status.ok()) status = tagger.Flush();
  }
  Check(status);
  std::vector<PySentence> out;
  for (size_t i = 0; i < tagged.size(); ++i)
    out.push_back(p.Convert(tagged[i], tokens[i], offsets[i], request.probability));
  return out;
}

PySentence TagOne(PyPipeline& p, const py::object& x, const py::kwargs& kwargs) {
  RequestArgs a = ParseRequest(p.last(), kwargs);
  TagResult r;
  r.sentence = SentenceFrom(x, "x", p.reads_attributes());
  r.excluded = a.exclude;
  r.forced = ForcedFor(a.forced_obj, r.sentence.size());
  std::vector<TagResult> inputs;
  inputs.push_back(std::move(r));
  return std::move(TagSentences(p, std::move(inputs), a.request, 1)[0]);
}

std::vector<PySentence> TagText(PyPipeline& p, const py::object& text_arg,
                                const py::kwargs& kwargs) {
  if (!py::isinstance<py::str>(text_arg)) {
    throw py::type_error(absl::StrCat("text: expected a str, found ", TypeName(text_arg),
                                      " (tag() and tag_many() take token lists)"));
  }
  const std::string text = Utf8(text_arg, "text");
  RequestArgs a = ParseRequest(p.last(), kwargs);
  if (a.per_sentence)
    throw py::value_error("exclude= and forced= are per sentence: give them to tag()");
  std::vector<Sentence> sentences;
  {
    py::gil_scoped_release release;
    auto segmented = SegmentText(text, TextOptions{}, "<text>");
    if (segmented.ok())
      sentences = std::move(*segmented);
    else {
      py::gil_scoped_acquire acquire;
      Raise(segmented.status());
    }
  }
  std::vector<TagResult> inputs;
  for (Sentence& s : sentences) {
    TagResult r;
    r.sentence = std::move(s);
    inputs.push_back(std::move(r));
  }
  return TagSentences(p, std::move(inputs), a.request, 1);
}

// tag_many's threads=: 0 is every core; more than 4 per core is capped there with a
// RuntimeWarning, as the CLI's --threads (each thread keeps a tagger and its buffers).
int TaggingThreads(const py::object& arg) {
  const long long requested = IntOf(arg, "threads", 0, INT32_MAX);
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  if (requested == 0) return cores;
  const int cap = 4 * cores;
  if (requested > cap) {
    const std::string message = absl::StrCat("threads=", requested, " capped at ", cap,
                                             " (4 per core on this machine's ", cores, " cores)");
    if (PyErr_WarnEx(PyExc_RuntimeWarning, message.c_str(), 1) != 0) throw py::error_already_set();
    return cap;
  }
  return static_cast<int>(requested);
}

// tag_many: an iterator that pulls `batch_size` inputs, tags them with the GIL released
// (BatchTagger over `threads` pipelines, order kept) and yields them one by one.
class TagStream {
 public:
  TagStream(const TagStream&) = delete;  // the BatchTagger's sink points here
  TagStream& operator=(const TagStream&) = delete;
  TagStream(std::shared_ptr<PyPipeline> pipeline, py::object source, const py::kwargs& kwargs,
            const py::object& threads_arg, const py::object& batch_size_arg)
      : pipeline_(std::move(pipeline)), source_(std::move(source)) {
    const int threads = TaggingThreads(threads_arg);
    const int batch_size = static_cast<int>(IntOf(batch_size_arg, "batch_size", 1, 1 << 20));
    batch_size_ = batch_size;
    RequestArgs a = ParseRequest(pipeline_->last(), kwargs);
    if (a.per_sentence)
      throw py::value_error("exclude= and forced= are per sentence: give them to tag()");
    if (a.request.collective.has_value())
      throw py::value_error("collective= tags a document: give its text to tag_text()");
    request_ = a.request;
    tagger_ = std::make_unique<BatchTagger>(
        pipeline_->ptrs(), request_, threads,
        [this](const TagResult& r) {
          tagged_.push_back(TaggedOf(r));
          return absl::OkStatus();
        },
        "", static_cast<size_t>(batch_size));
  }

  // One thread at a time: Fill releases the GIL while tagging, and another thread's Next would
  // otherwise run the same BatchTagger concurrently. A thread waits for the lock without the GIL;
  // the same thread coming back in (its input iterator reading this stream) is an error, as for
  // a generator.
  PySentence Next() {
    if (busy_.load() && owner_ == std::this_thread::get_id())
      throw py::value_error("tag_many: the stream was read from inside its own input iterator");
    std::unique_lock<std::mutex> lock(mutex_, std::try_to_lock);
    if (!lock.owns_lock()) {
      py::gil_scoped_release release;
      lock.lock();
    }
    owner_ = std::this_thread::get_id();
    busy_.store(true);
    struct Done {
      std::atomic<bool>* busy;
      ~Done() { busy->store(false); }
    } done{&busy_};
    if (ready_.empty()) Fill();
    if (ready_.empty()) throw py::stop_iteration();
    PySentence s = std::move(ready_.front());
    ready_.pop_front();
    return s;
  }
  int64_t sentences() const { return tagger_->sentences(); }
  int64_t tokens() const { return tagger_->tokens(); }

 private:
  void Fill() {
    if (done_) return;
    std::vector<TagResult> inputs;
    std::vector<py::list> tokens;
    while (static_cast<int>(inputs.size()) < batch_size_) {
      PyObject* next = PyIter_Next(source_.ptr());
      if (next == nullptr) {
        if (PyErr_Occurred()) throw py::error_already_set();
        break;
      }
      py::object item = py::reinterpret_steal<py::object>(next);
      TagResult r;
      const std::string what = absl::StrCat("xs[", next_index_++, "]");
      r.sentence = SentenceFrom(item, what.c_str(), pipeline_->reads_attributes());
      tokens.push_back(TokensOf(r.sentence));
      inputs.push_back(std::move(r));
    }
    if (inputs.empty()) {
      done_ = true;
      return;
    }
    absl::Status status;
    tagged_.clear();
    {
      py::gil_scoped_release release;
      for (TagResult& r : inputs) {
        status = tagger_->Add(std::move(r));
        if (!status.ok()) break;
      }
      if (status.ok()) status = tagger_->Flush();
    }
    if (!status.ok()) {
      done_ = true;
      Raise(status);
    }
    for (size_t i = 0; i < tagged_.size(); ++i)
      ready_.push_back(pipeline_->Convert(tagged_[i], tokens[i], py::none(), request_.probability));
    tagged_.clear();
  }

  std::shared_ptr<PyPipeline> pipeline_;
  py::object source_;
  int batch_size_;
  DecodeRequest request_;
  std::unique_ptr<BatchTagger> tagger_;
  std::vector<Tagged> tagged_;
  std::deque<PySentence> ready_;
  bool done_ = false;
  int64_t next_index_ = 0;  // of the next input, for messages
  std::mutex mutex_;
  std::atomic<bool> busy_{false};
  std::thread::id owner_;
};

// ------------------------------------------------------------------------------------------
// Models.

struct PyModel {
  std::shared_ptr<const Model> model;
  std::shared_ptr<PyPipeline> single;  // this model alone, made on first use
  std::string path;
  PyPipeline& pipeline() {
    if (single == nullptr) single = std::make_shared<PyPipeline>(std::vector{model});
    return *single;
  }
};

// Model files loaded at once (Model::LoadAll), without the GIL; the first failing file's error.
std::vector<PyModel> LoadModels(const std::vector<py::object>& paths) {
  std::vector<std::string> files;
  for (const py::object& path : paths) files.push_back(PathOf(path));
  absl::StatusOr<std::vector<Model>> loaded;
  {
    py::gil_scoped_release release;
    loaded = Model::LoadAll(files);
  }
  std::vector<Model> models = Check(std::move(loaded));
  std::vector<PyModel> out(models.size());
  for (size_t i = 0; i < models.size(); ++i) {
    out[i].model = std::make_shared<const Model>(std::move(models[i]));
    out[i].path = files[i];
  }
  return out;
}

PyModel LoadModel(const py::object& path) { return LoadModels({path}).front(); }

py::dict ModelInfoDict(const Model& model) {
  const ModelInfo m = DescribeModel(model);
  py::dict info;
  info["labels"] = m.labels;
  info["num_labels"] = m.labels.size();
  info["num_attributes"] = m.attributes;
  info["num_state_features"] = m.state_features;
  info["format"] = std::string(chaintag::CorpusFormatName(m.input.format));
  info["family"] = m.family;
  if (m.history_templates.has_value()) info["history_templates"] = *m.history_templates;
  if (m.hidden_states.has_value()) {
    py::dict states;
    for (const auto& [label, n] : *m.hidden_states) states[py::str(label)] = n;
    info["hidden_states"] = states;
  }
  info["order"] = m.order;
  py::dict metadata;
  for (const auto& [k, v] : m.metadata) metadata[py::str(k)] = v;
  info["metadata"] = metadata;
  return info;
}

// ------------------------------------------------------------------------------------------
// Training.

// A training item: (tokens, labels) where tokens are str or column tuples.
Sentence LabelledSentence(const py::handle& item, size_t index, bool attributes, const char* kind) {
  py::sequence pair = py::reinterpret_borrow<py::sequence>(item);
  if (!py::isinstance<py::sequence>(item) || py::isinstance<py::str>(item) || py::len(pair) != 2) {
    throw py::type_error(
        absl::StrCat(kind, " sequence ", index, ": expected a (tokens, labels) pair"));
  }
  const std::string what = absl::StrCat(kind, " sequence ", index);
  Sentence s = SentenceFrom(pair[0], what.c_str(), attributes);
  py::object labels = pair[1];
  if (py::isinstance<py::str>(labels))
    throw py::type_error(what + ": expected a list of labels, found a string");
  for (py::handle l : labels) {
    if (!py::isinstance<py::str>(l)) throw py::type_error(what + ": expected str labels");
    std::string label = Utf8(l, what + ": label");
    if (label.empty()) throw py::value_error(what + ": expected non-empty labels");
    // Checked now, not when the trained model is saved.
    if (absl::Status st = model_file::CheckModelString(
            label, model_file::StringRule::kName,
            absl::StrCat("the label at token ", s.labels.size()), what);
        !st.ok()) {
      throw py::value_error(std::string(st.message()));
    }
    s.labels.push_back(std::move(label));
  }
  if (static_cast<int>(s.labels.size()) != s.size()) {
    throw py::value_error(absl::StrCat(what, ": expected ", s.size(),
                                       " labels (one per token), found ", s.labels.size()));
  }
  s.file = what;
  s.token_lines.assign(s.size(), 0);
  return s;
}

// Files (a path or a list of paths) or in-memory (tokens, labels) pairs.
struct TrainData {
  std::vector<std::string> files;
  std::vector<Sentence> sentences;
};
// `attributes`: in-memory sequences are per-token attribute dicts/lists; nullopt: decided by the
// first sequence (dict tokens mean attributes) and returned through `detected`.
TrainData TrainDataOf(const py::object& data, const char* what, std::optional<bool> attributes,
                      bool* detected = nullptr) {
  TrainData d;
  if (IsPathLike(data)) {
    d.files.push_back(PathOf(data));
    return d;
  }
  std::vector<py::object> items;
  for (py::handle item : data) items.push_back(py::reinterpret_borrow<py::object>(item));
  bool all_paths = !items.empty();
  for (const py::object& item : items) all_paths &= IsPathLike(item);
  if (all_paths) {
    for (const py::object& item : items) d.files.push_back(PathOf(item));
    return d;
  }
  if (!attributes.has_value()) {
    bool dicts = false;
    if (!items.empty() && py::isinstance<py::sequence>(items[0]) &&
        !py::isinstance<py::str>(items[0]) && py::len(items[0]) == 2) {
      dicts = LooksLikeAttributes(py::reinterpret_borrow<py::sequence>(items[0])[0]);
    }
    attributes = dicts;
  }
  if (detected != nullptr) *detected = *attributes;
  for (size_t i = 0; i < items.size(); ++i) {
    // Ctrl-C while a large corpus is converted.
    if (i % 256 == 255 && PyErr_CheckSignals() != 0) throw py::error_already_set();
    d.sentences.push_back(LabelledSentence(items[i], i, *attributes,
                                           std::string_view(what) == "dev" ? "dev" : "training"));
  }
  if (d.sentences.empty()) throw py::value_error(absl::StrCat(what, ": no training sequences"));
  return d;
}

std::string OptionText(const py::handle& v) {
  if (py::isinstance<py::bool_>(v)) return v.cast<bool>() ? "true" : "false";
  if (py::isinstance<py::float_>(v)) return NumberText(v.cast<double>());
  return StrOf(v, "option");
}

PyModel TrainModel(const py::object& data, const py::object& preset, const py::object& templ,
                   const py::object& template_text, const py::object& format, int label_column,
                   const std::string& objective, const py::object& loss,
                   const py::object& algorithm, const py::object& dev, const py::object& progress,
                   const py::kwargs& options) {
  TrainOptions train_options;
  Check(SetTrainOption(&train_options, "objective", objective));
  if (!loss.is_none()) Check(SetTrainOption(&train_options, "loss", OptionText(loss)));
  if (!algorithm.is_none())
    Check(SetTrainOption(&train_options, "algorithm", OptionText(algorithm)));
  for (auto kv : options) {
    const std::string name = StrOf(kv.first, "keyword");
    if (name == "objective" || name == "loss" || name == "algorithm") continue;
    Check(SetTrainOption(&train_options, name, OptionText(kv.second)));
  }
  Check(ValidateTrainOptions(train_options));
  if (train_options.early_stopping > 0 && dev.is_none())
    throw py::value_error("early_stopping needs dev= (it stops on the dev score)");

  // Attribute input (per-token feature dicts, or files in CRFsuite's format) has no templates.
  std::optional<CorpusFormat> format_given;
  if (!format.is_none()) format_given = Check(ParseCorpusFormat(StrOf(format, "format")));
  std::optional<bool> in_memory_attributes;
  if (format_given.has_value()) in_memory_attributes = *format_given == CorpusFormat::kAttributes;
  bool detected = false;
  TrainData train = TrainDataOf(data, "data", in_memory_attributes, &detected);
  ReaderOptions reader;
  if (format_given.has_value()) {
    reader.format = *format_given;
  } else if (!train.files.empty()) {
    reader.format = CorpusFormatFromPath(train.files.front());
  } else if (detected) {
    reader.format = CorpusFormat::kAttributes;
  }
  reader.label_column = label_column;
  const bool attribute_input = reader.format == CorpusFormat::kAttributes;

  const int given = !preset.is_none() + !templ.is_none() + !template_text.is_none();
  if (attribute_input && given != 0) {
    throw py::value_error(
        "attribute input (feature dicts or format='attributes') takes no preset=, template= or "
        "template_text=");
  }
  if (!attribute_input && given != 1)
    throw py::value_error("give exactly one of preset=, template= (a file) and template_text=");
  FeatureSpec spec;
  std::string spec_name;
  if (attribute_input) {
    spec = FeatureSpec::AttributeInput();
    spec_name = "(attribute input)";
  } else if (!preset.is_none()) {
    spec_name = StrOf(preset, "preset");
    auto s = FeatureSpec::Preset(spec_name);
    if (!s.ok()) {
      throw py::value_error(
          absl::StrCat("preset '", spec_name, "': ", s.status().message(),
                       " (presets: ", absl::StrJoin(FeatureSpec::PresetNames(), ", "), ")"));
    }
    spec = *std::move(s);
  } else if (!templ.is_none()) {
    spec_name = PathOf(templ);
    spec = Check(FeatureSpec::ReadFile(spec_name));
  } else {
    spec_name = "<template_text>";
    spec = Check(FeatureSpec::Parse(Utf8(template_text, "template_text")));
  }

  std::vector<Sentence> dev_sentences;
  if (!dev.is_none()) {
    TrainData d = TrainDataOf(dev, "dev", attribute_input);
    if (!d.files.empty()) {
      py::gil_scoped_release release;
      auto read = ReadCorpus(d.files, reader);
      py::gil_scoped_acquire acquire;
      dev_sentences = Check(std::move(read));
    } else {
      dev_sentences = std::move(d.sentences);
    }
  }
  TrainDataInfo info;
  info.input = InputOptionsOf(reader);
  info.metadata.emplace_back("templates", spec_name);
  info.metadata.emplace_back("training_files", train.files.empty()
                                                   ? "<python sequences>"
                                                   : absl::StrJoin(train.files, " "));

  // Everything training reads is owned by the job: after Ctrl-C the training thread finishes its
  // iteration on its own.
  struct Inputs {
    TrainOptions options;
    FeatureSpec spec;
    TrainData train;
    std::vector<Sentence> dev;
    ReaderOptions reader;
    TrainDataInfo info;
  };
  auto in =
      std::make_shared<Inputs>(Inputs{std::move(train_options), std::move(spec), std::move(train),
                                      std::move(dev_sentences), reader, std::move(info)});
  absl::StatusOr<Model> model = TrainInterruptibly(
      [in](TrainObserver* observer) -> absl::StatusOr<Model> {
        const std::vector<Sentence>* dev_ptr = in->dev.empty() ? nullptr : &in->dev;
        if (in->train.files.empty())
          return Train(in->options, in->spec, in->train.sentences, dev_ptr, observer, in->info);
        size_t next_file = 0;
        std::unique_ptr<SentenceReader> sentence_reader;
        SentenceSource source = [&]() -> absl::StatusOr<std::optional<Sentence>> {
          for (;;) {
            if (sentence_reader == nullptr) {
              if (next_file == in->train.files.size()) return std::nullopt;
              auto opened = OpenSentenceReader(in->train.files[next_file++], in->reader);
              if (!opened.ok()) return opened.status();
              sentence_reader = std::move(*opened);
            }
            auto next = sentence_reader->Next();
            if (!next.ok() || next->has_value()) return next;
            sentence_reader.reset();
          }
        };
        return Train(in->options, in->spec, source, dev_ptr, observer, in->info);
      },
      progress);
  PyModel m;
  m.model = std::make_shared<const Model>(Check(std::move(model)));
  return m;
}

// conlleval-style scores of predicted against gold label sequences (the `eval` command's).
py::dict Evaluate(const py::object& gold, const py::object& predicted) {
  std::vector<std::vector<std::string>> g, p;
  auto read = [](const py::object& seqs, const char* what,
                 std::vector<std::vector<std::string>>* out) {
    if (py::isinstance<py::str>(seqs))
      throw py::type_error(absl::StrCat(what, ": expected a list of label lists"));
    for (py::handle seq : seqs) {
      if (py::isinstance<py::str>(seq))
        throw py::type_error(
            absl::StrCat(what, ": expected a list of label lists, found a string"));
      std::vector<std::string> labels;
      for (py::handle l : seq) {
        if (!py::isinstance<py::str>(l))
          throw py::type_error(absl::StrCat(what, ": expected str labels"));
        labels.push_back(Utf8(l, what));
      }
      out->push_back(std::move(labels));
    }
  };
  read(gold, "gold", &g);
  read(predicted, "predicted", &p);
  if (g.size() != p.size()) {
    throw py::value_error(absl::StrCat("expected as many predicted sequences as gold ones (",
                                       g.size(), "), found ", p.size()));
  }
  Evaluator evaluator;
  for (size_t i = 0; i < g.size(); ++i) {
    absl::Status s = evaluator.Add(g[i], p[i]);
    if (!s.ok()) throw py::value_error(absl::StrCat("sequence ", i, ": ", s.message()));
  }
  const EvalReport report = evaluator.Report();
  auto phrase = [](const PhraseScore& s) {
    py::dict d;
    d["gold"] = s.gold;
    d["predicted"] = s.predicted;
    d["correct"] = s.correct;
    d["precision"] = s.precision;
    d["recall"] = s.recall;
    d["f1"] = s.f1;
    return d;
  };
  py::dict out;
  out["sentences"] = report.sentences;
  out["tokens"] = report.tokens;
  out["accuracy"] = report.accuracy;
  out["has_chunks"] = report.has_chunks;
  out["precision"] = report.overall.precision;
  out["recall"] = report.overall.recall;
  out["f1"] = report.overall.f1;
  out["phrases"] = phrase(report.overall);
  py::dict types;
  for (const PhraseScore& s : report.chunks) types[py::str(s.type)] = phrase(s);
  out["types"] = types;
  py::dict labels;
  for (const LabelScore& s : report.labels) {
    py::dict d;
    d["gold"] = s.gold;
    d["predicted"] = s.predicted;
    d["correct"] = s.correct;
    d["precision"] = s.precision;
    d["recall"] = s.recall;
    d["f1"] = s.f1;
    labels[py::str(s.label)] = d;
  }
  out["labels"] = labels;
  out["report"] = FormatEvalReport(report);
  return out;
}

std::string SentenceRepr(const PySentence& s) {
  std::string out = "Sentence(";
  py::list last = s.labels[py::len(s.labels) - 1].is_none()
                      ? py::list()
                      : py::reinterpret_borrow<py::list>(s.labels[py::len(s.labels) - 1]);
  for (size_t t = 0; t < py::len(s.tokens); ++t) {
    if (t > 0) absl::StrAppend(&out, " ");
    absl::StrAppend(&out, s.tokens[t].cast<std::string>());
    for (size_t k = 0; k < py::len(s.labels); ++k) {
      py::handle layer = s.labels[k];
      if (layer.is_none()) continue;
      absl::StrAppend(&out, "/", py::reinterpret_borrow<py::list>(layer)[t].cast<std::string>());
    }
  }
  absl::StrAppend(&out, ", status=", s.status);
  if (!s.score.is_none()) absl::StrAppend(&out, ", score=", NumberText(s.score.cast<double>()));
  if (!s.probability.is_none())
    absl::StrAppend(&out, ", probability=", NumberText(s.probability.cast<double>()));
  return out + ")";
}

// tag()'s docstring; its keyword arguments are listed from the request table.
const char* TagDoc() {
  static const std::string* doc = new std::string(absl::StrCat(
      R"(Tags one sentence.

x: a list of tokens (str), or a list of column tuples (the word first, then the other input
   columns the first model reads, e.g. (word, POS) for a chunker); for a model trained on
   attributes, a list of per-token feature dicts ({"lower": "the", "len": 0.5}: str
   values give the attribute "name=value", numbers and bools are weights) or lists of
   attribute names (weight 1), as python-crfsuite's ItemSequence.

)",
      "Keyword arguments (all optional; they apply to the last model of a pipeline):\n",
      RequestFieldsHelp(kPythonSurface), "\n",
      R"(Returns a Sentence; its .status is "ok", "infeasible" (no labeling satisfies the request; the
last .labels entry is then None) or "too_large". Errors raise ValueError.)"));
  return doc->c_str();
}

}  // namespace
}  // namespace chaintag::python

using namespace chaintag;          // NOLINT: the module definition names many library types
using namespace chaintag::python;  // NOLINT

PYBIND11_MODULE(_core, m) {
  m.doc() = "chaintag: linear-chain tagging with constrained decoding (C++ core)";

  py::class_<PySolution>(m, "Solution", "One labeling of the last model (k-best, diverse).")
      .def_readonly("rank", &PySolution::rank, "1 = best")
      .def_readonly("labels", &PySolution::labels, "label per token")
      .def_readonly("score", &PySolution::score, "model score F(y)")
      .def_readonly("probability", &PySolution::probability, "P(y|x), or None if not computed")
      .def_readonly("cost", &PySolution::cost,
                    "lmsbn models: sum of the per-token hinge losses (lower is better), else None")
      .def("__repr__", [](const PySolution& s) {
        return absl::StrCat("Solution(rank=", s.rank, ", score=", NumberText(s.score),
                            ", labels=", py::repr(s.labels).cast<std::string>(), ")");
      });

  py::class_<PySentence>(m, "Sentence", R"(A tagged sentence.

tokens       the tokens (str)
offsets      raw text only: [begin, end) code point offsets of each token, else None
labels       one list of labels per model of the pipeline (the last is None when the request
             could not be served: see status)
best         the last model's labels (labels[-1])
score        model score of the best labeling (None if none)
probability  P(labels | tokens) under the last model (None if not computed)
status       "ok", "infeasible" or "too_large"; status_reason says why for too_large
solutions    every labeling of the last model (several with kbest/diverse), best first
marginals    numpy array M x N (marginals=True), columns in label_names order, else None
label_names  the last model's labels)")
      .def_readonly("tokens", &PySentence::tokens)
      .def_readonly("offsets", &PySentence::offsets)
      .def_readonly("labels", &PySentence::labels)
      .def_property_readonly("best",
                             [](const PySentence& s) { return s.labels[py::len(s.labels) - 1]; })
      .def_readonly("score", &PySentence::score)
      .def_readonly("probability", &PySentence::probability)
      .def_readonly("status", &PySentence::status)
      .def_readonly("status_reason", &PySentence::status_reason)
      .def_readonly("solutions", &PySentence::solutions)
      .def_readonly("marginals", &PySentence::marginals)
      .def_readonly("label_names", &PySentence::label_names)
      .def_readonly("score_resolution", &PySentence::score_resolution,
                    "score_range: the resolution actually used")
      .def_readonly("exact", &PySentence::exact,
                    "latent models: True when the answer is certified most probable, else None")
      .def_readonly("hidden_paths", &PySentence::hidden_paths,
                    "latent models: hidden paths the search enumerated, else None")
      .def_readonly("optimal", &PySentence::optimal,
                    "lmsbn models: True when the branch-and-bound search finished (the solutions "
                    "are the lowest-cost ones), else None")
      .def_readonly("nodes", &PySentence::nodes,
                    "lmsbn models: nodes the branch-and-bound search expanded, else None")
      .def("__len__", [](const PySentence& s) { return py::len(s.tokens); })
      .def("__repr__", &SentenceRepr);

  py::class_<TagStream, std::shared_ptr<TagStream>>(
      m, "TagStream", "Iterator of tag_many(): Sentences in input order.")
      .def("__iter__", [](py::object self) { return self; })
      .def("__next__", &TagStream::Next)
      .def_property_readonly("sentences", &TagStream::sentences, "sentences tagged so far")
      .def_property_readonly("tokens", &TagStream::tokens, "tokens tagged so far");

  py::class_<PyPipeline, std::shared_ptr<PyPipeline>> pipeline(m, "Pipeline",
                                                               R"(A pipeline of models.

The first model reads the input's columns; every later model reads the word plus the labels of
the models before it (a POS model, then a chunker reading the predicted POS). Decoding requests
(kbest, counts, ...) apply to the last model. Make one with chaintag.load(*paths).)");
  pipeline
      .def_property_readonly("models",
                             [](const PyPipeline& p) {
                               py::list out;
                               for (const auto& m : p.models()) {
                                 PyModel pm;
                                 pm.model = m;
                                 out.append(py::cast(std::move(pm)));
                               }
                               return out;
                             })
      .def_property_readonly(
          "labels", [](const PyPipeline& p) { return p.last().labels(); },
          "the last model's labels")
      .def("tag", &TagOne, py::arg("x"), TagDoc())
      .def("tag_text", &TagText, py::arg("text"),
           "Splits raw UTF-8 text into sentences and Penn-Treebank tokens and tags them; returns a "
           "list of Sentences with .offsets. Takes tag()'s keyword arguments except exclude= and "
           "forced=.")
      .def(
          "tag_many",
          [](std::shared_ptr<PyPipeline> p, py::iterable xs, const py::object& threads,
             const py::object& batch_size, const py::kwargs& kwargs) {
            return std::make_shared<TagStream>(std::move(p), py::iter(xs), kwargs, threads,
                                               batch_size);
          },
          py::arg("xs"), py::kw_only(), py::arg("threads") = 1, py::arg("batch_size") = 256,
          "Tags an iterable of sentences (as tag() takes them) and yields Sentences in input "
          "order. Inputs are read batch_size at a time and tagged by `threads` threads with the "
          "GIL released; the output does not depend on `threads`. Takes tag()'s keyword "
          "arguments except exclude= and forced=.")
      .def(py::pickle([](const PyPipeline& p) { return PipelineState(p.models()); },
                      [](const py::tuple& state) {
                        return std::make_shared<PyPipeline>(PipelineFromState(state));
                      }))
      .def("__repr__", [](const PyPipeline& p) {
        return absl::StrCat("Pipeline(", p.models().size(), " models, last with ",
                            p.last().num_labels(), " labels)");
      });

  py::class_<PyModel>(m, "Model", R"(A trained model (immutable, shareable across threads).

Model.load(path) reads a model file; chaintag.train(...) makes one. A Model tags on its own
with the same methods as a Pipeline (tag, tag_text, tag_many).)")
      .def_static("load", &LoadModel, py::arg("path"),
                  "Loads and validates a model file (FileNotFoundError if missing, ValueError if "
                  "invalid).")
      .def_property_readonly("labels", [](const PyModel& m) { return m.model->labels(); })
      .def_property_readonly("path", [](const PyModel& m) { return m.path; })
      .def(
          "info", [](const PyModel& m) { return ModelInfoDict(*m.model); },
          "A dict: labels, sizes, input format, family (\"linear-chain\" or \"lmsbn\", whose "
          "history_templates it lists) and the training metadata.")
      .def(
          "save",
          [](const PyModel& m, const py::object& path, bool compress) {
            const std::string p = PathOf(path);
            absl::Status s;
            {
              py::gil_scoped_release release;
              s = m.model->Save(
                  p, compress ? ModelFileCompression::kGzip : ModelFileCompression::kNone);
            }
            Check(s);
          },
          py::arg("path"), py::arg("compress") = false,
          "Writes the model file atomically; compress=True writes it gzip-compressed.")
      .def(
          "pipeline",
          [](PyModel& m) {
            m.pipeline();
            return m.single;
          },
          "This model alone as a Pipeline.")
      .def(
          "tag",
          [](PyModel& m, const py::object& x, const py::kwargs& kw) {
            return TagOne(m.pipeline(), x, kw);
          },
          py::arg("x"), TagDoc())
      .def(
          "tag_text",
          [](PyModel& m, const py::object& text, const py::kwargs& kw) {
            return TagText(m.pipeline(), text, kw);
          },
          py::arg("text"), "As Pipeline.tag_text.")
      .def(
          "tag_many",
          [](PyModel& m, py::iterable xs, const py::object& threads, const py::object& batch_size,
             const py::kwargs& kwargs) {
            m.pipeline();
            return std::make_shared<TagStream>(m.single, py::iter(xs), kwargs, threads, batch_size);
          },
          py::arg("xs"), py::kw_only(), py::arg("threads") = 1, py::arg("batch_size") = 256,
          "As Pipeline.tag_many.")
      .def(py::pickle([](const PyModel& m) { return ModelState(*m.model, m.path); },
                      [](const py::tuple& state) {
                        PyModel m;
                        m.model = ModelFromState(state, &m.path);
                        return m;
                      }))
      .def(
          "state_features", [](const PyModel& m) { return StateFeatures(*m.model); },
          "{(attribute, label): weight} for every state feature (python-crfsuite's "
          "Tagger.info().state_features).")
      .def(
          "transition_features", [](const PyModel& m) { return TransitionFeatures(*m.model); },
          "{(from_label, to_label): weight} for every label pair, as stored (transitions the "
          "model's transition mask forbids are never taken whatever their weight).")
      .def(
          "probability",
          [](PyModel& m, const py::object& x, const py::object& y, bool log) {
            const Sentence s = SentenceFrom(x, "x", m.pipeline().reads_attributes());
            return LabelingProbability(*m.model, s, y, log);
          },
          py::arg("x"), py::arg("y"), py::kw_only(), py::arg("log") = false,
          "P(y|x): the probability of the labeling y (a list of labels) of x (as tag() takes "
          "it), exp(score(y) - log Z) over the labelings the transition mask allows (a forbidden "
          "one has probability 0); log=True gives log P(y|x). python-crfsuite's "
          "Tagger.probability.")
      .def(
          "marginal",
          [](PyModel& m, const py::object& x, const py::object& y, const py::object& t) {
            const Sentence s = SentenceFrom(x, "x", m.pipeline().reads_attributes());
            return LabelMarginal(*m.model, s, y, t);
          },
          py::arg("x"), py::arg("y"), py::arg("t"),
          "P(y_t = y | x): the marginal probability of label y at position t of x "
          "(python-crfsuite's Tagger.marginal).")
      .def(
          "attributes", [](const PyModel& m) { return AttributeNames(*m.model); },
          "The attribute names the model knows (for a template model, the features its "
          "templates generated in training).")
      .def(
          "start_features", [](const PyModel& m) { return BoundaryFeatures(*m.model, false); },
          "{label: weight} of a sentence starting with the label.")
      .def(
          "end_features", [](const PyModel& m) { return BoundaryFeatures(*m.model, true); },
          "{label: weight} of a sentence ending with the label.")
      .def("__repr__", [](const PyModel& m) {
        return absl::StrCat("Model(", m.path.empty() ? "" : "'" + m.path + "', ",
                            m.model->num_labels(), " labels, ", m.model->num_state_features(),
                            " features)");
      });

  m.def(
      "_pipeline",
      [](const std::vector<PyModel>& models) {
        std::vector<std::shared_ptr<const Model>> ms;
        for (const PyModel& pm : models) ms.push_back(pm.model);
        return std::make_shared<PyPipeline>(std::move(ms));
      },
      py::arg("models"));
  m.def("_load_models", &LoadModels, py::arg("paths"));
  m.def(
      "_shipped_model_path",
      [](const std::string& file, const std::vector<std::string>& dirs) {
        return Check(ShippedModelPath(file, dirs));
      },
      py::arg("file"), py::arg("dirs"));
  m.def("evaluate", &Evaluate, py::arg("gold"), py::arg("predicted"),
        R"(Scores predicted label sequences against gold ones as `chaintag eval` does (conlleval
counting for chunk/entity labels). Returns a dict: accuracy (token %), precision, recall, f1 (phrase
%, over all types), phrases, types (per phrase type), labels (per label), sentences, tokens,
has_chunks, and report (the eval command's text).)");
  m.def("_default_model_files", &DefaultModelFiles);
  m.def("_presets", &FeatureSpec::PresetNames);
  m.def("_train_options", []() {
    py::list out;
    for (const TrainOptionDef& d : TrainOptionTable())
      out.append(py::make_tuple(d.name, d.default_value, d.help));
    return out;
  });
  m.def("_train", &TrainModel, py::arg("data"), py::kw_only(), py::arg("preset") = py::none(),
        py::arg("template") = py::none(), py::arg("template_text") = py::none(),
        py::arg("format") = py::none(), py::arg("label_column") = -1, py::arg("objective") = "crf",
        py::arg("loss") = py::none(), py::arg("algorithm") = py::none(),
        py::arg("dev") = py::none(), py::arg("progress") = py::none());
}
