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
  SearchReport search;
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
  t.search = r.search;
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
      if (t.search.cost) p.cost = py::float_(sol.cost);
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
    if (t.search.exact.has_value()) {
      s.exact = py::bool_(*t.search.exact);
      s.hidden_paths = py::int_(t.search.hidden_paths);
    }
    if (t.search.optimal.has_value()) {
      s.optimal = py::bool_(*t.search.optimal);
      s.nodes = py::int_(t.search.nodes);
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
  m.def("_accurate_model_files", &AccurateModelFiles);
  m.def("_presets", &FeatureSpec::PresetNames);
  m.def("_train_options", []() {
    py::list out;
    for (const TrainOptionDef& d : TrainOptionTable())
      out.append(py::make_tuple(d.name, d.default_value, d.help));
    return out;
  });
  m.def(
      "_train",
      [](const py::object& data, const py::object& preset, const py::object& templ,
         const py::object& template_text, const py::object& format, int label_column,
         const std::string& objective, const py::object& loss, const py::object& algorithm,
         const py::object& dev, const py::object& progress, const py::kwargs& options) {
        PyModel m;
        m.model = TrainModel(data, preset, templ, template_text, format, label_column, objective,
                             loss, algorithm, dev, progress, options);
        return m;
      },
      py::arg("data"), py::kw_only(), py::arg("preset") = py::none(),
      py::arg("template") = py::none(), py::arg("template_text") = py::none(),
      py::arg("format") = py::none(), py::arg("label_column") = -1, py::arg("objective") = "crf",
      py::arg("loss") = py::none(), py::arg("algorithm") = py::none(), py::arg("dev") = py::none(),
      py::arg("progress") = py::none());
}
