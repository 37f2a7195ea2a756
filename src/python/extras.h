// Functions of chaintag._core kept out of module.cc, one file per concern: pickling.cc (a model's
// state for pickle/copy/joblib), weights.cc (weight inspection), probability.cc (P(y|x) and
// marginals of given labels), training_job.cc (interruptible training). module.cc binds them to the
// Model and Pipeline classes.
#ifndef CHAINTAG_PYTHON_EXTRAS_H_
#define CHAINTAG_PYTHON_EXTRAS_H_

#include <pybind11/pybind11.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "chaintag/model.h"
#include "chaintag/tagging.h"
#include "chaintag/train.h"

namespace chaintag::python {

namespace py = pybind11;

// pickling.cc: a model's pickled state is its model file image (Model::ToBytes) and its path;
// ModelFromState validates the image as Model::Load does a file.
py::tuple ModelState(const Model& model, const std::string& path);
std::shared_ptr<const Model> ModelFromState(const py::tuple& state, std::string* path);
// A pipeline's state: the states of its models, first to last.
py::tuple PipelineState(const std::vector<std::shared_ptr<const Model>>& models);
std::vector<std::shared_ptr<const Model>> PipelineFromState(const py::tuple& state);

// weights.cc: {(attribute, label): weight} for every state feature, and {(from, to): weight} for
// every label bigram (the stored weights, before the transition mask), as python-crfsuite's
// Tagger.info() has them. Latent-dynamic models name hidden states "LABEL#k".
py::dict StateFeatures(const Model& model);
py::dict TransitionFeatures(const Model& model);
// The attribute names the model knows, in id order.
py::list AttributeNames(const Model& model);
// {label: weight} of the start and end of a sentence (chaintag has them; CRFsuite has not).
py::dict BoundaryFeatures(const Model& model, bool end);

// probability.cc: P(y|x) (or its log) of the labeling `labels` (a list of label names) of
// `sentence`, and P(y_t = label | x) at `position` (negative counts from the end).
double LabelingProbability(const Model& model, const Sentence& sentence, const py::handle& labels,
                           bool log);
double LabelMarginal(const Model& model, const Sentence& sentence, const py::handle& label,
                     const py::handle& position);

// training_job.cc: runs `train` (a call of chaintag::Train with the observer it is given) on a
// thread of its own while this thread waits without the GIL. Ctrl-C raises KeyboardInterrupt
// within 50 ms, and an exception of `progress` (called with a dict per iteration) is raised once
// that iteration is reported; the training thread then stops at its iteration's end and its
// model is dropped. `train` must own what it uses: it may outlive the call.
absl::StatusOr<Model> TrainInterruptibly(std::function<absl::StatusOr<Model>(TrainObserver*)> train,
                                         py::object progress);

// sentences.cc: x for a model trained on attributes (a list of per-token dicts or lists of
// names); whether a token list looks like attribute input (its first token is a dict); x as a
// Sentence: a list of str (one column) or of tuples/lists of str (columns, the word first), or
// with `attributes` per-token attribute dicts or lists of names.
Sentence AttributeSentenceFrom(const py::handle& x, const char* what);
bool LooksLikeAttributes(const py::handle& x);
Sentence SentenceFrom(const py::handle& x, const char* what = "x", bool attributes = false);

// requests.cc: tag()'s keyword arguments as a decoding request (the request table's fields Python
// offers; None = the default), and forced= for a sentence of m tokens.
struct RequestArgs {
  DecodeRequest request;
  std::vector<std::vector<std::string>> exclude;
  std::vector<std::string> forced_spec;  // empty: none; else per token label or "_"
  py::object forced_obj = py::none();    // forced=, resolved per sentence (its length)
  bool per_sentence = false;             // exclude= or forced= given
};
RequestArgs ParseRequest(const Model& last, const py::kwargs& kwargs);
std::vector<std::string> ForcedFor(const py::object& f, int m);

// training.cc: chaintag.train (files or in-memory (tokens, labels) pairs, trainer options as
// keyword arguments) and chaintag.evaluate (conlleval-style scores of predicted against gold).
std::shared_ptr<const Model> TrainModel(const py::object& data, const py::object& preset,
                                        const py::object& templ, const py::object& template_text,
                                        const py::object& format, int label_column,
                                        const std::string& objective, const py::object& loss,
                                        const py::object& algorithm, const py::object& dev,
                                        const py::object& progress, const py::kwargs& options);
py::dict Evaluate(const py::object& gold, const py::object& predicted);

}  // namespace chaintag::python

#endif  // CHAINTAG_PYTHON_EXTRAS_H_
