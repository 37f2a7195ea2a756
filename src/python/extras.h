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

}  // namespace chaintag::python

#endif  // CHAINTAG_PYTHON_EXTRAS_H_
