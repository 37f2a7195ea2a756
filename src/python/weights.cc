// Weight inspection (python-crfsuite's Tagger.info(), sklearn-crfsuite's state_features_ and
// transition_features_), from the model's weights in the trainers' layout (Model::Parameters).
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "model/parameters.h"
#include "python/convert.h"
#include "python/extras.h"

namespace chaintag::python {

namespace {

// Names of the weight rows: labels, or "LABEL#k" for the hidden states of latent models.
std::vector<py::str> StateNames(const Model& model) {
  std::vector<py::str> names;
  if (!model.latent()) {
    for (const std::string& l : model.labels()) names.emplace_back(l);
    return names;
  }
  const LatentLayout& layout = model.latent_layout();
  for (int h = 0; h < layout.num_states(); ++h) {
    const int y = layout.label_of(h);
    names.emplace_back(absl::StrCat(model.labels()[y], "#", h - layout.first_state(y)));
  }
  return names;
}

void CheckChain(const Model& model) {
  if (const ModelCapabilities caps = model.Capabilities(); !caps.weights) {
    throw py::value_error(absl::StrCat("weights: not supported on ", caps.description,
                                       "; state and transition weights are those of "
                                       "linear-chain models"));
  }
}

}  // namespace

py::dict StateFeatures(const Model& model) {
  CheckChain(model);
  const ModelParameters p = model.Parameters();
  const std::vector<py::str> names = StateNames(model);
  const AttributeDictionary& attributes = model.attributes();
  py::dict out;
  for (int a = 0; a < p.num_attributes(); ++a) {
    const std::string_view name = attributes.name_view(a);
    py::str attribute(name.data(), name.size());
    for (int32_t f = p.attribute_offsets[a]; f < p.attribute_offsets[a + 1]; ++f)
      out[py::make_tuple(attribute, names[p.feature_labels[f]])] = p.weights[f];
  }
  return out;
}

py::list AttributeNames(const Model& model) {
  const AttributeDictionary& attributes = model.attributes();
  py::list out(attributes.size());
  for (int a = 0; a < attributes.size(); ++a) {
    const std::string_view name = attributes.name_view(a);
    PyList_SET_ITEM(out.ptr(), a, py::str(name.data(), name.size()).release().ptr());
  }
  return out;
}

py::dict TransitionFeatures(const Model& model) {
  CheckChain(model);
  const ModelParameters p = model.Parameters();
  const std::vector<py::str> names = StateNames(model);
  const int n = p.num_labels;
  py::dict out;
  for (int from = 0; from < n; ++from) {
    for (int to = 0; to < n; ++to)
      out[py::make_tuple(names[from], names[to])] =
          p.weights[p.transition_offset() + int64_t{from} * n + to];
  }
  return out;
}

py::dict BoundaryFeatures(const Model& model, bool end) {
  CheckChain(model);
  const ModelParameters p = model.Parameters();
  const std::vector<py::str> names = StateNames(model);
  const int64_t offset = end ? p.end_offset() : p.start_offset();
  py::dict out;
  for (int y = 0; y < p.num_labels; ++y) out[names[y]] = p.weights[offset + y];
  return out;
}

}  // namespace chaintag::python
