// pickle, copy.deepcopy and joblib of Model and Pipeline: the state is the model file image, so a
// pickled model loads with the same validation as a file (a tampered pickle raises ValueError).
#include <string>
#include <string_view>

#include "absl/strings/str_cat.h"
#include "python/convert.h"
#include "python/extras.h"

namespace chaintag::python {

namespace {
constexpr int kStateVersion = 1;
}  // namespace

py::tuple ModelState(const Model& model, const std::string& path) {
  std::string bytes;
  {
    py::gil_scoped_release release;
    bytes = model.ToBytes();
  }
  return py::make_tuple(kStateVersion, py::bytes(bytes), py::bytes(path));
}

std::shared_ptr<const Model> ModelFromState(const py::tuple& state, std::string* path) {
  if (py::len(state) != 3 || !py::isinstance<py::int_>(state[0]) ||
      !py::isinstance<py::bytes>(state[1]) || !py::isinstance<py::bytes>(state[2])) {
    throw py::value_error("pickled chaintag.Model: expected (version, model bytes, path)");
  }
  if (state[0].cast<int>() != kStateVersion) {
    throw py::value_error(absl::StrCat("pickled chaintag.Model: state version ",
                                       state[0].cast<long long>(), " is not ", kStateVersion,
                                       " (pickled by another chaintag version)"));
  }
  *path = state[2].cast<std::string>();
  const std::string_view image = py::reinterpret_borrow<py::bytes>(state[1]);
  absl::StatusOr<Model> model;
  {
    py::gil_scoped_release release;
    model = Model::FromBytes(image, path->empty() ? "<pickled model>" : *path);
  }
  return std::make_shared<const Model>(Check(std::move(model)));
}

py::tuple PipelineState(const std::vector<std::shared_ptr<const Model>>& models) {
  py::tuple out(models.size());
  for (size_t i = 0; i < models.size(); ++i) out[i] = ModelState(*models[i], "");
  return out;
}

std::vector<std::shared_ptr<const Model>> PipelineFromState(const py::tuple& state) {
  std::vector<std::shared_ptr<const Model>> models;
  std::string path;
  for (py::handle s : state) {
    if (!py::isinstance<py::tuple>(s))
      throw py::value_error("pickled chaintag.Pipeline: expected a tuple of model states");
    models.push_back(ModelFromState(py::reinterpret_borrow<py::tuple>(s), &path));
  }
  if (models.empty()) throw py::value_error("pickled chaintag.Pipeline: no models");
  return models;
}

}  // namespace chaintag::python
